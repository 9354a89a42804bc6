import type { Kysely } from "kysely";
import type { DB } from "@/lib/db/sql";

/**
 * Takes the project's row lock for the rest of the caller's transaction:
 * serializes member and alert-rule changes in one project. NO KEY UPDATE does
 * not block event inserts (their foreign-key check only takes KEY SHARE on
 * the project row). False when the project does not exist.
 */
export async function lockProject(trx: Kysely<DB>, projectId: string): Promise<boolean> {
  const row = await trx.selectFrom("projects").select("id").where("id", "=", projectId).forNoKeyUpdate().executeTakeFirst();
  return row !== undefined;
}
