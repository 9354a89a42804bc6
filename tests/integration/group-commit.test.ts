/**
 * Group commit's scheduling (lib/ingest/group-commit.ts): one statement in flight
 * at a time, but a statement stuck on a row lock does not hold up the
 * requests that arrive behind it.
 */
import pg from "pg";
import { describe, expect, inject, it } from "vitest";
import { countEvents, makeProject, sendEvent } from "@/tests/helpers/ingest";

/** Another session holds every issue row of a project, until release(). */
async function lockIssuesOf(projectId: string) {
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  await client.query("BEGIN");
  await client.query("SELECT 1 FROM issues WHERE project_id = $1 FOR UPDATE", [projectId]);
  let ended = false;
  return {
    /** Resolves once a statement waits for these rows. */
    async untilSomeoneWaits() {
      while (!ended) {
        // Inside this transaction pg_stat_activity is a snapshot taken at its first read: drop it, or a
        // statement that starts waiting after the first poll is never seen.
        await client.query("SELECT pg_stat_clear_snapshot()");
        const { rows } = await client.query("SELECT 1 FROM pg_stat_activity WHERE pg_backend_pid() = ANY(pg_blocking_pids(pid))");
        if (rows.length > 0) return;
        await new Promise((r) => setTimeout(r, 10)); // polling another session's state: there is no event to await
      }
    },
    release: () => client.query("COMMIT"),
    end: () => {
      ended = true;
      return client.end();
    },
  };
}

/**
 * `promise`, or a failure that names the step and what this database's
 * sessions are waiting on, after `ms` (the retry test once timed out in CI
 * without saying where; under each test's own 30 s).
 */
async function step<T>(name: string, promise: Promise<T>, ms = 20_000): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const expired = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      void databaseSessions().then(
        (sessions) => reject(new Error(`${name}: nothing after ${ms} ms. Sessions of this database: ${sessions}`)),
        (error: unknown) => reject(new Error(`${name}: nothing after ${ms} ms (sessions unreadable: ${String(error)})`)),
      );
    }, ms);
  });
  try {
    return await Promise.race([promise, expired]);
  } finally {
    clearTimeout(timer);
  }
}

async function databaseSessions(): Promise<string> {
  const client = new pg.Client({ connectionString: process.env.DATABASE_URL });
  await client.connect();
  try {
    const { rows } = await client.query(
      `SELECT pid, state, wait_event_type, wait_event, pg_blocking_pids(pid) AS blocked_by, left(query, 100) AS query
       FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`,
    );
    return JSON.stringify(rows);
  } finally {
    await client.end();
  }
}

// The embedded database serves one connection: nothing runs beside a statement that waits.
describe.skipIf(inject("databaseKind") !== "external")("group commit behind a stalled statement", () => {
  it("stores a request for another issue while a statement waits on a row lock; the waiting one is stored once the lock is gone", async () => {
    const p = await makeProject("stall");
    const event = (message: string) => ({ level: "error", message, projectId: p.id });
    expect((await sendEvent(p.apiKey, event("Payment provider timed out"))).status).toBe(201);

    const blocker = await step("taking the issue rows' locks", lockIssuesOf(p.id));
    try {
      let stalledSettled = false;
      const stalled = sendEvent(p.apiKey, event("Payment provider timed out")).finally(() => {
        stalledSettled = true;
      });
      await step("the first request's statement waiting on the locks", blocker.untilSomeoneWaits());

      // Two in turn: each is stored while the first statement still waits.
      for (const n of [1, 2]) {
        expect((await step(`another issue's request ${n} beside the stalled one`, sendEvent(p.apiKey, event("Search index unavailable")))).status).toBe(201);
      }
      expect(stalledSettled).toBe(false);

      await blocker.release();
      expect((await step("the stalled request after the release", stalled)).status).toBe(201);
      expect(await countEvents(p.id)).toBe(4);
    } finally {
      await blocker.end();
    }
  }, 30_000);

  // A client that retries a slow request sends the same Idempotency-Key
  // while the first is still being stored: the retry waits for it (and then
  // replays its answer) instead of joining a statement that would wait on
  // the first one's claim, with every other request in it.
  it("holds back a retry of a request whose statement is stalled, and stores the others meanwhile; the retry then replays the first answer", async () => {
    const p = await makeProject("stall-retry");
    const event = (message: string) => ({ level: "error", message, projectId: p.id });
    expect((await sendEvent(p.apiKey, event("Payment provider timed out"))).status).toBe(201);
    const idempotent = { headers: { "Idempotency-Key": "checkout-7f3a" } };

    const blocker = await step("taking the issue rows' locks", lockIssuesOf(p.id));
    try {
      const settled = new Set<string>();
      const first = sendEvent(p.apiKey, event("Payment provider timed out"), idempotent).finally(() => settled.add("first"));
      await step("the first request's statement waiting on the locks", blocker.untilSomeoneWaits());
      const retry = sendEvent(p.apiKey, event("Payment provider timed out"), idempotent).finally(() => settled.add("retry"));

      expect((await step("another issue's request beside the stalled one", sendEvent(p.apiKey, event("Search index unavailable")))).status).toBe(201);
      expect([...settled]).toEqual([]);

      await blocker.release();
      const [a, b] = await step("the first request and its retry after the release", Promise.all([first, retry]));
      expect([a.status, b.status, b.res.headers.get("idempotent-replayed")]).toEqual([201, 201, "true"]);
      expect(b.body.id).toBe(a.body.id);
      expect(await countEvents(p.id)).toBe(3);
    } finally {
      await blocker.end();
    }
  }, 30_000);
});
