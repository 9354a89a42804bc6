import { prisma } from "@/lib/db/client";
import { errors } from "@/lib/http/errors";
import type { ProjectRole } from "@/lib/projects/schemas";

export const PROJECT_NOT_FOUND = "No project with this id, or you are not a member of it.";

/**
 * The caller's role in a project. Outsiders get 404 (the answer never
 * reveals that a project exists); with `required: "owner"`, members get 403.
 */
export async function requireProjectRole(userId: string, projectId: string, required: ProjectRole = "member"): Promise<ProjectRole> {
  const membership = await prisma.membership.findUnique({
    where: { projectId_userId: { projectId, userId } },
    select: { role: true },
  });
  if (!membership) throw errors.notFound(PROJECT_NOT_FOUND);
  if (required === "owner" && membership.role !== "owner") throw errors.forbidden("Only an owner of this project can do this.");
  return membership.role;
}
