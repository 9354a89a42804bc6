import { expressionBuilder, sql } from "kysely";
import type { DB } from "@/lib/db/sql";
import type { EventLevel } from "@/lib/events/schema";

const HOUR = 3_600_000;

export type BucketCountOptions = {
  projectIds: string[];
  issueIds?: string[];
  levels?: EventLevel[];
  /** A whole minute: bucket 0 starts here. */
  start: Date;
  end: Date;
  /** A whole number of minutes. */
  bucketMs: number;
};

/**
 * Subquery: counts per issue, level and time bucket (issue_id, level, b, n;
 * b numbers the buckets of `bucketMs` from `start`) for some issues
 * (sparklines, charts): from the hourly counts when buckets are whole hours,
 * else from the minutes.
 */
export function bucketCounts({ projectIds, issueIds, levels, start, end, bucketMs }: BucketCountOptions) {
  const hourly = bucketMs % HOUR === 0 && start.getTime() % HOUR === 0;
  return expressionBuilder<DB, never>()
    .selectFrom(hourly ? "issue_hours" : "issue_counts")
    .select((eb) => {
      const at = eb.ref(hourly ? "hour" : "minute");
      return [
        "issue_id",
        "level",
        sql<number>`floor((extract(epoch FROM ${at}) * 1000 - ${start.getTime()}) / ${bucketMs})::int`.as("b"),
        eb.cast<string>(eb.fn.sum("count"), "bigint").as("n"),
      ];
    })
    .where((eb) => {
      const at = eb.ref(hourly ? "hour" : "minute");
      const conditions = [eb("project_id", "=", eb.fn.any(eb.val(projectIds))), eb(at, ">=", start), eb(at, "<", end)];
      if (issueIds) conditions.push(eb("issue_id", "=", eb.fn.any(eb.val(issueIds))));
      if (levels?.length) conditions.push(eb("level", "=", eb.fn.any(eb.val(levels))));
      return eb.and(conditions);
    })
    .groupBy(["issue_id", "level", "b"]);
}
