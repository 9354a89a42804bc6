import { sql } from "kysely";
import { retryingConflicts } from "@/lib/db/errors";
import { sqlDb } from "@/lib/db/sql";

/** The count tables retention trims, and the column of their bucket: a minute, an hour, a day. */
export const COUNT_BUCKETS = {
  minute: { table: "issue_counts", column: "minute" },
  hour: { table: "issue_hours", column: "hour" },
  day: { table: "issue_days", column: "day" },
  tagHour: { table: "issue_tag_hours", column: "hour" },
  tagDay: { table: "issue_tag_days", column: "day" },
} as const;
export type CountBucket = keyof typeof COUNT_BUCKETS;

/**
 * One step of retention in one project's counts of one bucket size: at most
 * `limit` rows whose bucket starts before `before` (a whole minute, hour or
 * day: the bucket that holds the cut-off stays) and at or after `from` (the
 * keyset: `>=` because a step may stop in the middle of one bucket's rows, one
 * per issue and level, or per issue, tag and value). Ingestion (for the tag
 * counts, a fold) updates these rows: they are taken with SKIP LOCKED, so
 * retention never waits on it (nor deadlocks with it), and a row skipped now
 * goes in the next run. Answers the last bucket it took.
 */
export async function deleteExpiredCounts(
  bucket: CountBucket,
  projectId: string,
  before: Date,
  from: Date | "-infinity",
  limit: number,
): Promise<{ deleted: number; taken: number; lastAt: Date | null }> {
  // The five tables have project_id and a bucket column, named minute, hour or day.
  const table = COUNT_BUCKETS[bucket].table as "issue_counts";
  const column = COUNT_BUCKETS[bucket].column as "minute";
  const row = await sqlDb()
    .with("doomed", (db) =>
      db
        .selectFrom(table)
        .select((eb) => [sql<string>`ctid`.as("ctid"), eb.ref(column).as("at")])
        .where("project_id", "=", projectId)
        .where((eb) => eb.and([eb(eb.ref(column), "<", before), eb(eb.ref(column), ">=", sql<Date>`${from}::timestamptz`)]))
        .orderBy(column)
        .limit(limit)
        .forUpdate()
        .skipLocked(),
    )
    .with("gone", (db) =>
      db
        .deleteFrom(table)
        .where((eb) => eb(sql`ctid`, "=", eb.fn.any(sql<string[]>`ARRAY(${eb.selectFrom("doomed").select("ctid")})`)))
        .returning(sql<number>`1`.as("one")),
    )
    .selectNoFrom((eb) => [
      eb.selectFrom("gone").select(sql<number>`count(*)::int`.as("n")).$asScalar().as("deleted"),
      eb.selectFrom("doomed").select(sql<number>`count(*)::int`.as("n")).$asScalar().as("taken"),
      eb.selectFrom("doomed").select((eb) => eb.fn.max("at").as("at")).$asScalar().as("last_at"),
    ])
    .executeTakeFirstOrThrow();
  return { deleted: row.deleted, taken: row.taken, lastAt: row.last_at };
}

/**
 * A project's count rows of one bucket size whose bucket starts before
 * `before`, in steps of `limit` (the keyset is the bucket time); `nextStep`
 * as for deleteProjectEventsBefore. Rows a fold or ingestion holds are
 * skipped (deleteExpiredCounts).
 */
export async function deleteProjectCountsBefore(
  bucket: CountBucket,
  projectId: string,
  before: Date,
  limit: number,
  nextStep: () => Promise<boolean>,
  onDeleted: (n: number) => void,
): Promise<boolean> {
  let from: Date | "-infinity" = "-infinity";
  for (;;) {
    if (!(await nextStep())) return false;
    const step = await retryingConflicts(() => deleteExpiredCounts(bucket, projectId, before, from, limit));
    onDeleted(step.deleted);
    if (step.taken < limit || !step.lastAt) return true;
    from = step.lastAt;
  }
}
