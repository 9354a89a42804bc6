/**
 * Events stored before issues existed have no `occurred_at` and no issue.
 * This assigns them, oldest first, in bounded steps (one short transaction
 * per step), with the same grouping and the same issue and count upserts as
 * ingestion (lib/issues/backfill.ts). Run by `npm run db:migrate` after the
 * SQL migrations; safe to interrupt and to run again, and to run while the
 * service ingests.
 */
import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import type { DB } from "@/lib/db/sql";
import { countUnassignedEvents as countUnassigned, lockUnassignedEvents } from "@/lib/events/backfill";
import { eventTime } from "@/lib/events/time";
import { assignEventsToIssues } from "@/lib/issues/backfill";
import { issueGroupingKey } from "@/lib/grouping/key";

export const BACKFILL_BATCH = 2_000;

/** A query builder on one connection of its own (the migration tool runs before the app's pool exists). */
async function withDatabase<T>(url: string, work: (db: Kysely<DB>) => Promise<T>): Promise<T> {
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: url, max: 1 }) }) });
  try {
    return await work(db);
  } finally {
    await db.destroy().catch(() => {});
  }
}

/** Events without an issue: how many (a cheap exact count while few; an estimate is not needed). */
export async function countUnassignedEvents(url: string): Promise<number> {
  return withDatabase(url, countUnassigned);
}

/** Assigns every event without an issue; returns how many it assigned. */
export async function backfillIssues(url: string, options: { onProgress?: (done: number) => void; batch?: number } = {}): Promise<number> {
  return withDatabase(url, async (db) => {
    let done = 0;
    for (;;) {
      const assigned = await db.transaction().execute(async (trx) => {
        const events = await lockUnassignedEvents(trx, options.batch ?? BACKFILL_BATCH);
        if (events.length === 0) return null;
        const rows = events.map((e) => {
          const { hash, title } = issueGroupingKey({ level: e.level, message: e.message, fingerprint: null });
          return { id: e.id, project_id: e.project_id, group_hash: hash, title, level: e.level, message: e.message, occurred_at: eventTime(e.timestamp, e.received_at) };
        });
        return assignEventsToIssues(trx, rows);
      });
      if (assigned === null) break;
      done += assigned;
      options.onProgress?.(done);
    }
    return done;
  });
}
