/**
 * Events stored before issues existed have no `occurred_at` and no issue.
 * This assigns them, oldest first, in bounded steps (one short transaction
 * per step), with the same grouping and the same issue and per-minute count
 * upserts as ingestion (lib/events/store.ts). Run by `npm run db:migrate`
 * after the SQL migrations; safe to interrupt and to run again, and to run
 * while the service ingests.
 */
import pg from "pg";
import { countUpsertSql, issueIdMapSql, issueUpsertSql } from "@/lib/events/store";
import type { EventLevel } from "@/lib/events/schema";
import { eventTime } from "@/lib/events/time";
import { issueGroupingKey } from "@/lib/grouping/key";

export const BACKFILL_BATCH = 2_000;

const ASSIGN_SQL = `
WITH source AS (
  SELECT * FROM json_to_recordset($1::json) AS e(id uuid, project_id text, hash text, title text, level event_level, message text, occurred_at timestamptz)
),${issueUpsertSql("source")},
${issueIdMapSql()},
assigned AS (
  UPDATE events e SET issue_id = ((SELECT ids FROM issue_ids) ->> (s.project_id || chr(1) || s.hash))::uuid, occurred_at = s.occurred_at
  FROM source s
  WHERE e.id = s.id AND e.issue_id IS NULL
  RETURNING e.issue_id, e.project_id, e.level, e.occurred_at
),${countUpsertSql("assigned")}
SELECT (SELECT count(*)::int FROM assigned) AS assigned`;

type Unassigned = { id: string; project_id: string; level: EventLevel; message: string; timestamp: Date | null; received_at: Date };

/** Events without an issue: how many (a cheap exact count while few; an estimate is not needed). */
export async function countUnassignedEvents(url: string): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ n: number }>("SELECT count(*)::int AS n FROM events WHERE issue_id IS NULL");
    return rows[0]!.n;
  } finally {
    await client.end().catch(() => {});
  }
}

/** Assigns every event without an issue; returns how many it assigned. */
export async function backfillIssues(url: string, options: { onProgress?: (done: number) => void; batch?: number } = {}): Promise<number> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  let done = 0;
  try {
    for (;;) {
      await client.query("BEGIN");
      try {
        // The issue index keeps the unassigned (NULL) events together, so a
        // step finds its rows without scanning assigned ones. The row locks
        // keep a second backfill (SKIP LOCKED) from counting them twice.
        const { rows } = await client.query<Unassigned>(
          `SELECT id::text, project_id, level::text AS level, message, "timestamp", received_at
           FROM events WHERE issue_id IS NULL ORDER BY issue_id, occurred_at DESC, id DESC LIMIT $1
           FOR UPDATE SKIP LOCKED`,
          [options.batch ?? BACKFILL_BATCH],
        );
        if (rows.length === 0) {
          await client.query("COMMIT");
          break;
        }
        const source = rows.map((r) => {
          const { hash, title } = issueGroupingKey({ level: r.level, message: r.message, fingerprint: null });
          return { id: r.id, project_id: r.project_id, hash, title, level: r.level, message: r.message, occurred_at: eventTime(r.timestamp, r.received_at).toISOString() };
        });
        const result = await client.query<{ assigned: number }>(ASSIGN_SQL, [JSON.stringify(source)]);
        await client.query("COMMIT");
        done += result.rows[0]!.assigned;
        options.onProgress?.(done);
      } catch (error) {
        await client.query("ROLLBACK").catch(() => {});
        throw error;
      }
    }
    return done;
  } finally {
    await client.end().catch(() => {});
  }
}
