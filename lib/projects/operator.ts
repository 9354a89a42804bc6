/**
 * What the operator CLI (ops/telltale.ts) does to projects outside any
 * session: the operator may do what an owner does, on every project. The
 * rules (a project keeps an owner, keys revoked at once) are the same
 * functions the API uses.
 */
import { prisma } from "@/lib/db/client";
import { errors } from "@/lib/http/errors";
import { countEventsByProject } from "@/lib/issues/totals";
import { readProjectKey } from "@/lib/keys/service";
import { readProjectDsn } from "@/lib/projects/dsn";

export type OperatorProject = { id: string; number: number; name: string; createdAt: string; owners: string[]; members: number; eventCount: number };

const NO_SUCH_PROJECT = "No project with this id or number.";

/** Every project, oldest first, with its owners' addresses, member and event counts. */
export async function listAllProjects(): Promise<OperatorProject[]> {
  const rows = await prisma.project.findMany({
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    select: { id: true, number: true, name: true, createdAt: true, memberships: { select: { role: true, user: { select: { email: true } } } } },
  });
  const counts = await countEventsByProject(rows.map((r) => r.id));
  return rows.map((p) => ({
    id: p.id,
    number: p.number,
    name: p.name,
    createdAt: p.createdAt.toISOString(),
    owners: p.memberships.filter((m) => m.role === "owner").map((m) => m.user.email).sort(),
    members: p.memberships.length,
    eventCount: counts.get(p.id) ?? 0,
  }));
}

/** A project named by its id or its DSN number; 404 when there is none. */
export async function findProjectByRef(ref: string): Promise<{ id: string; number: number; name: string }> {
  const select = { id: true, number: true, name: true } as const;
  const project = /^\d{1,9}$/.test(ref)
    ? await prisma.project.findUnique({ where: { number: Number(ref) }, select })
    : await prisma.project.findUnique({ where: { id: ref }, select });
  if (!project) throw errors.notFound(NO_SUCH_PROJECT);
  return project;
}

/** The project that this user owns under this name (compared without case), if any. */
export async function findOwnedProjectByName(ownerId: string, name: string, db: Pick<typeof prisma, "project"> = prisma): Promise<{ id: string; name: string } | null> {
  return db.project.findFirst({
    where: { name: { equals: name, mode: "insensitive" }, memberships: { some: { userId: ownerId, role: "owner" } } },
    orderBy: { createdAt: "asc" },
    select: { id: true, name: true },
  });
}

/** A project's current keys for the operator: the secret API key and the DSN on `origin` (null when sealed under another secret). */
export async function readProjectKeys(projectId: string, origin: string): Promise<{ apiKey: string | null; dsn: string | null }> {
  const [apiKey, dsn] = await Promise.all([readProjectKey(projectId), readProjectDsn(projectId, origin)]);
  return { apiKey, dsn };
}
