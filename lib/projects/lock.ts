import type { Kysely } from "kysely";
import type { Prisma } from "@/lib/db/client";
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

/** lockProject inside a Prisma transaction (for callers whose writes are Prisma calls). */
export async function lockProjectInPrismaTransaction(tx: Prisma.TransactionClient, projectId: string): Promise<void> {
  // Prisma has no typed row lock, and a Kysely query cannot join Prisma's transaction.
  // eslint-disable-next-line telltale/no-untyped-sql -- the one statement, fixed text with one bound value
  await tx.$executeRaw`SELECT 1 FROM projects WHERE id = ${projectId} FOR NO KEY UPDATE`;
}
