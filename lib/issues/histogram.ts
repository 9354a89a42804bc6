import { sql } from "kysely";
import { sqlDb } from "@/lib/db/sql";
import type { EventFilters } from "@/lib/events/filters";
import { eventBucketCounts } from "@/lib/events/bucket-scan";
import { assertSupportedTimes } from "@/lib/events/list";
import type { EventLevel } from "@/lib/events/schema";
import { errors } from "@/lib/http/errors";
import { bucketCounts } from "@/lib/issues/bucket-counts";
import type { ProjectAccess } from "@/lib/auth/access";

export type HistogramBucket = { bucket: string; error: number; warn: number; info: number };

const BUCKET_SIZES_MS = [60_000, 5 * 60_000, 15 * 60_000, 3_600_000, 6 * 3_600_000, 86_400_000, 7 * 86_400_000];
const MAX_BUCKETS = 120;

const HOUR_MS = 3_600_000;
// From this range up, buckets are whole hours and come from the hourly
// counts: a day in minutes is thousands of rows per busy project, in hours
// a few hundred (docs/performance.md#figures-behind-the-code).
const HOURLY_FROM_MS = 12 * HOUR_MS;

/**
 * The smallest bucket size that keeps a range under MAX_BUCKETS buckets, and
 * at least an hour for ranges of 12 hours or more (24 bars for a day).
 */
export function histogramBucketMs(rangeMs: number): number {
  const smallest = rangeMs >= HOURLY_FROM_MS ? HOUR_MS : 0;
  return BUCKET_SIZES_MS.find((size) => size >= smallest && rangeMs / size <= MAX_BUCKETS) ?? Math.ceil(rangeMs / 60_000 / MAX_BUCKETS) * 60_000;
}

export type HistogramFilters = Pick<EventFilters, "level" | "q" | "issueId"> & { since?: Date; until?: Date };

/**
 * Event counts per level in equal time buckets over [since, until) by the
 * events' time (default: the last 24 hours), empty buckets included, with
 * the same level, text and issue filters as the list beside it. Buckets are
 * whole, aligned to the unix epoch: the first one also counts what happened
 * in it before `since`. Without a text filter the counts come from the
 * hourly or per-minute issue counts, so a chart over days never scans events.
 */
export async function eventHistogram(access: ProjectAccess, filters: HistogramFilters = {}): Promise<HistogramBucket[]> {
  const end = filters.until ?? new Date();
  const start = filters.since ?? new Date(end.getTime() - 86_400_000);
  assertSupportedTimes({ since: start, until: end });
  if (start >= end) throw errors.validation([{ path: "until", message: "until must be after since." }]);

  const size = histogramBucketMs(end.getTime() - start.getTime());
  const first = Math.floor(start.getTime() / size) * size;
  const from = new Date(Math.floor(start.getTime() / 60_000) * 60_000);
  const levels = filters.level ?? [];
  type Row = { bucket_ms: string; level: EventLevel; n: string };
  let rows: Row[];
  if (filters.q) {
    rows = await eventBucketCounts(access, { ...filters, since: from, until: end }, size);
  } else {
    // From the hourly counts when buckets are whole hours, else the minutes.
    const counts = bucketCounts({
      projectIds: [access.projectId],
      issueIds: filters.issueId ? [filters.issueId] : undefined,
      levels,
      start: new Date(first),
      end,
      bucketMs: size,
    });
    rows = await sqlDb()
      .selectFrom(counts.as("c"))
      .select((eb) => [
        sql<string>`(${first}::bigint + ${eb.ref("c.b")}::bigint * ${size}::bigint)`.as("bucket_ms"),
        "c.level",
        eb.cast<string>(eb.fn.sum("c.n"), "bigint").as("n"),
      ])
      .groupBy(["bucket_ms", "c.level"])
      .execute();
  }

  const buckets = new Map<number, HistogramBucket>();
  for (let t = first; t < end.getTime(); t += size) buckets.set(t, { bucket: new Date(t).toISOString(), error: 0, warn: 0, info: 0 });
  for (const row of rows) {
    const bucket = buckets.get(Number(row.bucket_ms));
    if (bucket) bucket[row.level] += Number(row.n);
  }
  return [...buckets.values()];
}
