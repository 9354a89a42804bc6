/**
 * The issues' part of a project's deletion, in the transaction that deletes
 * the project (lib/projects/service.ts): what the foreign keys' cascade
 * does not do by itself.
 */
import type { Kysely } from "kysely";
import type { DB } from "@/lib/db/sql";

/**
 * Before the project's row is deleted: its issues, locked in id order, the
 * order in which a tag fold locks them (lib/issues/tag-backlog.ts). The
 * cascade deletes them in another order, and could otherwise deadlock with a
 * fold holding some of them; this waits for such a fold instead.
 */
export async function lockProjectIssues(trx: Kysely<DB>, projectId: string): Promise<void> {
  await trx.selectFrom("issues").select("id").where("project_id", "=", projectId).orderBy("id").forUpdate().execute();
}

/**
 * After the project's row is deleted: its tag counts, which have no
 * foreign key to cascade through (the check per row cost folds a fifth of
 * their work). A fold that held the project's issues has committed by now
 * (the deletion waited for it), and this statement sees what it added; a
 * later fold finds no issue to add to and drops their backlog.
 */
export async function deleteProjectTagCounts(trx: Kysely<DB>, projectId: string): Promise<void> {
  await trx.deleteFrom("issue_tag_hours").where("project_id", "=", projectId).execute();
  await trx.deleteFrom("issue_tag_days").where("project_id", "=", projectId).execute();
}
