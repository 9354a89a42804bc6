import { sql } from "kysely";
import { sqlDb } from "@/lib/db/sql";

/** The count tables retention trims, by their bucket: a minute, an hour, a day. */
export const COUNT_BUCKETS = { minute: "issue_counts", hour: "issue_hours", day: "issue_days" } as const;
export type CountBucket = keyof typeof COUNT_BUCKETS;

/**
 * One step of retention in one project's counts of one bucket size: at most
 * `limit` rows whose bucket starts before `before` (a whole minute, hour or
 * day: the bucket that holds the cut-off stays) and at or after `from` (the
 * keyset: `>=` because a step may stop in the middle of one bucket's rows, one
 * per issue and level). Ingestion updates these rows: they are taken with
 * SKIP LOCKED, so retention never waits on it (nor deadlocks with it), and a
 * row skipped now goes in the next run. Answers the last bucket it took.
 */
export async function deleteExpiredCounts(
  bucket: CountBucket,
  projectId: string,
  before: Date,
  from: Date | "-infinity",
  limit: number,
): Promise<{ deleted: number; taken: number; lastAt: Date | null }> {
  const table = COUNT_BUCKETS[bucket];
  const row = await sqlDb()
    .with("doomed", (db) =>
      db
        .selectFrom(table)
        .select((eb) => [sql<string>`ctid`.as("ctid"), eb.ref(bucket).as("at")])
        .where("project_id", "=", projectId)
        .where((eb) => eb.and([eb(eb.ref(bucket), "<", before), eb(eb.ref(bucket), ">=", sql<Date>`${from}::timestamptz`)]))
        .orderBy(bucket)
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
