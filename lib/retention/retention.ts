import { settings } from "@/lib/config/settings";
import { dbPool } from "@/lib/db/client";
import { isRetryableConflict } from "@/lib/db/errors";

const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;

/**
 * Rows per statement. Each batch is one short autocommit statement (tens of
 * milliseconds), so ingestion never waits long on a row lock and no
 * transaction holds back vacuum; large enough that the round trip and commit
 * are a small part of each.
 */
// Small steps with pauses between them (pauseRatio): at 5,000 rows a step and
// no pause, ingestion's p99 went from 65 to 99 ms while 5 million events were
// deleted; at 1,000 and a pause as long as each step, 72 to 79 ms (npm run
// bench:retention), at a third of the speed. On a busier 2-core host, a pause
// as long as the step still cost ingestion a fifth of its throughput (p99 48
// -> 55 ms, 184 s); three times as long, nothing measurable (1,159 -> 1,130
// requests/s, p99 53 -> 44 ms: the host's own noise), in 384 s.
export const DEFAULT_RETENTION_BATCH_SIZE = 1_000;

const MAX_CONFLICT_RETRIES = 3;
const DEFAULT_PAUSE_RATIO = 3;

/** How long one POST /api/cron/retention deletes before answering (under the route's 60 s maxDuration). */
export const CRON_RETENTION_BUDGET_MS = 40_000;

export type RetentionOptions = {
  /** Days to keep; default RETENTION_DAYS. 0: events and their counts are kept forever. */
  days?: number;
  /** The clock (tests). */
  now?: Date;
  batchSize?: number;
  /**
   * After each step that deleted rows, a pause this many times as long as
   * the step took (default 3): retention takes at most a quarter of the
   * database time it could, and the work it competes with (ingestion's, for
   * the CPU, the WAL and the disk) keeps the rest. 0: no pause (tests, an
   * offline cleanup).
   */
  pauseRatio?: number;
  /**
   * Start no new batch after this many milliseconds (a serverless function
   * has a deadline): the report says `complete: false` and the next run
   * continues where this one stopped.
   */
  budgetMs?: number;
};

export type RetentionDeleted = {
  events: number;
  /** Rows of issue_counts (per minute) wholly before the cut-off. */
  minuteCounts: number;
  /** Rows of issue_hours wholly before the cut-off. */
  hourCounts: number;
  /** Rows of issue_days wholly before the cut-off. */
  dayCounts: number;
  /** Idempotency keys past their 24 hours. */
  idempotencyKeys: number;
};

export type RetentionReport = {
  retentionDays: number;
  /** Events whose time (occurredAt) is before this were deleted; null when retention is off. */
  cutoff: string | null;
  deleted: RetentionDeleted;
  /** False when the time budget ran out first. */
  complete: boolean;
  durationMs: number;
  /** The pause after each step that deleted rows, as a multiple of the step's time. */
  pauseRatio: number;
  /** Of durationMs, the time spent pausing between steps (pauseRatio), leaving the database to other work. */
  pausedMs: number;
};

/**
 * Deletes what is older than the retention period, in bounded steps: events
 * whose time (`occurred_at`, the time issues, charts and windows count by) is
 * before now - days, the per-minute, per-hour and per-day counts of buckets wholly
 * before that, and idempotency keys past their life.
 *
 * What stays exact: an issue's totals (count, first and last seen) live on
 * its row and are never recomputed from events, so they do not change; a
 * window that starts at or after the cut-off reads only events, minutes and
 * hours and days that are kept. Issues themselves are kept, even when all their
 * events are gone.
 *
 * Each step deletes at most `batchSize` rows of one project in one
 * statement, walking the (project, occurred_at) index from the oldest with a
 * keyset, so no step rescans what earlier steps deleted. Ingestion only
 * inserts events; the count rows and idempotency keys it updates are taken
 * with SKIP LOCKED: retention never waits on ingestion (so it can't deadlock
 * with it), and a row skipped now goes in the next run.
 */
export async function runRetention(options: RetentionOptions = {}): Promise<RetentionReport> {
  const started = Date.now();
  const days = options.days ?? settings().retention.days;
  const now = options.now ?? new Date();
  const batchSize = options.batchSize ?? DEFAULT_RETENTION_BATCH_SIZE;
  const deadline = options.budgetMs === undefined ? Infinity : started + options.budgetMs;
  const deleted: RetentionDeleted = { events: 0, minuteCounts: 0, hourCounts: 0, dayCounts: 0, idempotencyKeys: 0 };
  const pauseRatio = options.pauseRatio ?? DEFAULT_PAUSE_RATIO;
  // Called before each step: pauses after the previous one (pauseRatio) if
  // it deleted anything (a step that found nothing, in a project with nothing
  // expired, was one index probe), then says whether the time budget allows
  // another.
  const deletedSoFar = () => deleted.events + deleted.minuteCounts + deleted.hourCounts + deleted.dayCounts + deleted.idempotencyKeys;
  let stepStarted = 0;
  let deletedBefore = 0;
  let pausedMs = 0;
  const nextStep = async () => {
    const pauseMs = stepStarted && deletedSoFar() > deletedBefore ? (Date.now() - stepStarted) * pauseRatio : 0;
    if (pauseMs >= 1) {
      const pauseStarted = Date.now();
      await new Promise((resolve) => setTimeout(resolve, pauseMs));
      pausedMs += Date.now() - pauseStarted;
    }
    if (Date.now() >= deadline) return false;
    stepStarted = Date.now();
    deletedBefore = deletedSoFar();
    return true;
  };

  let cutoff: Date | null = null;
  let complete = true;
  if (days > 0) {
    cutoff = new Date(now.getTime() - days * DAY_MS);
    const minuteCutoff = new Date(Math.floor(cutoff.getTime() / MINUTE_MS) * MINUTE_MS);
    const hourCutoff = new Date(Math.floor(cutoff.getTime() / HOUR_MS) * HOUR_MS);
    const dayCutoff = new Date(Math.floor(cutoff.getTime() / DAY_MS) * DAY_MS);
    const { rows: projects } = await dbPool().query<{ id: string }>("SELECT id FROM projects ORDER BY id");
    for (const { id } of projects) {
      complete &&= await deleteEvents(id, cutoff, batchSize, nextStep, deleted);
      complete &&= await deleteCounts("issue_counts", "minute", id, minuteCutoff, batchSize, nextStep, (n) => (deleted.minuteCounts += n));
      complete &&= await deleteCounts("issue_hours", "hour", id, hourCutoff, batchSize, nextStep, (n) => (deleted.hourCounts += n));
      complete &&= await deleteCounts("issue_days", "day", id, dayCutoff, batchSize, nextStep, (n) => (deleted.dayCounts += n));
      if (!complete) break;
    }
  }
  if (complete) complete = await deleteIdempotencyKeys(batchSize, nextStep, deleted);

  return { retentionDays: days, cutoff: cutoff?.toISOString() ?? null, deleted, complete, durationMs: Date.now() - started, pauseRatio, pausedMs };
}

type Batch = { deleted: number; taken: number; last_at: Date | null; last_id: string | null };

async function batch(sql: string, params: unknown[]): Promise<Batch> {
  for (let attempt = 0; ; attempt++) {
    try {
      return (await dbPool().query<Batch>(sql, params)).rows[0]!;
    } catch (error) {
      // A project deleted at the same moment can deadlock with a step: the
      // step is simply tried again.
      if (attempt >= MAX_CONFLICT_RETRIES || !isRetryableConflict(error)) throw error;
    }
  }
}

// One step: the next rows of one project in (occurred_at, id) order after
// the keyset position (a backward range scan of events_project_occurred_idx),
// then the DELETE of exactly those, by ctid (a TID scan: no second index
// lookup). Nothing updates events, so no row lock is taken first: a row
// deleted meanwhile (its project was) is skipped, and its ctid cannot be
// reused while this statement's snapshot lives. `taken` < limit: done.
const EVENTS_STEP = `
WITH doomed AS (
  SELECT ctid, occurred_at, id FROM events
  WHERE project_id = $1 AND occurred_at < $2 AND (occurred_at, id) > ($3::timestamptz, $4::uuid)
  ORDER BY occurred_at, id
  LIMIT $5
),
gone AS (DELETE FROM events WHERE ctid = ANY(ARRAY(SELECT ctid FROM doomed)) RETURNING 1),
last AS (SELECT occurred_at, id FROM doomed ORDER BY occurred_at DESC, id DESC LIMIT 1)
SELECT (SELECT count(*)::int FROM gone) AS deleted, (SELECT count(*)::int FROM doomed) AS taken,
       (SELECT occurred_at FROM last) AS last_at, (SELECT id::text FROM last) AS last_id`;

// Events stored before event times existed have none until `npm run
// db:migrate` assigns it; their arrival time stands in. Normally none.
const UNTIMED_EVENTS_STEP = `
WITH doomed AS (
  SELECT ctid FROM events WHERE project_id = $1 AND occurred_at IS NULL AND received_at < $2
  LIMIT $3
),
gone AS (DELETE FROM events WHERE ctid = ANY(ARRAY(SELECT ctid FROM doomed)) RETURNING 1)
SELECT (SELECT count(*)::int FROM gone) AS deleted, (SELECT count(*)::int FROM doomed) AS taken, NULL AS last_at, NULL AS last_id`;

async function deleteEvents(projectId: string, cutoff: Date, limit: number, nextStep: () => Promise<boolean>, deleted: RetentionDeleted): Promise<boolean> {
  let after: { at: Date | "-infinity"; id: string } = { at: "-infinity", id: "00000000-0000-0000-0000-000000000000" };
  for (;;) {
    if (!(await nextStep())) return false;
    const step = await batch(EVENTS_STEP, [projectId, cutoff, after.at, after.id, limit]);
    deleted.events += step.deleted;
    if (step.taken < limit) break;
    after = { at: step.last_at!, id: step.last_id! };
  }
  for (;;) {
    if (!(await nextStep())) return false;
    const step = await batch(UNTIMED_EVENTS_STEP, [projectId, cutoff, limit]);
    deleted.events += step.deleted;
    if (step.taken < limit) return true;
  }
}

/**
 * Count rows of one project whose bucket starts before `before` (a whole
 * minute, hour or day: the bucket that holds the cut-off stays). The keyset is
 * the bucket time; `>=` because a step may stop in the middle of one bucket's
 * rows (one per issue and level).
 */
async function deleteCounts(
  table: "issue_counts" | "issue_hours" | "issue_days",
  column: "minute" | "hour" | "day",
  projectId: string,
  before: Date,
  limit: number,
  nextStep: () => Promise<boolean>,
  add: (n: number) => void,
): Promise<boolean> {
  const sql = `
WITH doomed AS (
  SELECT ctid, ${column} AS at FROM ${table}
  WHERE project_id = $1 AND ${column} < $2 AND ${column} >= $3
  ORDER BY ${column}
  LIMIT $4
  FOR UPDATE SKIP LOCKED
),
gone AS (DELETE FROM ${table} WHERE ctid = ANY(ARRAY(SELECT ctid FROM doomed)) RETURNING 1)
SELECT (SELECT count(*)::int FROM gone) AS deleted, (SELECT count(*)::int FROM doomed) AS taken,
       (SELECT max(at) FROM doomed) AS last_at, NULL AS last_id`;
  let from: Date | "-infinity" = "-infinity";
  for (;;) {
    if (!(await nextStep())) return false;
    const step = await batch(sql, [projectId, before, from, limit]);
    add(step.deleted);
    if (step.taken < limit) return true;
    from = step.last_at!;
  }
}

// `interval '24 hours'` by the database's clock: the life lib/events/store.ts
// gives a claim (after it, a retry with the same key is stored anew).
const IDEMPOTENCY_STEP = `
WITH doomed AS (
  SELECT ctid, created_at FROM idempotency_keys
  WHERE created_at < now() - interval '24 hours' AND created_at >= $1
  ORDER BY created_at
  LIMIT $2
  FOR UPDATE SKIP LOCKED
),
gone AS (DELETE FROM idempotency_keys WHERE ctid = ANY(ARRAY(SELECT ctid FROM doomed)) RETURNING 1)
SELECT (SELECT count(*)::int FROM gone) AS deleted, (SELECT count(*)::int FROM doomed) AS taken,
       (SELECT max(created_at) FROM doomed) AS last_at, NULL AS last_id`;

async function deleteIdempotencyKeys(limit: number, nextStep: () => Promise<boolean>, deleted: RetentionDeleted): Promise<boolean> {
  let from: Date | "-infinity" = "-infinity";
  for (;;) {
    if (!(await nextStep())) return false;
    const step = await batch(IDEMPOTENCY_STEP, [from, limit]);
    deleted.idempotencyKeys += step.deleted;
    if (step.taken < limit) return true;
    from = step.last_at!;
  }
}
