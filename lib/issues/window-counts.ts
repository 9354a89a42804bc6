import { prisma, Prisma } from "@/lib/db/client";
import type { EventLevel } from "@/lib/events/schema";

const MINUTE = 60_000;
const HOUR = 3_600_000;

const ceilTo = (t: number, unit: number) => Math.ceil(t / unit) * unit;
const floorTo = (t: number, unit: number) => Math.floor(t / unit) * unit;

/** The minute `t` falls in. */
export function floorMinute(t: Date): Date {
  return new Date(floorTo(t.getTime(), MINUTE));
}

/** A half-open range [from, to) in unix ms; `to` Infinity: no upper bound. */
export type Range = { from: number; to: number };

/**
 * A window cut into the pieces each table counts exactly: whole hours
 * (issue_hours), whole minutes at the edges of those hours (issue_counts),
 * and the partial minutes at the very edges (the events themselves). The
 * pieces cover the window exactly once; long windows sum a few hundred hour
 * rows per issue instead of thousands of minute rows, and never scan events
 * beyond two partial minutes.
 */
export function splitWindow(since: Date, until: Date | null): { hours: Range[]; minutes: Range[]; events: Range[] } {
  const from = since.getTime();
  const to = until ? until.getTime() : Infinity;
  const out = { hours: [] as Range[], minutes: [] as Range[], events: [] as Range[] };
  if (!(from < to)) return out;
  const h0 = ceilTo(from, HOUR);
  const h1 = Number.isFinite(to) ? floorTo(to, HOUR) : Infinity;
  const fine: Range[] = [];
  if (h0 < h1) {
    out.hours.push({ from: h0, to: h1 });
    if (from < h0) fine.push({ from, to: h0 });
    if (h1 < to) fine.push({ from: h1, to });
  } else {
    fine.push({ from, to });
  }
  for (const range of fine) {
    const m0 = ceilTo(range.from, MINUTE);
    const m1 = Number.isFinite(range.to) ? floorTo(range.to, MINUTE) : Infinity;
    if (m0 < m1) {
      out.minutes.push({ from: m0, to: m1 });
      if (range.from < m0) out.events.push({ from: range.from, to: m0 });
      if (m1 < range.to) out.events.push({ from: m1, to: range.to });
    } else if (m0 === m1 && range.from < m0 && m0 < range.to) {
      // Two partial minutes with no whole one between: each read on its own, so
      // neither piece spans more than a minute of events.
      out.events.push({ from: range.from, to: m0 }, { from: m0, to: range.to });
    } else {
      out.events.push(range);
    }
  }
  return out;
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
  const { hours, minutes, events } = splitWindow(since, until);
  const onlyIssues = issueIds ? Prisma.sql`AND issue_id = ANY(${issueIds}::uuid[])` : Prisma.empty;
  const projects = Prisma.sql`project_id = ANY(${projectIds}::text[])`;
  const parts: Prisma.Sql[] = [];
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
