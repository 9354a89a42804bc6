import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { dbPool, disconnectDb } from "@/lib/db/client";
import { preparedStatementsInUse, queryPrepared, resetPreparedStatements } from "@/lib/db/prepared";
import { stubEnv, unstubEnvs } from "@/tests/helpers/env";

/**
 * The ingest statement runs as a named prepared statement. A connection that
 * loses it (a transaction-mode pooler hands the client another server
 * connection; a server restart; DEALLOCATE) must not fail the call: the first
 * such failure turns prepared statements off and the call is made again.
 * One pooled connection, so the test knows which session holds what. The
 * rest of the suite, run through PgBouncer in transaction mode, is the case
 * where the server sessions change under the client.
 */
const SQL = "SELECT $1::int + 1 AS n /* db-prepared.test */";

beforeAll(async () => {
  // Through PgBouncer (TEST_PGBOUNCER=1) each call may land on another server
  // session, which is the fallback's case, not this file's: the server itself.
  if (process.env.DIRECT_URL) stubEnv("DATABASE_URL", process.env.DIRECT_URL);
  stubEnv("DATABASE_POOL_SIZE", "1");
  stubEnv("DATABASE_PREPARED_STATEMENTS", "true");
  resetPreparedStatements();
  // After the variables: a pool opened from now on gets them.
  await disconnectDb();
});

afterAll(async () => {
  unstubEnvs();
  resetPreparedStatements();
  await disconnectDb();
});

describe("queryPrepared", () => {
  it("prepares the statement once on the connection and reuses it", async () => {
    expect((await queryPrepared<{ n: number }>(SQL, [1])).rows).toEqual([{ n: 2 }]);
    expect((await queryPrepared<{ n: number }>(SQL, [41])).rows).toEqual([{ n: 42 }]);
    const { rows } = await dbPool().query<{ name: string; statement: string }>("SELECT name, statement FROM pg_prepared_statements WHERE statement LIKE '%db-prepared.test%' AND NOT from_sql");
    expect(rows).toHaveLength(1);
    expect(rows[0]!.name).toMatch(/^telltale_[0-9a-f]{16}$/);
    expect(preparedStatementsInUse()).toBe(true);
  });

  it("falls back to unnamed statements when the connection lost the prepared one, and answers the call", async () => {
    // As a transaction-mode pooler does: the client believes the statement is prepared, the server session has none.
    await dbPool().query("DEALLOCATE ALL");
    expect((await queryPrepared<{ n: number }>(SQL, [9])).rows).toEqual([{ n: 10 }]);
    expect(preparedStatementsInUse()).toBe(false);
    expect((await queryPrepared<{ n: number }>(SQL, [99])).rows).toEqual([{ n: 100 }]);
  });

  it("other errors are the caller's, and leave prepared statements on", async () => {
    resetPreparedStatements();
    await expect(queryPrepared("SELECT 1 / $1::int AS n /* db-prepared.test */", [0])).rejects.toMatchObject({ code: "22012" });
    expect(preparedStatementsInUse()).toBe(true);
  });

  it("DATABASE_PREPARED_STATEMENTS=false: statements are never named", async () => {
    stubEnv("DATABASE_PREPARED_STATEMENTS", "false");
    await dbPool().query("DEALLOCATE ALL");
    expect((await queryPrepared<{ n: number }>(SQL, [1])).rows).toEqual([{ n: 2 }]);
    const { rows } = await dbPool().query("SELECT name FROM pg_prepared_statements WHERE statement LIKE '%db-prepared.test%' AND NOT from_sql");
    expect(rows).toHaveLength(0);
    stubEnv("DATABASE_PREPARED_STATEMENTS", "true");
  });
});
