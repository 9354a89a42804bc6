import { prisma } from "@/lib/db/client";
import { projectDsn } from "@/lib/keys/dsn";
import { readOrCreatePublicKeyWith } from "@/lib/keys/service";
import { lockProjectInPrismaTransaction } from "@/lib/projects/lock";

/** The project's public (DSN) key, made on first use under the project's row lock (lib/keys/service.ts). */
export function readOrCreatePublicKey(projectId: string): Promise<string | null> {
  return readOrCreatePublicKeyWith(projectId, lockProjectInPrismaTransaction);
}

/** A project's Sentry DSN on `origin` (null when its public key cannot be shown: sealed under another TELLTALE_SECRET). */
export async function readProjectDsn(projectId: string, origin: string): Promise<string | null> {
  const [project, publicKey] = await Promise.all([
    prisma.project.findUnique({ where: { id: projectId }, select: { number: true } }),
    readOrCreatePublicKey(projectId),
  ]);
  return project && publicKey ? projectDsn(origin, publicKey, project.number) : null;
}

/** The DSNs of several projects (the Projects page), by project id. */
export async function readProjectDsns(projectIds: string[], origin: string): Promise<Map<string, string | null>> {
  return new Map(await Promise.all(projectIds.map(async (id) => [id, await readProjectDsn(id, origin)] as const)));
}
