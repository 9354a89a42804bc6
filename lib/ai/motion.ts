/**
 * How things move inside a summary's window, from per-bucket counts: the
 * buckets (12 to 30 over the window, on whole UTC multiples so that the
 * count tables answer them exactly), whether a source is accelerating now
 * (the last part of the window against the rest), and whether a steady
 * source stopped (silent for longer than its usual gap). Pure functions;
 * lib/ai/load-facts.ts reads the counts.
 */
import type { Acceleration, Lifetime, Motion, ShapeGrid, Stop } from "@/lib/ai/facts";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/** Bucket lengths a reader can name ("per 5 minutes", "per 6 hours"). */
const BUCKET_LENGTHS = [1, 2, 5, 10, 15, 30].map((m) => m * MINUTE).concat([1, 2, 3, 6, 12].map((h) => h * HOUR), [1, 2, 7].map((d) => d * DAY));
/** Whole buckets in a window at most: with a partial one at each end, at most 30. */
const MAX_WHOLE_BUCKETS = 28;

/** The last part of the window that "accelerating now" looks at: this share of the buckets. */
const RECENT_SHARE = 0.25;
/** Accelerating: at least this many times the rate before, and this many events above it. */
export const ACCELERATION_FACTOR = 2;
export const ACCELERATION_MIN_EXTRA = 5;
/** A compounding run: each whole bucket at least this many times the one before, for this many steps. */
const COMPOUND_STEP = 1.6;
const COMPOUND_MIN_STEPS = 3;

/** A stop needs a source this busy: fewer events say nothing about a rate. */
export const STOP_MIN_EVENTS = 8;
/** Silent for this many usual gaps (and longer than any gap seen, and STOP_MIN_SILENCE_MS) is stopped. */
const STOP_GAPS = 4;
const STOP_MIN_SILENCE_MS = 10 * MINUTE;
/** Regular: its buckets hold events at least this share as often as events spread at random would fill them. */
const REGULAR_FILL = 0.6;
const REGULAR_MIN_BUCKETS = 4;

/** The buckets for [since, now]: the shortest named length that makes at most MAX_WHOLE_BUCKETS whole ones. */
export function shapeGrid(since: Date, now: Date): ShapeGrid {
  const from = since.getTime();
  const to = Math.max(now.getTime(), from + 1);
  // Lengths read to the whole minute: the dashboard's "last 7 days" pressed at 10:00:40 is 7 days long.
  const length = Math.max(MINUTE, Math.floor((to - from) / MINUTE) * MINUTE);
  const bucketMs = BUCKET_LENGTHS.find((b) => length / b <= MAX_WHOLE_BUCKETS) ?? BUCKET_LENGTHS.at(-1)!;
  const starts = [new Date(from)];
  for (let t = Math.ceil(from / bucketMs) * bucketMs; t < to; t += bucketMs) if (t > from) starts.push(new Date(t));
  return { bucketMs, starts };
}

/** The bucket of the grid that holds `t` (clamped to the grid). */
export function bucketOf(grid: ShapeGrid, t: number): number {
  let i = grid.starts.length - 1;
  while (i > 0 && grid.starts[i]!.getTime() > t) i--;
  return i;
}

/** Where bucket i ends: the next one's start, or now for the last. */
function bucketEnd(grid: ShapeGrid, i: number, now: number): number {
  return i + 1 < grid.starts.length ? grid.starts[i + 1]!.getTime() : now;
}

/**
 * Accelerating now: the last quarter of the buckets against the rest of the
 * window (from `activeFrom`, the source's first event when it started
 * inside the window), at least twice the rate and 5 events more than that
 * rate would give. A source that started within the last part is new, not
 * accelerating. Also says when the last whole buckets compound ("doubling
 * every hour since 04:00").
 */
export function accelerationOf(shape: number[], grid: ShapeGrid, now: Date, activeFrom: Date): Acceleration | null {
  const n = shape.length;
  if (n < 4) return null;
  const k = Math.max(1, Math.round(n * RECENT_SHARE));
  const recentFrom = grid.starts[n - k]!.getTime();
  const earlierFrom = Math.max(grid.starts[0]!.getTime(), activeFrom.getTime());
  const recentMs = now.getTime() - recentFrom;
  const earlierMs = recentFrom - earlierFrom;
  if (earlierMs <= 0 || recentMs <= 0) return null;
  const recentCount = sum(shape.slice(n - k));
  const earlierCount = sum(shape.slice(0, n - k));
  const expected = (earlierCount * recentMs) / earlierMs;
  if (recentCount < ACCELERATION_FACTOR * expected || recentCount - expected < ACCELERATION_MIN_EXTRA) return null;
  return {
    recentFrom: new Date(recentFrom),
    recentCount,
    earlierFrom: new Date(earlierFrom),
    earlierCount,
    compounding: compounding(shape, grid, now),
  };
}

/** The run of whole buckets at the end, each at least COMPOUND_STEP times the one before. */
function compounding(shape: number[], grid: ShapeGrid, now: Date): Acceleration["compounding"] {
  // Whole buckets only: the first starts at `since`, the last may have just begun.
  let last = shape.length - 1;
  if (bucketEnd(grid, last, now.getTime()) - grid.starts[last]!.getTime() < grid.bucketMs) last--;
  let first = last;
  while (first > 1 && shape[first - 1]! >= 1 && shape[first]! >= COMPOUND_STEP * shape[first - 1]!) first--;
  const steps = last - first;
  if (steps < COMPOUND_MIN_STEPS) return null;
  const factor = Math.pow(shape[last]! / shape[first]!, 1 / steps);
  return { factor: Math.round(factor * 10) / 10, everyMs: grid.bucketMs, since: grid.starts[first]! };
}

/**
 * A steady source that stopped: it sent at least STOP_MIN_EVENTS events at
 * a regular rate (its buckets up to its last event hold events about as
 * often as that many events spread over them would), and it has been silent
 * for longer than STOP_GAPS usual gaps, than any gap it showed, and than
 * STOP_MIN_SILENCE_MS. A source with no events in the window is judged by
 * the previous window's count alone: silent for the whole window.
 */
export function stopOf(input: {
  shape: number[] | null;
  grid: ShapeGrid;
  now: Date;
  lastAt: Date | null;
  /** Its first event, when it started inside the window. */
  activeFrom: Date;
  windowCount: number;
  previousCount: number;
}): Stop | null {
  const { shape, grid, now, lastAt, windowCount, previousCount } = input;
  if (!lastAt) return null;
  const since = grid.starts[0]!.getTime();
  const windowMs = now.getTime() - since;
  const silentMs = now.getTime() - lastAt.getTime();
  if (windowCount === 0) {
    if (previousCount < STOP_MIN_EVENTS || lastAt.getTime() >= since) return null;
    const usualGapMs = windowMs / previousCount;
    return silentMs > Math.max(STOP_GAPS * usualGapMs, STOP_MIN_SILENCE_MS) ? { lastAt, usualGapMs, silentMs } : null;
  }
  if (!shape) return null;
  const from = Math.max(since, input.activeFrom.getTime());
  const firstBucket = bucketOf(grid, from);
  const lastBucket = bucketOf(grid, lastAt.getTime());
  const buckets = shape.slice(firstBucket, lastBucket + 1);
  const count = sum(buckets);
  // The window before its first event here, at the previous window's rate, tells its gap too.
  const spanMs = lastAt.getTime() - from + (previousCount > 0 && from === since ? windowMs : 0);
  const events = count + (previousCount > 0 && from === since ? previousCount : 0);
  if (count < STOP_MIN_EVENTS || buckets.length < REGULAR_MIN_BUCKETS) return null;
  const filled = buckets.filter((c) => c > 0).length / buckets.length;
  const expectedFill = 1 - Math.exp(-count / buckets.length);
  if (filled < REGULAR_FILL * expectedFill) return null;
  const usualGapMs = spanMs / Math.max(1, events - 1);
  const longestGapMs = longestEmptyRun(buckets) * grid.bucketMs;
  return silentMs > Math.max(STOP_GAPS * usualGapMs, longestGapMs, STOP_MIN_SILENCE_MS) ? { lastAt, usualGapMs, silentMs } : null;
}

export function motionOf(input: Parameters<typeof stopOf>[0]): Motion {
  return {
    accelerating: input.shape ? accelerationOf(input.shape, input.grid, input.now, input.activeFrom) : null,
    stopped: stopOf(input),
  };
}

function longestEmptyRun(buckets: number[]): number {
  let longest = 0;
  let run = 0;
  for (const c of buckets) {
    run = c === 0 ? run + 1 : 0;
    longest = Math.max(longest, run);
  }
  return longest;
}

/** Days considered for a known issue's life: the last 14, today included. */
export const LIFETIME_DAYS = 14;

/** The first UTC day of the lifetime's look-back, for the daily counts read. */
export function lifetimeFrom(now: Date): Date {
  return new Date(Math.floor(now.getTime() / DAY) * DAY - (LIFETIME_DAYS - 1) * DAY);
}

/**
 * A known issue's life from its daily counts (days from lifetimeFrom(now)):
 * days active among the last 14 (or since its first day when younger), and
 * its usual events per day: those before today over the time from its first
 * event (or the look-back's start) to today, so a first day that began in
 * the evening does not halve it.
 */
export function lifetimeOf(firstSeen: Date, days: { day: Date; count: number }[], now: Date): Lifetime {
  const today = Math.floor(now.getTime() / DAY) * DAY;
  const lookBack = lifetimeFrom(now).getTime();
  const from = Math.max(lookBack, Math.floor(firstSeen.getTime() / DAY) * DAY);
  const considered = days.filter((d) => d.day.getTime() >= from && d.day.getTime() <= today);
  const beforeToday = sum(considered.filter((d) => d.day.getTime() < today).map((d) => d.count));
  const observedMs = today - Math.max(lookBack, firstSeen.getTime());
  return {
    firstSeen,
    daysActive: considered.filter((d) => d.count > 0).length,
    daysConsidered: (today - from) / DAY + 1,
    usualPerDay: observedMs >= HOUR ? (beforeToday * DAY) / observedMs : null,
  };
}

function sum(values: number[]): number {
  return values.reduce((a, b) => a + b, 0);
}
