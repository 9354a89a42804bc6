import { grantsOfUser } from "@/lib/auth/memberships";
import { sqlDb } from "@/lib/db/sql";
import { lastEventAt } from "@/lib/issues/last-event";
import { eventCountSince, newIssueCountSince } from "@/lib/issues/totals";

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
  const rows = await sqlDb()
    .selectFrom(grantsOfUser(userId).as("m"))
    .select((eb) => {
      const projectId = eb.ref("m.project_id");
      return [
        "m.project_id",
        eventCountSince(projectId, since, "error").as("errors"),
        eventCountSince(projectId, since).as("events"),
        newIssueCountSince(projectId, since).as("new_issues"),
        lastEventAt(projectId).as("last_event"),
      ];
    })
    .execute();
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
