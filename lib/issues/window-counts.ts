import { prisma, Prisma } from "@/lib/db/client";
import type { EventLevel } from "@/lib/events/schema";

const MINUTE = 60_000;

/** The first whole minute at or after `t`. */
export function ceilMinute(t: Date): Date {
  return new Date(Math.ceil(t.getTime() / MINUTE) * MINUTE);
}

/** The minute `t` falls in. */
export function floorMinute(t: Date): Date {
  return new Date(Math.floor(t.getTime() / MINUTE) * MINUTE);
}

export type IssueWindowCount = { issueId: string; projectId: string; level: EventLevel; count: number };

export type WindowOptions = { projectIds: string[]; since: Date; until: Date | null; issueIds?: string[] };

/**
 * SQL for exact event counts per issue and level in [since, until) (until
 * null: no upper bound), rows (issue_id, project_id, level, n): whole minutes
 * from the per-minute counts, the partial minutes at either edge from the
 * events themselves (a short range of the (project, time) index). Exact
 * whatever the window, and it never scans the window's events.
 */
export function windowCountsSql({ projectIds, since, until, issueIds }: WindowOptions): Prisma.Sql {
  const wholeFrom = ceilMinute(since);
  const wholeUntil = until ? floorMinute(until) : null;
  const onlyIssues = issueIds ? Prisma.sql`AND issue_id = ANY(${issueIds}::uuid[])` : Prisma.empty;

  // Edge pieces of [since, until) that are not whole minutes.
  const edges: Prisma.Sql[] = [];
  const wholeMinutes = !wholeUntil || wholeUntil > wholeFrom;
  if (!wholeMinutes) {
    edges.push(Prisma.sql`(occurred_at >= ${since} AND occurred_at < ${until})`);
  } else {
    if (wholeFrom > since) edges.push(Prisma.sql`(occurred_at >= ${since} AND occurred_at < ${wholeFrom})`);
    if (until && wholeUntil && until > wholeUntil) edges.push(Prisma.sql`(occurred_at >= ${wholeUntil} AND occurred_at < ${until})`);
  }
  const parts: Prisma.Sql[] = [];
  if (wholeMinutes) {
    parts.push(Prisma.sql`
      SELECT issue_id, project_id, level, sum(count)::bigint AS n FROM issue_counts
      WHERE project_id = ANY(${projectIds}::text[]) AND minute >= ${wholeFrom}
        ${wholeUntil ? Prisma.sql`AND minute < ${wholeUntil}` : Prisma.empty} ${onlyIssues}
      GROUP BY issue_id, project_id, level`);
  }
  if (edges.length > 0) {
    parts.push(Prisma.sql`
      SELECT issue_id, project_id, level, count(*)::bigint AS n FROM events
      WHERE project_id = ANY(${projectIds}::text[]) AND issue_id IS NOT NULL AND (${Prisma.join(edges, " OR ")}) ${onlyIssues}
      GROUP BY issue_id, project_id, level`);
  }
  return Prisma.sql`(${Prisma.join(parts, " UNION ALL ")})`;
}

/** The counts of windowCountsSql, per issue and level. */
export async function windowCountsByIssue(options: WindowOptions): Promise<IssueWindowCount[]> {
  if (options.projectIds.length === 0) return [];
  const rows = await prisma.$queryRaw<{ issue_id: string; project_id: string; level: EventLevel; n: bigint | number }[]>`
    SELECT issue_id::text, project_id, level::text AS level, sum(n)::bigint AS n
    FROM ${windowCountsSql(options)} AS p
    GROUP BY issue_id, project_id, level`;
  return rows.map((r) => ({ issueId: r.issue_id, projectId: r.project_id, level: r.level, count: Number(r.n) }));
}
