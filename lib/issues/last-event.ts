import { expressionBuilder, sql, type Expression } from "kysely";
import { sqlDb, type DB } from "@/lib/db/sql";
import { textArray } from "@/lib/db/sql-values";
import { newestEventAt } from "@/lib/events/last-event";
import { latestIssueSeen } from "@/lib/issues/totals";

/**
 * Expression: the time of a project's latest event (null when it has none),
 * for the project given by `projectId` (a column or a value): one probe of
 * the events' (project, occurred_at) index (newestEventAt). Equal to the
 * latest last_seen of the project's issues, which is read instead when
 * retention has deleted every event (issues keep their last_seen). Not read from issues first: an
 * index on issues.last_seen would cost every ingest its HOT updates
 * (prisma/migrations/20261126073000_issues_hot_updates).
 */
export function lastEventAt(projectId: Expression<string>) {
  return expressionBuilder<DB, never>().fn.coalesce(newestEventAt(projectId), latestIssueSeen(projectId));
}

/** The time of each project's latest event (null when it has none), as lastEventAt. */
export async function latestEventTimes(projectIds: string[]): Promise<Map<string, Date | null>> {
  if (projectIds.length === 0) return new Map();
  const rows = await sqlDb()
    .selectFrom(sql<{ id: string }>`unnest(${textArray(projectIds)})`.as<"p">(sql`p(id)`))
    .select((eb) => ["p.id", lastEventAt(eb.ref("p.id")).as("last")])
    .execute();
  return new Map(rows.map((r) => [r.id, r.last ? new Date(r.last) : null]));
}
