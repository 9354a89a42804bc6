import { prisma } from "@/lib/db/client";
import { errors } from "@/lib/http/errors";
import { forgetProjectKeys, readProjectKey, rotateProjectKey } from "@/lib/keys/service";
import { PROJECT_NOT_FOUND, requireProjectRole } from "@/lib/projects/access";
import type { ProjectRole } from "@/lib/projects/schemas";

export type ProjectSummary = { id: string; name: string; role: ProjectRole; createdAt: string; eventCount: number };
export type ProjectDetails = { id: string; name: string; role: ProjectRole; createdAt: string; apiKey: string };

/** The caller's projects, newest first, with their role and event count. */
export async function listProjectsForUser(userId: string): Promise<ProjectSummary[]> {
  const rows = await prisma.membership.findMany({
    where: { userId },
    orderBy: [{ project: { createdAt: "desc" } }, { projectId: "asc" }],
    select: {
      role: true,
      project: { select: { id: true, name: true, createdAt: true, _count: { select: { events: true } } } },
    },
  });
  return rows.map(({ role, project }) => ({
    id: project.id,
    name: project.name,
    role,
    createdAt: project.createdAt.toISOString(),
    eventCount: project._count.events,
  }));
}

/** A project with its current API key, for its members only (others: 404). */
export async function getProjectForMember(userId: string, projectId: string): Promise<ProjectDetails> {
  const row = await prisma.membership.findUnique({
    where: { projectId_userId: { projectId, userId } },
    select: { role: true, project: { select: { id: true, name: true, createdAt: true } } },
  });
  if (!row) throw errors.notFound(PROJECT_NOT_FOUND);
  return {
    id: row.project.id,
    name: row.project.name,
    role: row.role,
    createdAt: row.project.createdAt.toISOString(),
    apiKey: await currentKey(projectId),
  };
}

// Every project has exactly one active key (made with it, replaced atomically
// on rotation); none means the data was changed by hand.
async function currentKey(projectId: string): Promise<string> {
  const apiKey = await readProjectKey(projectId);
  if (!apiKey) throw new Error(`Project ${projectId} has no active API key.`);
  return apiKey;
}

/** Replaces the project's API key (owners only); the old key stops working at once. */
export async function rotateKeyAsOwner(userId: string, projectId: string): Promise<{ apiKey: string }> {
  await requireProjectRole(userId, projectId, "owner");
  return { apiKey: await rotateProjectKey(projectId) };
}

/** Deletes a project with its events, keys, memberships and invitations (owners only). */
export async function deleteProjectAsOwner(userId: string, projectId: string): Promise<void> {
  await requireProjectRole(userId, projectId, "owner");
  // Foreign keys cascade; deleteMany makes a concurrent delete a 404, not a 500.
  const { count } = await prisma.project.deleteMany({ where: { id: projectId } });
  forgetProjectKeys(projectId);
  if (count === 0) throw errors.notFound(PROJECT_NOT_FOUND);
}
