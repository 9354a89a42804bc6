import { expressionBuilder, type Expression } from "kysely";
import type { DB } from "@/lib/db/sql";

/**
 * Subquery: the last four characters of the project's active secret key
 * (the newest not revoked), for a LEFT JOIN LATERAL beside its project.
 * Reads api_keys for other modules (the Projects list); lib/keys/service.ts
 * has the rest.
 */
export function activeKeyLast4(projectId: Expression<string>) {
  return expressionBuilder<DB, never>()
    .selectFrom("api_keys")
    .select("last4")
    .where("project_id", "=", projectId)
    .where("revoked_at", "is", null)
    .where("kind", "=", "secret")
    .orderBy("created_at", "desc")
    .limit(1);
}
