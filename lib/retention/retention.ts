import { settings } from "@/lib/config/settings";
import { deleteProjectEventsBefore } from "@/lib/events/retention";
import { purgeExpiredIdempotencyKeys } from "@/lib/ingest/idempotency";
import { deleteProjectCountsBefore } from "@/lib/issues/retention";
import { listProjectIds } from "@/lib/projects/service";

const DAY_MS = 86_400_000;
const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;

/**
 * Rows per statement. Each batch is one short autocommit statement, so
 * ingestion never waits long on a row lock and no transaction holds back
 * vacuum; large enough that the round trip and commit are a small part of
 * each. Small steps with pauses three times their length (pauseRatio) are
 * what ingestion did not notice (docs/performance.md#figures-behind-the-code).
 */
export const DEFAULT_RETENTION_BATCH_SIZE = 1_000;

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
  /** Rows of issue_tag_hours and issue_tag_days wholly before the cut-off. */
  tagHourCounts: number;
  tagDayCounts: number;
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
 * before now - days, the per-minute, per-hour and per-day counts and the
 * hourly and daily tag counts of buckets wholly before that, and idempotency
 * keys past their life.
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
 * inserts events; the count rows it updates are taken with SKIP LOCKED:
 * retention never waits on ingestion (so it can't deadlock with it), and a
 * row skipped now goes in the next run. The owners of the tables make the
 * steps (lib/events/retention.ts, lib/issues/retention.ts, and the
 * idempotency keys' purge in lib/ingest/idempotency.ts); this module paces them.
 */
export async function runRetention(options: RetentionOptions = {}): Promise<RetentionReport> {
  const started = Date.now();
  const days = options.days ?? settings().retention.days;
  const now = options.now ?? new Date();
  const batchSize = options.batchSize ?? DEFAULT_RETENTION_BATCH_SIZE;
  const deadline = options.budgetMs === undefined ? Infinity : started + options.budgetMs;
  const deleted: RetentionDeleted = { events: 0, minuteCounts: 0, hourCounts: 0, dayCounts: 0, tagHourCounts: 0, tagDayCounts: 0, idempotencyKeys: 0 };
  const pauseRatio = options.pauseRatio ?? DEFAULT_PAUSE_RATIO;
  // Called before each step: pauses after the previous one (pauseRatio) if
  // it deleted anything (a step that found nothing, in a project with nothing
  // expired, was one index probe), then says whether the time budget allows
  // another.
  const deletedSoFar = () => Object.values(deleted).reduce((a, b) => a + b, 0);
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
    for (const id of await listProjectIds()) {
      complete &&= await deleteProjectEventsBefore(id, cutoff, batchSize, nextStep, (n) => (deleted.events += n));
      complete &&= await deleteProjectCountsBefore("minute", id, minuteCutoff, batchSize, nextStep, (n) => (deleted.minuteCounts += n));
      complete &&= await deleteProjectCountsBefore("hour", id, hourCutoff, batchSize, nextStep, (n) => (deleted.hourCounts += n));
      complete &&= await deleteProjectCountsBefore("day", id, dayCutoff, batchSize, nextStep, (n) => (deleted.dayCounts += n));
      complete &&= await deleteProjectCountsBefore("tagHour", id, hourCutoff, batchSize, nextStep, (n) => (deleted.tagHourCounts += n));
      complete &&= await deleteProjectCountsBefore("tagDay", id, dayCutoff, batchSize, nextStep, (n) => (deleted.tagDayCounts += n));
      if (!complete) break;
    }
  }
  if (complete) complete = await deleteIdempotencyKeys(batchSize, nextStep, deleted);

  return { retentionDays: days, cutoff: cutoff?.toISOString() ?? null, deleted, complete, durationMs: Date.now() - started, pauseRatio, pausedMs };
}

/** Idempotency keys past their 24 hours, whatever RETENTION_DAYS says, in steps of their owner's purge. */
async function deleteIdempotencyKeys(limit: number, nextStep: () => Promise<boolean>, deleted: RetentionDeleted): Promise<boolean> {
  for (;;) {
    if (!(await nextStep())) return false;
    const n = await purgeExpiredIdempotencyKeys(limit);
    deleted.idempotencyKeys += n;
    if (n < limit) return true;
  }
}
