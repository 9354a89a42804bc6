/**
 * Events stored before issues existed have no `occurred_at` and no issue.
 * This assigns them, oldest first, in bounded steps (one short transaction
 * per step), with the same grouping and the same issue and count upserts as
 * ingestion (lib/issues/upsert.ts). Run by `npm run db:migrate` after the
 * SQL migrations; safe to interrupt and to run again, and to run while the
 * service ingests.
 */
import { Kysely, PostgresDialect } from "kysely";
import pg from "pg";
import type { DB } from "@/lib/db/sql";
import { assignEventIssues, countUnassignedEvents as countUnassigned, lockUnassignedEvents } from "@/lib/events/backfill";
import { eventTime } from "@/lib/events/time";
import { addToIssueCounts, issueKey, upsertIssuesOf } from "@/lib/issues/backfill";
import { issueGroupingKey } from "@/lib/issues/template";

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
        const rows = await lockUnassignedEvents(trx, options.batch ?? BACKFILL_BATCH);
        if (rows.length === 0) return null;
        const events = rows.map((r) => {
          const { hash, title } = issueGroupingKey({ level: r.level, message: r.message, fingerprint: null });
          return { id: r.id, project_id: r.project_id, hash, title, level: r.level, message: r.message, occurred_at: eventTime(r.timestamp, r.received_at) };
        });
        const issueIds = await upsertIssuesOf(trx, events);
        const assignedEvents = await assignEventIssues(
          trx,
          events.map((e) => ({ id: e.id, issue_id: issueIds.get(issueKey(e.project_id, e.hash))!, occurred_at: e.occurred_at })),
        );
        await addToIssueCounts(trx, assignedEvents);
        return assignedEvents.length;
      });
      if (assigned === null) break;
      done += assigned;
      options.onProgress?.(done);
    }
    return done;
  });
}
