import { expressionBuilder, type Expression } from "kysely";
import type { DB } from "@/lib/db/sql";

/**
 * Subquery: the version of the project's release numbered `seq` (an issue's
 * first or last release). Two releases first seen by concurrent requests
 * may share a number; the earlier seen, then the lower name, is given.
 */
export function releaseVersionOf(projectId: Expression<string>, seq: Expression<number | null>) {
  const eb = expressionBuilder<DB, never>();
  return eb
    .selectFrom("releases as r")
    .select("r.version")
    .where("r.project_id", "=", projectId)
    .where("r.seq", "=", seq)
    .orderBy("r.first_seen")
    .orderBy("r.version")
    .limit(1)
    .$asScalar();
}
