import { sql, type QueryCreator } from "kysely";
import type { DB } from "@/lib/db/sql";
import type { EventLevel } from "@/lib/events/schema";

type TransitionedIssue = { id: string; project_id: string; level: EventLevel; created: boolean; regressed: boolean };

/**
 * The alert rules' notifications about the issues an ingest statement
 * created or reopened, written in the same transaction as the events (the
 * outbox). A project without rules costs one index probe per new or
 * reopened issue.
 */
export function queueIssueAlertsCte(qc: QueryCreator<DB & { issues_up: TransitionedIssue }>) {
  return qc
    .insertInto("alert_deliveries")
    .columns(["project_id", "rule_id", "kind", "issue_id"])
    .expression((eb) =>
      eb
        .selectFrom("issues_up as u")
        .innerJoin("alert_rules as r", (join) =>
          join
            .onRef("r.project_id", "=", "u.project_id")
            .on((eb) => eb(eb.ref("r.trigger"), "=", sql<"new_issue" | "regression">`(CASE WHEN ${eb.ref("u.created")} THEN 'new_issue' ELSE 'regression' END)::alert_trigger`))
            .onRef("u.level", "<=", "r.min_level"),
        )
        .where((eb) => eb.or([eb("u.created", "=", true), eb("u.regressed", "=", true)]))
        .select((eb) => ["u.project_id", "r.id", sql<"new_issue" | "regression">`${eb.ref("r.trigger")}::text::alert_delivery_kind`.as("kind"), "u.id"]),
    )
    .returning("alert_deliveries.project_id");
}

/** Projects of the statement's issues that have spike rules: their counts are checked after the commit. */
export function spikeProjectsCte(qc: QueryCreator<DB & { issues_up: TransitionedIssue }>) {
  return qc
    .selectFrom("alert_rules")
    .select("alert_rules.project_id")
    .distinct()
    .where("alert_rules.trigger", "=", "spike")
    .where("alert_rules.project_id", "in", (eb) => eb.selectFrom("issues_up").select("issues_up.project_id"));
}
