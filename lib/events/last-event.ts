import { expressionBuilder, sql, type Expression } from "kysely";
import type { DB } from "@/lib/db/sql";

/**
 * Scalar subquery: the time of a project's latest stored event (null when it
 * has none), for the project given by `projectId` (a column or a value): one
 * probe of the events' (project, occurred_at) index. lastEventAt
 * (lib/issues/last-event.ts) falls back on the issues when retention has
 * deleted every event.
 */
export function newestEventAt(projectId: Expression<string>) {
  const eb = expressionBuilder<DB, never>();
  return eb
    .selectFrom("events as e")
    .select("e.occurred_at")
    .where("e.project_id", "=", projectId)
    .where("e.occurred_at", "is not", null)
    .orderBy("e.occurred_at", "desc")
    .limit(sql.lit(1))
    .$asScalar();
}
