import { prisma, Prisma } from "@/lib/db/client";
import { lastEventAtSql } from "@/lib/events/last-event";

/** One project's last 24 hours at a glance (the Overview page). */
export type ProjectHealth = {
  projectId: string;
  /** Error events in the last 24 hours (whole minutes). */
  errors24h: number;
  /** Events of any level in the last 24 hours (whole minutes). */
  events24h: number;
  /** Issues first seen in the last 24 hours. */
  newIssues24h: number;
  /** The latest event's time, null when there is none. */
  lastEventAt: string | null;
};

/**
 * The health line of each of the user's projects, from the issue aggregates
 * (no scan of events): one query whatever the number of events.
 */
export async function projectHealthForUser(userId: string, now = new Date()): Promise<Map<string, ProjectHealth>> {
  const since = new Date(Math.floor((now.getTime() - 86_400_000) / 60_000) * 60_000);
  const rows = await prisma.$queryRaw<{ project_id: string; errors: bigint; events: bigint; new_issues: bigint; last_event: Date | null }[]>`
    SELECT m.project_id,
      coalesce((SELECT sum(c.count) FILTER (WHERE c.level = 'error') FROM issue_counts c WHERE c.project_id = m.project_id AND c.minute >= ${since}), 0)::bigint AS errors,
      coalesce((SELECT sum(c.count) FROM issue_counts c WHERE c.project_id = m.project_id AND c.minute >= ${since}), 0)::bigint AS events,
      (SELECT count(*) FROM issues i WHERE i.project_id = m.project_id AND i.first_seen >= ${since})::bigint AS new_issues,
      ${lastEventAtSql(Prisma.sql`m.project_id`)} AS last_event
    FROM memberships m WHERE m.user_id = ${userId}`;
  return new Map(
    rows.map((r) => [
      r.project_id,
      {
        projectId: r.project_id,
        errors24h: Number(r.errors),
        events24h: Number(r.events),
        newIssues24h: Number(r.new_issues),
        lastEventAt: r.last_event ? new Date(r.last_event).toISOString() : null,
      },
    ]),
  );
}
