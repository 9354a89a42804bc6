import { Prisma } from "@/lib/db/client";

/**
 * SQL for the time of a project's latest event (null when it has none), for
 * the project given by `projectId` (a column or a value): one probe of the
 * events' (project, occurred_at) index. Equal to the latest last_seen of the
 * project's issues, which is read instead when retention has deleted every
 * event (issues keep their last_seen). Not read from issues first: an index
 * on issues.last_seen would cost every ingest its HOT updates
 * (prisma/migrations/20261126073000_issues_hot_updates).
 */
export function lastEventAtSql(projectId: Prisma.Sql): Prisma.Sql {
  return Prisma.sql`coalesce(
    (SELECT e.occurred_at FROM events e WHERE e.project_id = ${projectId} AND e.occurred_at IS NOT NULL ORDER BY e.occurred_at DESC LIMIT 1),
    (SELECT max(i.last_seen) FROM issues i WHERE i.project_id = ${projectId}))`;
}
