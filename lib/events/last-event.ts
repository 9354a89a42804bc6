import { expressionBuilder, sql, type Expression } from "kysely";
import type { DB } from "@/lib/db/sql";
import { latestIssueSeen } from "@/lib/issues/totals";

/**
 * Expression: the time of a project's latest event (null when it has none),
 * for the project given by `projectId` (a column or a value): one probe of
 * the events' (project, occurred_at) index. Equal to the latest last_seen of
 * the project's issues, which is read instead when retention has deleted
 * every event (issues keep their last_seen). Not read from issues first: an
 * index on issues.last_seen would cost every ingest its HOT updates
 * (prisma/migrations/20261126073000_issues_hot_updates).
 */
export function lastEventAt(projectId: Expression<string>) {
  const eb = expressionBuilder<DB, never>();
  const newest = eb
    .selectFrom("events as e")
    .select("e.occurred_at")
    .where("e.project_id", "=", projectId)
    .where("e.occurred_at", "is not", null)
    .orderBy("e.occurred_at", "desc")
    .limit(sql.lit(1))
    .$asScalar();
  return eb.fn.coalesce(newest, latestIssueSeen(projectId));
}
