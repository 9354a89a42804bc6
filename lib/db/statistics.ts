import { sql } from "kysely";
import { sqlDb } from "@/lib/db/sql";

/**
 * The planner's statistics where nothing else keeps them. PostgreSQL's
 * autovacuum analyzes a table once enough of it changed; the embedded
 * database (PGlite runs no autovacuum) and servers with autovacuum off never
 * do. There, a statement prepared while the count tables were nearly empty
 * keeps a plan that scans them whole, and each ingest statement grows slower
 * as they grow (docs/performance.md, "Statistics the planner did not have").
 * The same rule as autovacuum's analyze: 50 changed rows plus a tenth of the
 * table.
 */
const ANALYZE_BASE_THRESHOLD = 50;
const ANALYZE_SCALE_FACTOR = 0.1;

/** VACUUMs `table` where autovacuum is off (the embedded database): for a queue table whose rows are all deleted soon after they are added. */
export async function vacuumWhereAutovacuumIsOff(table: string): Promise<boolean> {
  if (await autovacuumOn()) return false;
  await sql`VACUUM ${sql.table(table)}`.execute(sqlDb());
  return true;
}

async function autovacuumOn(): Promise<boolean> {
  const { rows } = await sql<{ autovacuum: string }>`SELECT current_setting('autovacuum') AS autovacuum`.execute(sqlDb());
  return rows[0]?.autovacuum === "on";
}

export type StatisticsReport = { autovacuum: boolean; analyzed: string[]; complete: boolean };

/** ANALYZEs this schema's tables that changed enough since their last analyze, unless autovacuum does it (`force`: regardless). */
export async function refreshStaleStatistics(options: { force?: boolean; deadline?: number; clock?: () => number } = {}): Promise<StatisticsReport> {
  const db = sqlDb();
  const clock = options.clock ?? Date.now;
  const autovacuum = await autovacuumOn();
  if (autovacuum && !options.force) return { autovacuum, analyzed: [], complete: true };
  const stale = await sql<{ name: string }>`
    SELECT s.relname AS name
    FROM pg_stat_user_tables s JOIN pg_class c ON c.oid = s.relid
    WHERE s.schemaname = current_schema()
      AND s.n_mod_since_analyze > ${ANALYZE_BASE_THRESHOLD} + ${ANALYZE_SCALE_FACTOR} * greatest(c.reltuples, 0)
    ORDER BY s.n_mod_since_analyze DESC`.execute(db);
  const analyzed: string[] = [];
  for (const { name } of stale.rows) {
    if (options.deadline !== undefined && clock() >= options.deadline) return { autovacuum, analyzed, complete: false };
    await sql`ANALYZE ${sql.table(name)}`.execute(db);
    analyzed.push(name);
  }
  return { autovacuum, analyzed, complete: true };
}
