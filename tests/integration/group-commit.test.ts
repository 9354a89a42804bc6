/**
 * Group commit's scheduling (lib/events/store.ts): one statement in flight
 * at a time, but a statement stuck on a row lock does not hold up the
 * requests that arrive behind it.
 */
import pg from "pg";
import { describe, expect, inject, it } from "vitest";
import { countEvents, makeProject, sendEvent } from "@/tests/helpers/ingest";

// The embedded database serves one connection: nothing runs beside a statement that waits.
describe.skipIf(inject("databaseKind") !== "external")("group commit behind a stalled statement", () => {
  it("stores a request for another issue while a statement waits on a row lock; the waiting one is stored once the lock is gone", async () => {
    const p = await makeProject("stall");
    const event = (message: string) => ({ level: "error", message, projectId: p.id });
    expect((await sendEvent(p.apiKey, event("Payment provider timed out"))).status).toBe(201);

    const blocker = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await blocker.connect();
    try {
      await blocker.query("BEGIN");
      await blocker.query("SELECT 1 FROM issues WHERE project_id = $1 FOR UPDATE", [p.id]);
      let stalledSettled = false;
      const stalled = sendEvent(p.apiKey, event("Payment provider timed out")).finally(() => {
        stalledSettled = true;
      });
      for (;;) {
        const { rows } = await blocker.query("SELECT 1 FROM pg_stat_activity WHERE pg_backend_pid() = ANY(pg_blocking_pids(pid))");
        if (rows.length > 0) break;
        await new Promise((r) => setTimeout(r, 10)); // polling another session's state: there is no event to await
      }

      const other = await sendEvent(p.apiKey, event("Search index unavailable"));
      expect(other.status).toBe(201);
      expect(stalledSettled).toBe(false);

      await blocker.query("COMMIT");
      expect((await stalled).status).toBe(201);
      expect(await countEvents(p.id)).toBe(3);
    } finally {
      await blocker.end();
    }
  }, 30_000);
});
