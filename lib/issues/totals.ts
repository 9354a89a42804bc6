import { expressionBuilder, type Expression } from "kysely";
import { sqlDb, type DB } from "@/lib/db/sql";
import type { EventLevel } from "@/lib/events/schema";
import type { ProjectAccess } from "@/lib/auth/access";

/**
 * Whether the project has received any event at all (the dashboard's
 * first-event help): every stored event belongs to an issue, and issues
 * outlive the events retention deletes.
 */
export async function projectHasEvents(access: ProjectAccess): Promise<boolean> {
  const row = await sqlDb().selectFrom("issues").select((eb) => eb.lit(1).as("one")).where("project_id", "=", access.projectId).limit(1).executeTakeFirst();
  return row !== undefined;
}

/**
 * Events received per project, for the given projects (the caller's own
 * list): the sum of their issues' totals, which retention leaves intact.
 */
export async function countEventsByProject(projectIds: string[]): Promise<Map<string, number>> {
  if (projectIds.length === 0) return new Map();
  const rows = await sqlDb()
    .selectFrom("issues")
    .select((eb) => ["project_id", eb.fn.sum<string>("count").as("n")])
    .where((eb) => eb("project_id", "=", eb.fn.any(eb.val(projectIds))))
    .groupBy("project_id")
    .execute();
  return new Map(rows.map((r) => [r.project_id, Number(r.n)]));
}

/**
 * Expression: the project's events since `since` (a whole minute), of one
 * level or all, from the per-minute counts: coalesce((SELECT sum ...), 0)::bigint.
 */
export function eventCountSince(projectId: Expression<string>, since: Date, level?: EventLevel) {
  const eb = expressionBuilder<DB, never>();
  const counted = eb
    .selectFrom("issue_counts as c")
    .select((eb) => {
      const sum = eb.fn.sum<string>("c.count");
      return (level ? sum.filterWhere("c.level", "=", level) : sum).as("n");
    })
    .where("c.project_id", "=", projectId)
    .where("c.minute", ">=", since);
  return eb.cast<string>(eb.fn.coalesce(counted.$asScalar(), eb.lit(0)), "bigint");
}

/** Expression: how many of the project's issues were first seen since `since`. */
export function newIssueCountSince(projectId: Expression<string>, since: Date) {
  const eb = expressionBuilder<DB, never>();
  const counted = eb
    .selectFrom("issues as i")
    .select((eb) => eb.fn.countAll<string>().as("n"))
    .where("i.project_id", "=", projectId)
    .where("i.first_seen", ">=", since);
  return eb.cast<string>(counted.$asScalar(), "bigint");
}

/**
 * Expression: the latest last_seen of the project's issues (null when it has
 * none): the time of its latest event, kept after retention deleted the events.
 */
export function latestIssueSeen(projectId: Expression<string>) {
  const eb = expressionBuilder<DB, never>();
  return eb
    .selectFrom("issues as i")
    .select((eb) => eb.fn.max("i.last_seen").as("last"))
    .where("i.project_id", "=", projectId)
    .$asScalar();
}
