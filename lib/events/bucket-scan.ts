import { sql } from "kysely";
import { sqlDb } from "@/lib/db/sql";
import type { EventFilters } from "@/lib/events/filters";
import { eventConditions } from "@/lib/events/list";
import type { EventLevel } from "@/lib/events/schema";
import type { ProjectAccess } from "@/lib/auth/access";

/**
 * The events that match `filters` (a text filter included), counted per
 * level in buckets of `bucketMs` aligned to the unix epoch, `bucket_ms`
 * their start: a scan of the matching events, for the histogram
 * (lib/issues/histogram.ts) when the issue counts cannot answer.
 */
export async function eventBucketCounts(access: ProjectAccess, filters: Pick<EventFilters, "level" | "q" | "issueId" | "since" | "until">, bucketMs: number): Promise<{ bucket_ms: string; level: EventLevel; n: string }[]> {
  return sqlDb()
    .selectFrom("events")
    .select((eb) => [
      sql<string>`(floor(extract(epoch FROM ${eb.ref("occurred_at")}) * 1000 / ${bucketMs}) * ${bucketMs})::bigint`.as("bucket_ms"),
      "level",
      eb.cast<string>(eb.fn.countAll(), "bigint").as("n"),
    ])
    .where((eb) => eb.and(eventConditions(eb, access, filters)))
    .groupBy(["bucket_ms", "level"])
    .execute();
}
