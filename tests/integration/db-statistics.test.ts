import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import { afterAll, describe, expect, it, vi } from "vitest";
import { sqlDb } from "@/lib/db/sql";
import { refreshStaleStatistics } from "@/lib/db/statistics";

/**
 * The statistics job: where autovacuum is off (the embedded database; the
 * test machine's PostgreSQL), a table that changed by more than autovacuum's
 * analyze threshold is analyzed, so the planner sees its real size. A
 * scratch table of this test plays the grown table: other files change the
 * app's tables at the same time.
 */
const table = `stats_probe_${randomUUID().replaceAll("-", "").slice(0, 12)}`;

afterAll(async () => {
  await sql`DROP TABLE IF EXISTS ${sql.table(table)}`.execute(sqlDb());
});

async function reltuples(): Promise<number> {
  const { rows } = await sql<{ n: number }>`SELECT reltuples::float8 AS n FROM pg_class WHERE relname = ${table}`.execute(sqlDb());
  return rows[0]!.n;
}

/** Adds `rows` rows to the scratch table, on one connection: their counts reach the shared statistics when that session flushes them. */
async function grow(rows: number): Promise<void> {
  await sqlDb()
    .connection()
    .execute(async (db) => {
      await sql`CREATE TABLE IF NOT EXISTS ${sql.table(table)} (n int)`.execute(db);
      await sql`INSERT INTO ${sql.table(table)} SELECT generate_series(1, ${rows}::int)`.execute(db);
      await sql`SELECT pg_stat_force_next_flush()`.execute(db);
      await sql`SELECT 1`.execute(db);
    });
  // Other sessions see the counts once the shared statistics have them: under load, not always by the next statement.
  await vi.waitFor(
    async () => {
      const { rows: seen } = await sql<{ n: string }>`SELECT coalesce(max(n_mod_since_analyze), 0) AS n FROM pg_stat_user_tables WHERE relname = ${table}`.execute(sqlDb());
      expect(Number(seen[0]!.n)).toBeGreaterThanOrEqual(rows);
    },
    { timeout: 60_000, interval: 50 },
  );
}

describe("refreshStaleStatistics", () => {
  it("analyzes a table that changed past autovacuum's threshold, and leaves it alone once analyzed", async () => {
    await grow(1000);
    expect(await reltuples()).toBeLessThan(1000);

    const first = await refreshStaleStatistics({ force: true });
    expect(first.analyzed).toContain(table);
    expect(first.complete).toBe(true);
    expect(await reltuples()).toBe(1000);

    const second = await refreshStaleStatistics({ force: true });
    expect(second.analyzed).not.toContain(table);
  });

  it("stops at its deadline and says it did not finish", async () => {
    await grow(1000);
    const report = await refreshStaleStatistics({ force: true, deadline: 0, clock: () => 1 });
    expect(report).toMatchObject({ analyzed: [], complete: false });
    expect(await reltuples()).toBe(1000);
  });

  it("leaves the work to autovacuum where it runs", async () => {
    const { rows } = await sql<{ on: string }>`SELECT current_setting('autovacuum') AS on`.execute(sqlDb());
    const report = await refreshStaleStatistics();
    expect(report.autovacuum).toBe(rows[0]!.on === "on");
    if (report.autovacuum) expect(report.analyzed).toEqual([]);
  });
});
