import type { Prisma } from "@/lib/db/client";

/** A new project's row, inside the caller's transaction (lib/project-setup/create-project.ts makes the rest of the project). */
export async function insertProject(tx: Prisma.TransactionClient, name: string): Promise<{ id: string; name: string }> {
  return tx.project.create({ data: { name }, select: { id: true, name: true } });
}
