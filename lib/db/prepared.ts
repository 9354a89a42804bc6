import { createHash } from "node:crypto";
import type pg from "pg";
import { settings } from "@/lib/config/settings";
import { dbPool } from "@/lib/db/client";
import { logger } from "@/lib/log";

// What PostgreSQL answers when a connection lacks a statement the client
// prepared on it, or already holds one of that name: both happen behind a
// transaction-mode pooler that cannot follow prepared statements (PgBouncer
// before 1.21), or on a server restarted under the pool.
const MISSING = "26000";
const DUPLICATE = "42P05";

const state = globalThis as unknown as { __telltalePreparedOff?: boolean };

/**
 * A hot statement as a named prepared statement: PostgreSQL parses and plans
 * it once per connection instead of on every call, and the wire carries its
 * parameters only: for the ingest statement (several kB of SQL, one per
 * flush) a large saving (docs/performance.md#figures-behind-the-code).
 * Where the connection cannot keep prepared statements, the first failure
 * turns them off for this process (logged once) and the call is made again
 * unnamed: the failed attempt ran nothing.
 */
export async function queryPrepared<R extends pg.QueryResultRow>(text: string, values: unknown[]): Promise<pg.QueryResult<R>> {
  if (!preparedStatementsInUse()) return dbPool().query<R>(text, values);
  try {
    return await dbPool().query<R>({ name: statementName(text), text, values });
  } catch (error) {
    const code = (error as { code?: unknown } | null)?.code;
    if (code !== MISSING && code !== DUPLICATE) throw error;
    state.__telltalePreparedOff = true;
    logger.warn("prepared statements are not kept by this database connection (a transaction-mode pooler?); using unnamed statements from now on. Set DATABASE_PREPARED_STATEMENTS=false to say so up front.", { code });
    return dbPool().query<R>(text, values);
  }
}

/** Whether queryPrepared still names its statements in this process. */
export function preparedStatementsInUse(): boolean {
  return settings().database.preparedStatements && !state.__telltalePreparedOff;
}

/** The name follows the text: two versions of a statement never share one. */
function statementName(text: string): string {
  let name = names.get(text);
  if (!name) {
    name = `telltale_${createHash("sha256").update(text).digest("hex").slice(0, 16)}`;
    names.set(text, name);
  }
  return name;
}

const names = new Map<string, string>();

/** Tests: prepared statements on again after a test turned them off. */
export function resetPreparedStatements(): void {
  state.__telltalePreparedOff = false;
}
