import { expressionBuilder, sql, type Expression, type SelectQueryBuilder, type SqlBool } from "kysely";
import { sqlDb, type DB } from "@/lib/db/sql";
import type { TagFilter } from "@/lib/events/filters";
import { issueEventTagSources } from "@/lib/events/tag-sources";
import { BUILT_IN_TAG_KEYS, eventTagPairs } from "@/lib/events/event-tags";
import { inRanges, type Range } from "@/lib/db/sql-values";
import { windowSumsQuery } from "@/lib/issues/window-counts";
import type { ProjectAccess } from "@/lib/auth/access";
import { settleTagCounts } from "@/lib/issues/tag-backlog";

/**
 * An issue's tag breakdown for any window, from the counts kept at ingest
 * (issue_tag_days for whole days, issue_tag_hours for whole hours) and, for
 * the parts of an hour at the window's edges, from the events themselves.
 */

const HOUR = 3_600_000;
const DAY = 86_400_000;

/** Values listed per key (the SPEC's top 10). */
export const TOP_TAG_VALUES = 10;
/** Keys listed per issue: the built-in ones first, then the event's own by how many events carry them. */
export const MAX_TAG_KEYS = 50;
/**
 * Events read per partial hour at a window's edge. Beyond this, the edge's
 * counts are its newest events' scaled to the edge's exact event count, and
 * the answer says it is not exact.
 */
export const MAX_EDGE_EVENTS = 2_000;

export type TagValueCount = { value: string; count: number; share: number };

export type TagBreakdown = {
  key: string;
  /** The most frequent values, most frequent first. */
  values: TagValueCount[];
  /** Events in the window with this tag. */
  total: number;
  /** Events with another value than those listed (including values past the bound kept per hour or day). */
  otherCount: number;
  /** Distinct values in the window. */
  distinctCount: number;
  /**
   * True when some hour of the window held more than
   * MAX_TAG_VALUES_PER_BUCKET distinct values: those past the bound are
   * counted but not named, and distinctCount is then a lower bound.
   */
  distinctCountEstimate: boolean;
};

export type IssueTagBreakdown = {
  tags: TagBreakdown[];
  /** False when an edge of the window held more than MAX_EDGE_EVENTS events and was estimated from a sample. */
  exact: boolean;
};

type TagWindowSplit = { days: Range[]; hours: Range[]; edges: Range[] };

const ceilTo = (t: number, unit: number) => Math.ceil(t / unit) * unit;
const floorTo = (t: number, unit: number) => Math.floor(t / unit) * unit;

/**
 * [from, to) (to Infinity: no upper bound) as whole days, whole hours and
 * the parts of an hour at its edges.
 */
export function splitTagWindow(from: number, to: number): TagWindowSplit {
  const out: TagWindowSplit = { days: [], hours: [], edges: [] };
  if (!(from < to)) return out;
  const firstHour = ceilTo(from, HOUR);
  const lastHour = Number.isFinite(to) ? floorTo(to, HOUR) : Infinity;
  if (firstHour >= lastHour) {
    out.edges.push({ from, to });
    return out;
  }
  if (from < firstHour) out.edges.push({ from, to: firstHour });
  if (lastHour < to) out.edges.push({ from: lastHour, to });
  const firstDay = ceilTo(firstHour, DAY);
  const lastDay = Number.isFinite(lastHour) ? floorTo(lastHour, DAY) : Infinity;
  if (firstDay < lastDay) {
    out.days.push({ from: firstDay, to: lastDay });
    if (firstHour < firstDay) out.hours.push({ from: firstHour, to: firstDay });
    if (lastDay < lastHour) out.hours.push({ from: lastDay, to: lastHour });
  } else {
    out.hours.push({ from: firstHour, to: lastHour });
  }
  return out;
}

type PairCount = { key: string; value: string; n: number };

/** The tag pairs of the issue's events in the window's edges, counted (scaled past MAX_EDGE_EVENTS). */
async function edgeCounts(access: ProjectAccess, issueId: string, edges: Range[]): Promise<{ counts: PairCount[]; exact: boolean }> {
  const counts = new Map<string, PairCount>();
  let exact = true;
  for (const edge of edges) {
    const range = { from: new Date(edge.from), to: new Date(edge.to) };
    const events = await issueEventTagSources(access, issueId, range, MAX_EDGE_EVENTS + 1);
    let scale = 1;
    if (events.length > MAX_EDGE_EVENTS) {
      events.length = MAX_EDGE_EVENTS;
      const total = await edgeEventCount(access, issueId, range);
      scale = total / MAX_EDGE_EVENTS;
      exact = false;
    }
    for (const event of events) {
      for (const [key, value] of eventTagPairs(event) ?? []) {
        const id = `${key}\u0000${value}`;
        const row = counts.get(id) ?? { key, value, n: 0 };
        row.n += scale;
        counts.set(id, row);
      }
    }
  }
  return { counts: [...counts.values()].map((r) => ({ ...r, n: Math.round(r.n) })), exact };
}

async function edgeEventCount(access: ProjectAccess, issueId: string, range: { from: Date; to: Date }): Promise<number> {
  const rows = await windowSumsQuery({ projectIds: [access.projectId], since: range.from, until: range.to, issueIds: [issueId] }).execute();
  return rows.reduce((sum, r) => sum + Number(r.n), 0);
}

type CountRow = { key: string; value: string; n: number };

/** The window's counted rows (key, value, n), several per pair, from the day and hour tables and the edges. */
function countedRows(access: ProjectAccess, issueId: string, split: TagWindowSplit, edges: PairCount[]) {
  const db = sqlDb();
  const parts: SelectQueryBuilder<DB, never, CountRow>[] = [];
  const tables = [
    ["issue_tag_days", "day", split.days],
    ["issue_tag_hours", "hour", split.hours],
  ] as const;
  for (const [table, column, ranges] of tables) {
    if (ranges.length === 0) continue;
    parts.push(
      db
        // The two tables have the same shape but for the bucket column's name.
        .selectFrom(table as "issue_tag_hours")
        .select(["key", "value", sql<number>`count`.as("n")])
        .where("issue_id", "=", issueId)
        .where("project_id", "=", access.projectId)
        .where((eb) => inRanges(eb, column, ranges)) as unknown as SelectQueryBuilder<DB, never, CountRow>,
    );
  }
  if (edges.length > 0) {
    parts.push(
      db
        .selectFrom(sql<CountRow>`jsonb_to_recordset(${JSON.stringify(edges)}::jsonb)`.as<"e">(sql`e(key text, value text, n int)`))
        .select(["e.key", "e.value", "e.n"]) as unknown as SelectQueryBuilder<DB, never, CountRow>,
    );
  }
  if (parts.length === 0) return null;
  return parts.slice(1).reduce((union, part) => union.unionAll(part), parts[0]!);
}

/**
 * The issue's tags in [since, until) (until null: no upper bound): per key
 * the top TOP_TAG_VALUES values with their counts and shares, the rest as
 * otherCount, and how many distinct values there were. Exact for any window
 * (see MAX_EDGE_EVENTS for the one exception, which the answer flags).
 * `level` comes from the issue's counts per level.
 */
export async function issueTagBreakdown(access: ProjectAccess, issueId: string, window: { since: Date; until: Date | null }): Promise<IssueTagBreakdown> {
  const split = splitTagWindow(window.since.getTime(), window.until ? window.until.getTime() : Infinity);
  await settleTagCounts();
  const [edges, levels] = await Promise.all([
    edgeCounts(access, issueId, split.edges),
    windowSumsQuery({ projectIds: [access.projectId], since: window.since, until: window.until, issueIds: [issueId] }).execute(),
  ]);
  const counted = countedRows(access, issueId, split, edges.counts);
  const rows = counted
    ? await sqlDb()
        .with("summed", (db) =>
          db
            .selectFrom(counted.as("c"))
            .select(["c.key", "c.value", sql<string>`sum(c.n)::bigint`.as("n")])
            .groupBy(["c.key", "c.value"]),
        )
        .with("ranked", (db) =>
          db.selectFrom("summed as s").select([
            "s.key",
            "s.value",
            "s.n",
            // The overflow row ("") after every named value.
            sql<number>`row_number() OVER (PARTITION BY s.key ORDER BY (s.value = ''), s.n DESC, s.value)`.as("rank"),
            sql<string>`sum(s.n) OVER (PARTITION BY s.key)`.as("total"),
            sql<string>`count(*) FILTER (WHERE s.value <> '') OVER (PARTITION BY s.key)`.as("distinct_values"),
            sql<boolean>`bool_or(s.value = '') OVER (PARTITION BY s.key)`.as("overflow"),
          ]),
        )
        .selectFrom("ranked")
        .selectAll()
        .where((eb) => eb.or([eb("rank", "<=", TOP_TAG_VALUES), eb("value", "=", "")]))
        .execute()
    : [];

  const byKey = new Map<string, TagBreakdown>();
  for (const row of rows) {
    let tag = byKey.get(row.key);
    if (!tag) {
      tag = { key: row.key, values: [], total: Number(row.total), otherCount: 0, distinctCount: Number(row.distinct_values), distinctCountEstimate: row.overflow };
      byKey.set(row.key, tag);
    }
    if (row.value !== "") tag.values.push({ value: row.value, count: Number(row.n), share: 0 });
  }
  const levelCounts = levels.map((l) => ({ value: l.level as string, count: Number(l.n), share: 0 }));
  if (levelCounts.length > 0) {
    byKey.set("level", {
      key: "level",
      values: levelCounts,
      total: levelCounts.reduce((sum, v) => sum + v.count, 0),
      otherCount: 0,
      distinctCount: levelCounts.length,
      distinctCountEstimate: false,
    });
  }
  const builtIn = new Map<string, number>(BUILT_IN_TAG_KEYS.map((key, i) => [key, i]));
  const tags = [...byKey.values()]
    .sort((a, b) => (builtIn.get(a.key) ?? Infinity) - (builtIn.get(b.key) ?? Infinity) || b.total - a.total || (a.key < b.key ? -1 : 1))
    .slice(0, MAX_TAG_KEYS);
  for (const tag of tags) {
    tag.values.sort((a, b) => b.count - a.count || (a.value < b.value ? -1 : 1));
    tag.values = tag.values.slice(0, TOP_TAG_VALUES);
    for (const v of tag.values) v.share = tag.total > 0 ? Math.round((v.count / tag.total) * 10_000) / 10_000 : 0;
    tag.otherCount = tag.total - tag.values.reduce((sum, v) => sum + v.count, 0);
  }
  return { tags, exact: edges.exact };
}

/**
 * Condition on an issue id (the list's filters): the issue had an event
 * with this tag in the hours or days that [since, until) touches. Read
 * from the kept counts, so to the hour at the window's edges, and a value
 * past the bound of MAX_TAG_VALUES_PER_BUCKET kept per hour is not found in
 * that hour (nor in its day, which keeps what its hours kept).
 */
export function issueHasTag(
  issueId: Expression<string>,
  projectId: string,
  tag: TagFilter,
  window: { since: Date; until: Date | null },
): Expression<SqlBool> {
  const from = floorTo(window.since.getTime(), HOUR);
  const to = window.until ? ceilTo(window.until.getTime(), HOUR) : Infinity;
  const firstDay = ceilTo(from, DAY);
  const lastDay = Number.isFinite(to) ? floorTo(to, DAY) : Infinity;
  const days: Range[] = [];
  const hours: Range[] = [];
  if (firstDay < lastDay) {
    days.push({ from: firstDay, to: lastDay });
    if (from < firstDay) hours.push({ from, to: firstDay });
    if (lastDay < to) hours.push({ from: lastDay, to });
  } else {
    hours.push({ from, to });
  }
  const eb = expressionBuilder<DB, never>();
  const tables = [
    ["issue_tag_days", "day", days],
    ["issue_tag_hours", "hour", hours],
  ] as const;
  const conditions = tables
    .filter(([, , ranges]) => ranges.length > 0)
    .map(([table, column, ranges]) =>
      eb.exists(
        // The two tables have the same shape but for the bucket column's name.
        eb
          .selectFrom(table as "issue_tag_hours")
          .select(sql.lit(1).as("one"))
          .where("issue_id", "=", issueId)
          .where("project_id", "=", projectId)
          .where("key", "=", tag.key)
          .where("value", "=", tag.value)
          .where((eb) => inRanges(eb, column, ranges)),
      ),
    );
  return eb.or(conditions);
}
