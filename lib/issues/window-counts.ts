import { prisma, Prisma } from "@/lib/db/client";
import type { EventLevel } from "@/lib/events/schema";

const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;

const ceilTo = (t: number, unit: number) => Math.ceil(t / unit) * unit;
const floorTo = (t: number, unit: number) => Math.floor(t / unit) * unit;

/** The minute `t` falls in. */
export function floorMinute(t: Date): Date {
  return new Date(floorTo(t.getTime(), MINUTE));
}

/** A half-open range [from, to) in unix ms; `to` Infinity: no upper bound. */
export type Range = { from: number; to: number };

/**
 * A window cut into the pieces each table counts exactly: whole days
 * (issue_days), whole hours at the edges of those days (issue_hours), whole
 * minutes at the edges of those hours (issue_counts), and the partial
 * minutes at the very edges (the events themselves). The pieces cover the
 * window exactly once; a 7-day window sums a few rows per issue instead of
 * hundreds, and never scans events beyond two partial minutes.
 */
export function splitWindow(since: Date, until: Date | null): { days: Range[]; hours: Range[]; minutes: Range[]; events: Range[] } {
  const from = since.getTime();
  const to = until ? until.getTime() : Infinity;
  const out = { days: [] as Range[], hours: [] as Range[], minutes: [] as Range[], events: [] as Range[] };
  if (from < to) cut({ from, to }, 0, out);
  return out;
}

const UNITS = [
  { ms: DAY, table: "days" },
  { ms: HOUR, table: "hours" },
  { ms: MINUTE, table: "minutes" },
] as const;

/** The whole units of UNITS[level] inside `range` go to its table; the edges are cut by the next smaller unit. */
function cut(range: Range, level: number, out: ReturnType<typeof splitWindow>): void {
  const unit = UNITS[level];
  if (!unit) {
    out.events.push(range);
    return;
  }
  const first = ceilTo(range.from, unit.ms);
  const last = Number.isFinite(range.to) ? floorTo(range.to, unit.ms) : Infinity;
  if (first < last) {
    out[unit.table].push({ from: first, to: last });
    if (range.from < first) cut({ from: range.from, to: first }, level + 1, out);
    if (last < range.to) cut({ from: last, to: range.to }, level + 1, out);
  } else if (unit.ms === MINUTE && first === last && range.from < first && first < range.to) {
    // Two partial minutes with no whole one between: each read on its own, so
    // neither piece spans more than a minute of events.
    out.events.push({ from: range.from, to: first }, { from: first, to: range.to });
  } else {
    cut(range, level + 1, out);
  }
}

function rangeSql(column: Prisma.Sql, ranges: Range[]): Prisma.Sql {
  return Prisma.join(
    ranges.map((r) =>
      Number.isFinite(r.to)
        ? Prisma.sql`(${column} >= ${new Date(r.from)} AND ${column} < ${new Date(r.to)})`
        : Prisma.sql`(${column} >= ${new Date(r.from)})`,
    ),
    " OR ",
  );
}

export type WindowOptions = { projectIds: string[]; since: Date; until: Date | null; issueIds?: string[] };

/**
 * SQL for exact event counts per issue and level in [since, until) (until
 * null: no upper bound), rows (issue_id, project_id, level, n), from the
 * pieces of splitWindow.
 */
export function windowCountsSql({ projectIds, since, until, issueIds }: WindowOptions): Prisma.Sql {
  const { days, hours, minutes, events } = splitWindow(since, until);
  const onlyIssues = issueIds ? Prisma.sql`AND issue_id = ANY(${issueIds}::uuid[])` : Prisma.empty;
  const projects = Prisma.sql`project_id = ANY(${projectIds}::text[])`;
  const parts: Prisma.Sql[] = [];
  if (days.length > 0) {
    parts.push(Prisma.sql`
      SELECT issue_id, project_id, level, sum(count)::bigint AS n FROM issue_days
      WHERE ${projects} AND (${rangeSql(Prisma.sql`day`, days)}) ${onlyIssues}
      GROUP BY issue_id, project_id, level`);
  }
  if (hours.length > 0) {
    parts.push(Prisma.sql`
      SELECT issue_id, project_id, level, sum(count)::bigint AS n FROM issue_hours
      WHERE ${projects} AND (${rangeSql(Prisma.sql`hour`, hours)}) ${onlyIssues}
      GROUP BY issue_id, project_id, level`);
  }
  if (minutes.length > 0) {
    parts.push(Prisma.sql`
      SELECT issue_id, project_id, level, sum(count)::bigint AS n FROM issue_counts
      WHERE ${projects} AND (${rangeSql(Prisma.sql`minute`, minutes)}) ${onlyIssues}
      GROUP BY issue_id, project_id, level`);
  }
  if (events.length > 0) {
    parts.push(Prisma.sql`
      SELECT issue_id, project_id, level, count(*)::bigint AS n FROM events
      WHERE ${projects} AND issue_id IS NOT NULL AND (${rangeSql(Prisma.sql`occurred_at`, events)}) ${onlyIssues}
      GROUP BY issue_id, project_id, level`);
  }
  // An empty window: no rows, of the right shape.
  if (parts.length === 0) parts.push(Prisma.sql`SELECT NULL::uuid AS issue_id, NULL::text AS project_id, NULL::event_level AS level, 0::bigint AS n WHERE false`);
  return Prisma.sql`(${Prisma.join(parts, " UNION ALL ")})`;
}

export type IssueWindowCount = { issueId: string; projectId: string; level: EventLevel; count: number };

/** The counts of windowCountsSql, per issue and level. */
export async function windowCountsByIssue(options: WindowOptions): Promise<IssueWindowCount[]> {
  if (options.projectIds.length === 0) return [];
  const rows = await prisma.$queryRaw<{ issue_id: string; project_id: string; level: EventLevel; n: bigint | number }[]>`
    SELECT issue_id::text, project_id, level::text AS level, sum(n)::bigint AS n
    FROM ${windowCountsSql(options)} AS p
    GROUP BY issue_id, project_id, level`;
  return rows.map((r) => ({ issueId: r.issue_id, projectId: r.project_id, level: r.level, count: Number(r.n) }));
}

/**
 * Counts per time bucket for some issues (sparklines, charts): from the
 * hourly table when buckets are whole hours, else from the minutes. Buckets
 * of `bucketMs` (a whole number of minutes) starting at `start` (a whole minute).
 */
export function bucketCountsSql(options: { projectIds: string[]; issueIds?: string[]; levels?: EventLevel[]; start: Date; end: Date; bucketMs: number }): Prisma.Sql {
  const hourly = options.bucketMs % HOUR === 0 && options.start.getTime() % HOUR === 0;
  const table = hourly ? Prisma.sql`issue_hours` : Prisma.sql`issue_counts`;
  const column = hourly ? Prisma.sql`hour` : Prisma.sql`minute`;
  const conditions: Prisma.Sql[] = [
    Prisma.sql`project_id = ANY(${options.projectIds}::text[])`,
    Prisma.sql`${column} >= ${options.start}`,
    Prisma.sql`${column} < ${options.end}`,
  ];
  if (options.issueIds) conditions.push(Prisma.sql`issue_id = ANY(${options.issueIds}::uuid[])`);
  if (options.levels?.length) conditions.push(Prisma.sql`level = ANY(${options.levels}::event_level[])`);
  return Prisma.sql`
    SELECT issue_id, level, floor((extract(epoch FROM ${column}) * 1000 - ${options.start.getTime()}) / ${options.bucketMs})::int AS b, sum(count)::bigint AS n
    FROM ${table} WHERE ${Prisma.join(conditions, " AND ")}
    GROUP BY issue_id, level, b`;
}
