/**
 * Events stored before issues existed have no `occurred_at` and no issue.
 * This assigns them, oldest first, in bounded steps (one short transaction
 * per step), with the same grouping and the same issue and per-minute count
 * upserts as ingestion (lib/events/store.ts). Run by `npm run db:migrate`
 * after the SQL migrations; safe to interrupt and to run again, and to run
 * while the service ingests.
 */
import pg from "pg";
import type { EventLevel } from "@/lib/events/schema";
import { eventTime } from "@/lib/events/time";
import { issueGroupingKey } from "@/lib/issues/template";

/**
 * Issues upserted from the rows of CTE `source`, in (project, hash) order so
 * that concurrent statements lock issue rows in the same order and never
 * deadlock. A resolved issue that gets an event reopens (a regression);
 * `reopened_txid` lets RETURNING tell this statement's regressions apart.
 */
function issueUpsertSql(source: string): string {
  return `
  grouped AS (
    SELECT project_id, hash, min(level) AS level,
           (array_agg(title ORDER BY occurred_at DESC, id DESC))[1] AS title,
           (array_agg(message ORDER BY occurred_at DESC, id DESC))[1] AS sample,
           min(occurred_at) AS first_seen, max(occurred_at) AS last_seen, count(*) AS n
    FROM ${source} GROUP BY project_id, hash
  ),
  issues_up AS (
    INSERT INTO issues AS i (project_id, fingerprint_hash, level, title, sample_message, first_seen, last_seen, count)
    SELECT project_id, hash, level, title, sample, first_seen, last_seen, n FROM grouped ORDER BY project_id, hash
    ON CONFLICT (project_id, fingerprint_hash) DO UPDATE SET
      count = i.count + EXCLUDED.count,
      level = LEAST(i.level, EXCLUDED.level),
      first_seen = LEAST(i.first_seen, EXCLUDED.first_seen),
      last_seen = GREATEST(i.last_seen, EXCLUDED.last_seen),
      sample_message = CASE WHEN EXCLUDED.last_seen >= i.last_seen THEN EXCLUDED.sample_message ELSE i.sample_message END,
      status = CASE WHEN i.status = 'resolved' THEN 'open'::issue_status ELSE i.status END,
      status_changed_at = CASE WHEN i.status = 'resolved' THEN now() ELSE i.status_changed_at END,
      regressed_at = CASE WHEN i.status = 'resolved' THEN EXCLUDED.first_seen ELSE i.regressed_at END,
      reopened_txid = CASE WHEN i.status = 'resolved' THEN txid_current() ELSE i.reopened_txid END
    RETURNING i.id, i.project_id, i.fingerprint_hash, i.level, (i.xmax = 0) AS created,
              (i.reopened_txid IS NOT DISTINCT FROM txid_current()) AS regressed
  )`;
}

/**
 * The upserted issues' ids by (project, hash), as one jsonb object read once
 * per row. A join of the rows with issues_up would do the same, but the
 * planner cannot know how many rows a JSON parameter holds and picks a
 * nested loop: 5,000 events x 800 issues took 800 ms where this takes 2.
 */
function issueIdMapSql(): string {
  return `
  issue_ids AS (SELECT jsonb_object_agg(project_id || chr(1) || fingerprint_hash, id) AS ids FROM issues_up)`;
}

/**
 * Per-minute, per-hour and per-day counts added from the rows of CTE `source`
 * (issue_id, level, project_id, occurred_at). Only the holder of an issue's
 * row lock writes its counts, so these upserts never wait on each other.
 */
function countUpsertSql(source: string): string {
  return COUNT_TABLES.map(
    ({ cte, table, bucket, width }) => `
  ${cte} AS (
    INSERT INTO ${table} AS t (issue_id, ${bucket}, level, project_id, count)
    SELECT issue_id, date_bin('${width}', occurred_at, TIMESTAMPTZ 'epoch'), level, project_id, count(*)::int
    FROM ${source} GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3
    ON CONFLICT (issue_id, ${bucket}, level) DO UPDATE SET count = t.count + EXCLUDED.count
    RETURNING 1
  )`,
  ).join(",");
}

const COUNT_TABLES = [
  { cte: "counts_up", table: "issue_counts", bucket: "minute", width: "1 minute" },
  { cte: "hours_up", table: "issue_hours", bucket: "hour", width: "1 hour" },
  { cte: "days_up", table: "issue_days", bucket: "day", width: "1 day" },
] as const;


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
