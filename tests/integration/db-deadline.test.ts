/**
 * Each query of the app's pool has a client-side deadline (lib/db/client.ts,
 * DeadlineClient; a frozen database is tested in ingest-db-outage.test.ts).
 * Its timer ends with the query: a timer left behind would hold the process
 * open, and on its deadline close a connection that is working.
 */
import { describe, expect, it } from "vitest";
import { dbPool, prisma } from "@/lib/db/client";
import { sqlDb } from "@/lib/db/sql";
import { sql } from "kysely";
import { settings } from "@/lib/config/settings";

const activeTimers = () => process.getActiveResourcesInfo().filter((r) => r === "Timeout").length;

describe("the app's query deadlines", () => {
  it("end with their queries, in every form (callback, promise, Kysely, Prisma), answered or failed", async () => {
    await dbPool().query("SELECT 1");
    const before = activeTimers();
    for (let i = 0; i < 25; i++) {
      await new Promise<void>((resolve, reject) => dbPool().query("SELECT $1::int AS n", [i], (error) => (error ? reject(error) : resolve())));
      const client = await dbPool().connect();
      try {
        expect((await client.query<{ n: number }>("SELECT $1::int AS n", [i])).rows[0]!.n).toBe(i);
        await expect(client.query("SELECT no_such_column")).rejects.toThrow(/no_such_column/);
      } finally {
        client.release();
      }
      expect((await sql<{ n: number }>`SELECT ${i}::int AS n`.execute(sqlDb())).rows[0]!.n).toBe(i);
      expect(await prisma.$queryRawUnsafe<{ n: number }[]>("SELECT $1::int AS n", i)).toEqual([{ n: i }]);
    }
    // 125 queries: a timer left by each would show here. The pool keeps one idle timer per connection at most.
    expect(activeTimers() - before).toBeLessThanOrEqual(settings().database.poolSize);
  });
});
