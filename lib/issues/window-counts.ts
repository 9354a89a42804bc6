import { sql, type SelectQueryBuilder } from "kysely";
import { settings } from "@/lib/config/settings";
import { sqlDb, type DB } from "@/lib/db/sql";
import { epochMs, inRanges, textArray, uuidArray, type Range } from "@/lib/db/sql-values";
import { eventCountsQuery, type PieceCountRow } from "@/lib/events/samples";
import type { EventLevel } from "@/lib/events/schema";

const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;

const ceilTo = (t: number, unit: number) => Math.ceil(t / unit) * unit;
const floorTo = (t: number, unit: number) => Math.floor(t / unit) * unit;

/** A range whose counts are added (1) or taken away (-1). */
export type Piece = Range & { sign: 1 | -1 };

export type WindowSplit = { days: Piece[]; hours: Piece[]; minutes: Piece[]; events: Piece[] };

export type SplitOptions = {
  /**
   * Units that start at or after this time (unix ms) still hold every event
   * they counted: retention deletes events, and the counts of units wholly
   * before its cut-off, so a unit it cut through counts events that are
   * gone. Only such intact units are read whole and their other part taken
   * away. Default: from RETENTION_DAYS (nothing older than that is intact).
   */
  intactSince?: number;
  /** No unit after this (unix ms) has rows yet: it costs nothing to read. Default: a minute from now. */
  dataUntil?: number;
};

/**
 * A window cut into the pieces each table counts exactly: whole days
 * (issue_days), whole hours at the edges of those days (issue_hours), whole
 * minutes at the edges of those hours (issue_counts), and the partial
 * minutes at the very edges (the events themselves). A 7-day window sums a
 * few rows per issue instead of hundreds, and never scans events beyond
 * partial minutes.
 *
 * An edge that fills most of its unit is read the other way: the whole unit,
 * less the part outside the window (16 hours of a day: the day's row less 8
 * hours of rows). The pieces, with their signs, count every instant of the
 * window exactly once and nothing outside it. Of the two ways, the one that
 * reads fewer rows is taken (the rows an issue has per unit, roughly).
 */
export function splitWindow(since: Date, until: Date | null, options: SplitOptions = {}): WindowSplit {
  const from = since.getTime();
  const to = until ? until.getTime() : Infinity;
  const context: SplitContext = {
    intactSince: options.intactSince ?? retentionHorizon(),
    dataUntil: options.dataUntil ?? Date.now() + MINUTE,
  };
  const out: WindowSplit = { days: [], hours: [], minutes: [], events: [] };
  if (from < to) cut({ from, to }, 0, 1, context, out);
  return out;
}

/** The earliest time whose events retention has certainly not touched. */
function retentionHorizon(): number {
  const days = settings().retention.days;
  return days > 0 ? Date.now() - days * DAY : -Infinity;
}

type SplitContext = { intactSince: number; dataUntil: number };

const UNITS = [
  { ms: DAY, table: "days" },
  { ms: HOUR, table: "hours" },
  { ms: MINUTE, table: "minutes" },
] as const;

// What reading a minute of events costs, in rows of a count table: a
// minute's row per issue holds all of that issue's events in the minute.
const EVENT_MINUTE_COST = 4;

/** The whole units of UNITS[level] inside `range` go to its table; each edge is cut within its unit. */
function cut(range: Range, level: number, sign: 1 | -1, context: SplitContext, out: WindowSplit): void {
  const unit = UNITS[level];
  if (!unit) {
    out.events.push({ ...range, sign });
    return;
  }
  const first = ceilTo(range.from, unit.ms);
  const last = Number.isFinite(range.to) ? floorTo(range.to, unit.ms) : Infinity;
  if (first < last) {
    out[unit.table].push({ from: first, to: last, sign });
    if (range.from < first) cutWithin({ from: range.from, to: first }, first - unit.ms, level, sign, context, out);
    if (last < range.to) cutWithin({ from: last, to: range.to }, last, level, sign, context, out);
  } else if (range.from < first && first < range.to) {
    // Across one boundary with no whole unit: each side within its own unit.
    cutWithin({ from: range.from, to: first }, first - unit.ms, level, sign, context, out);
    cutWithin({ from: first, to: range.to }, first, level, sign, context, out);
  } else {
    cutWithin(range, floorTo(range.from, unit.ms), level, sign, context, out);
  }
}

/** A finite range inside the unit of UNITS[level] that starts at `unitStart`: cut by the next unit, or the whole unit less the rest. */
function cutWithin(range: Range, unitStart: number, level: number, sign: 1 | -1, context: SplitContext, out: WindowSplit): void {
  const direct = emptySplit();
  cut(range, level + 1, sign, context, direct);
  const unitEnd = unitStart + UNITS[level]!.ms;
  if (unitStart < context.intactSince || unitEnd > context.dataUntil) {
    // A unit retention may have cut, or one still filling: read only what is inside.
    append(out, direct);
    return;
  }
  const whole = emptySplit();
  whole[UNITS[level]!.table].push({ from: unitStart, to: unitEnd, sign });
  const opposite = sign === 1 ? -1 : 1;
  if (unitStart < range.from) cut({ from: unitStart, to: range.from }, level + 1, opposite, context, whole);
  if (range.to < unitEnd) cut({ from: range.to, to: unitEnd }, level + 1, opposite, context, whole);
  append(out, cost(whole, context) < cost(direct, context) ? whole : direct);
}

const emptySplit = (): WindowSplit => ({ days: [], hours: [], minutes: [], events: [] });

function append(out: WindowSplit, pieces: WindowSplit): void {
  out.days.push(...pieces.days);
  out.hours.push(...pieces.hours);
  out.minutes.push(...pieces.minutes);
  out.events.push(...pieces.events);
}

/** Roughly the rows an issue has in the pieces: one per day, hour or minute, EVENT_MINUTE_COST per minute of events. */
function cost(split: WindowSplit, context: SplitContext): number {
  const units = (pieces: Piece[], ms: number) =>
    pieces.reduce((sum, p) => sum + Math.max(0, Math.min(p.to, context.dataUntil) - p.from) / ms, 0);
  return units(split.days, DAY) + units(split.hours, HOUR) + units(split.minutes, MINUTE) + units(split.events, MINUTE) * EVENT_MINUTE_COST;
}

type CountTable = "issue_days" | "issue_hours" | "issue_counts";
const TIME_COLUMN = { issue_days: "day", issue_hours: "hour", issue_counts: "minute" } as const;

function tableCounts(table: CountTable, ranges: Range[], sign: 1 | -1, projectIds: string[], issueIds?: string[]) {
  let query = sqlDb()
    .selectFrom(table)
    .select((eb) => ["issue_id", "level", (sign === 1 ? eb.ref("count") : eb.neg(eb.ref("count"))).as("n")])
    .where("project_id", "=", (eb) => eb.fn.any(textArray(projectIds)))
    .where((eb) => inRanges(eb, TIME_COLUMN[table], ranges));
  if (issueIds) query = query.where("issue_id", "=", (eb) => eb.fn.any(uuidArray(issueIds)));
  return query as SelectQueryBuilder<DB, CountTable, PieceCountRow>;
}

export type WindowOptions = { projectIds: string[]; since: Date; until: Date | null; issueIds?: string[]; split?: SplitOptions };

/**
 * Exact event counts per issue and level in [since, until) (until null: no
 * upper bound): rows (issue_id, level, n) from the pieces of splitWindow,
 * several per issue and level, for the caller to sum. A sum of 0 means no
 * events in the window (a piece taken away cancelled its rows). The rows
 * are not summed per table first, nor keyed by project: one aggregate over
 * uuid and enum keys does the work of two (docs/performance.md#reads). A
 * caller that needs the project joins the issues.
 */
export function windowCountsQuery({ projectIds, since, until, issueIds, split }: WindowOptions): SelectQueryBuilder<DB, CountTable, PieceCountRow> {
  const pieces = splitWindow(since, until, split);
  const parts: SelectQueryBuilder<DB, CountTable, PieceCountRow>[] = [];
  const tables: [CountTable, Piece[]][] = [
    ["issue_days", pieces.days],
    ["issue_hours", pieces.hours],
    ["issue_counts", pieces.minutes],
  ];
  for (const [table, all] of tables) {
    for (const sign of [1, -1] as const) {
      const ranges = all.filter((p) => p.sign === sign);
      if (ranges.length > 0) parts.push(tableCounts(table, ranges, sign, projectIds, issueIds));
    }
  }
  for (const sign of [1, -1] as const) {
    const ranges = pieces.events.filter((p) => p.sign === sign);
    if (ranges.length > 0) parts.push(eventCountsQuery({ projectIds, ranges, sign, issueIds }) as unknown as SelectQueryBuilder<DB, CountTable, PieceCountRow>);
  }
  // An empty window: no rows, of the right shape.
  if (parts.length === 0) {
    return sqlDb()
      .selectNoFrom([sql<string>`NULL::uuid`.as("issue_id"), sql<EventLevel>`NULL::event_level`.as("level"), sql<number>`0`.as("n")])
      .where(sql<boolean>`false`) as unknown as SelectQueryBuilder<DB, CountTable, PieceCountRow>;
  }
  return parts.slice(1).reduce((union, part) => union.unionAll(part), parts[0]!);
}

/** The counts of windowCountsQuery summed per issue and level (only those with events), as the CTE-ready rows (issue_id, level, n). */
export function windowSumsQuery(options: WindowOptions) {
  return sqlDb()
    .selectFrom(windowCountsQuery(options).as("p"))
    .select(["p.issue_id", "p.level", sql<string>`sum(p.n)::bigint`.as("n")])
    .groupBy(["p.issue_id", "p.level"])
    .having(sql`sum(p.n)`, ">", 0);
}

export type IssueWindowCount = { issueId: string; projectId: string; level: EventLevel; count: number };

/** The counts of windowCountsQuery, per issue and level, with the issue's project. */
export async function windowCountsByIssue(options: WindowOptions): Promise<IssueWindowCount[]> {
  if (options.projectIds.length === 0) return [];
  const rows = await sqlDb()
    .with("win", () => windowSumsQuery(options))
    .selectFrom("win")
    .innerJoin("issues as i", (join) => join.onRef("i.id", "=", "win.issue_id").on("i.project_id", "=", (eb) => eb.fn.any(textArray(options.projectIds))))
    .select(["win.issue_id", "i.project_id", "win.level", "win.n"])
    .execute();
  return rows.map((r) => ({ issueId: r.issue_id, projectId: r.project_id, level: r.level, count: Number(r.n) }));
}

export type BucketOptions = {
  projectIds: string[];
  issueIds?: string[];
  levels?: EventLevel[];
  /** The first bucket's start (a whole minute; a whole hour reads the hourly table when buckets are whole hours). */
  start: Date;
  /** Exclusive; null: no upper bound (events a client dated slightly ahead fall in buckets past the last). */
  end: Date | null;
  /** A whole number of minutes. */
  bucketMs: number;
};

/**
 * Counts per time bucket, issue and level (sparklines, charts, the shape of
 * a summary's issues): from the hourly table when buckets are whole hours
 * from a whole hour, else from the minutes. Rows (issue_id, level, b, n),
 * b the bucket's index from `start`; read through the tables' primary keys
 * when `issueIds` is given, else their (project, time) index.
 */
export function bucketCountsQuery(options: BucketOptions) {
  const hourly = options.bucketMs % HOUR === 0 && options.start.getTime() % HOUR === 0;
  const table: CountTable = hourly ? "issue_hours" : "issue_counts";
  const column = TIME_COLUMN[table];
  let query = sqlDb()
    .selectFrom(table)
    .select([
      "issue_id",
      "level",
      sql<number>`floor((extract(epoch FROM ${sql.ref(column)}) * 1000 - ${options.start.getTime()}) / ${options.bucketMs})::int`.as("b"),
      sql<string>`sum(count)::bigint`.as("n"),
    ])
    .where("project_id", "=", (eb) => eb.fn.any(textArray(options.projectIds)))
    .where((eb) => inRanges(eb, column, [{ from: options.start.getTime(), to: options.end ? options.end.getTime() : Infinity }]));
  if (options.issueIds) query = query.where("issue_id", "=", (eb) => eb.fn.any(uuidArray(options.issueIds!)));
  if (options.levels?.length) query = query.where("level", "=", (eb) => eb.fn.any(sql<EventLevel[]>`${sql.val(options.levels)}::event_level[]`));
  return query.groupBy(["issue_id", "level", "b"]);
}

/** Events per issue and UTC day from `from` (a day's start) on, for the given issues: one primary-key range per issue. */
export async function dailyCountsByIssue(options: { projectIds: string[]; issueIds: string[]; from: Date }): Promise<{ issueId: string; day: Date; count: number }[]> {
  if (options.issueIds.length === 0 || options.projectIds.length === 0) return [];
  const rows = await sqlDb()
    .selectFrom("issue_days")
    .select(["issue_id", epochMs("day").as("day"), sql<string>`sum(count)::bigint`.as("n")])
    .where("issue_id", "=", (eb) => eb.fn.any(uuidArray(options.issueIds)))
    .where("project_id", "=", (eb) => eb.fn.any(textArray(options.projectIds)))
    .where("day", ">=", options.from)
    .groupBy(["issue_id", "day"])
    .execute();
  return rows.map((r) => ({ issueId: r.issue_id, day: new Date(r.day), count: Number(r.n) }));
}
