/**
 * Typed reads of the tag counts kept at ingest (issue_tag_hours,
 * issue_tag_days; added from the backlog by tag-backlog.ts): per issue,
 * key and value, exact for whole hours or days.
 */
import { sql } from "kysely";
import { sqlDb } from "@/lib/db/sql";
import { textArray, uuidArray } from "@/lib/db/sql-values";
import { tagProbeRows, type TagProbe } from "@/lib/events/tag-probes";
import { settleTagCounts } from "@/lib/issues/tag-backlog";

export type TagValueCount = {
  issueId: string;
  key: string;
  value: string;
  /** Events with it from `split` on, and in [from, split). */
  count: number;
  previousCount: number;
  /** The first hour or day from `split` on that holds it (null: none). */
  firstUnit: Date | null;
};

/**
 * Tag value counts of `issueIds` in [split, now] and [from, split), both
 * whole hours (`unit` "hour") or whole days ("day"): one primary-key range
 * per issue. Values past the per-bucket bound (counted under "") and the
 * keys in `skipKeys` are left out.
 */
export async function tagValueCounts(options: {
  projectIds: string[];
  issueIds: string[];
  unit: "hour" | "day";
  from: Date;
  split: Date;
  skipKeys: string[];
}): Promise<TagValueCount[]> {
  const { projectIds, issueIds, unit, from, split, skipKeys } = options;
  if (issueIds.length === 0 || projectIds.length === 0) return [];
  await settleTagCounts();
  // The two tables have the same shape but for the bucket column's name.
  const table = (unit === "hour" ? "issue_tag_hours" : "issue_tag_days") as "issue_tag_hours";
  const at = unit as "hour";
  const rows = await sqlDb()
    .selectFrom(table)
    .select([
      sql<string>`issue_id::text`.as("issue_id"),
      "key",
      "value",
      sql<string>`coalesce(sum(count) FILTER (WHERE ${sql.ref(at)} >= ${split}), 0)::bigint`.as("n"),
      sql<string>`coalesce(sum(count) FILTER (WHERE ${sql.ref(at)} < ${split}), 0)::bigint`.as("previous_n"),
      sql<number | null>`(extract(epoch FROM min(${sql.ref(at)}) FILTER (WHERE ${sql.ref(at)} >= ${split} AND count > 0)) * 1000)::float8`.as("first_unit"),
    ])
    .where("issue_id", "=", (eb) => eb.fn.any(uuidArray(issueIds)))
    .where("project_id", "=", (eb) => eb.fn.any(textArray(projectIds)))
    .where(at, ">=", from)
    .where("value", "<>", "")
    .$if(skipKeys.length > 0, (q) => q.where(sql<boolean>`NOT (key = ANY(${textArray(skipKeys)}))`))
    .groupBy(["issue_id", "key", "value"])
    .execute();
  return rows.map((r) => ({
    issueId: r.issue_id,
    key: r.key,
    value: r.value,
    count: Number(r.n),
    previousCount: Number(r.previous_n),
    firstUnit: r.first_unit === null ? null : new Date(r.first_unit),
  }));
}


/**
 * The first hour in [from, to) (a day the daily counts name) whose hourly
 * tag count holds each probe's key and value, so that looking up its first
 * event reads an hour of the issue's events, not a day. Null when none.
 */
export async function firstTagHours(probes: TagProbe[]): Promise<(Date | null)[]> {
  if (probes.length === 0) return [];
  await settleTagCounts();
  const rows = await sqlDb()
    .selectFrom(
      tagProbeRows(probes),
    )
    .select((eb) => [
      "q.n",
      eb
        .selectFrom("issue_tag_hours as t")
        .select(sql<number>`(extract(epoch FROM min(t.hour)) * 1000)::float8`.as("first"))
        .whereRef("t.issue_id", "=", "q.issue_id")
        .where("t.hour", ">=", eb.ref("q.from_at"))
        .where("t.hour", "<", eb.ref("q.to_at"))
        .whereRef("t.key", "=", "q.key")
        .whereRef("t.value", "=", "q.value")
        .where("t.count", ">", 0)
        .as("first"),
    ])
    .execute();
  const out: (Date | null)[] = probes.map(() => null);
  for (const r of rows) if (r.first !== null) out[r.n] = new Date(r.first);
  return out;
}
