import { prisma, Prisma } from "@/lib/db/client";
import { assertSupportedTimes, timeBounds } from "@/lib/events/list";
import type { EventLevel } from "@/lib/events/schema";
import { errors } from "@/lib/http/errors";
import type { ProjectAccess } from "@/lib/projects/access";

export type HistogramBucket = { bucket: string; error: number; warn: number; info: number };

const BUCKET_SIZES_MS = [60_000, 5 * 60_000, 15 * 60_000, 3_600_000, 6 * 3_600_000, 86_400_000, 7 * 86_400_000];
const MAX_BUCKETS = 120;

/** The smallest bucket size that keeps a range under MAX_BUCKETS buckets. */
export function histogramBucketMs(rangeMs: number): number {
  return BUCKET_SIZES_MS.find((size) => rangeMs / size <= MAX_BUCKETS) ?? Math.ceil(rangeMs / MAX_BUCKETS);
}

/**
 * Event counts per level in equal time buckets over [since, until) by
 * receivedAt (default: the last 24 hours), empty buckets included. Buckets
 * are aligned to the unix epoch.
 */
export async function eventHistogram(access: ProjectAccess, { since, until }: { since?: Date; until?: Date } = {}): Promise<HistogramBucket[]> {
  const end = until ?? new Date();
  const start = since ?? new Date(end.getTime() - 86_400_000);
  assertSupportedTimes({ since: start, until: end });
  if (start >= end) throw errors.validation([{ path: "until", message: "until must be after since." }]);

  const size = histogramBucketMs(end.getTime() - start.getTime());
  const first = Math.floor(start.getTime() / size) * size;
  const rows = await prisma.$queryRaw<{ bucket_ms: bigint | number; level: EventLevel; n: bigint | number }[]>`
    SELECT (floor(extract(epoch FROM received_at) * 1000 / ${size}) * ${size})::bigint AS bucket_ms, level::text AS level, count(*)::bigint AS n
    FROM events
    WHERE project_id = ${access.projectId} AND ${Prisma.join(timeBounds(start, end), " AND ")}
    GROUP BY 1, 2`;

  const buckets = new Map<number, HistogramBucket>();
  for (let t = first; t < end.getTime(); t += size) buckets.set(t, { bucket: new Date(t).toISOString(), error: 0, warn: 0, info: 0 });
  for (const row of rows) {
    const bucket = buckets.get(Number(row.bucket_ms));
    if (bucket) bucket[row.level] = Number(row.n);
  }
  return [...buckets.values()];
}
