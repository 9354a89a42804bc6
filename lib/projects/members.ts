import { prisma } from "@/lib/db/client";
import { errors } from "@/lib/http/errors";
import { PROJECT_NOT_FOUND, type ProjectAccess } from "@/lib/projects/access";
import type { ProjectRole } from "@/lib/projects/roles";

export type ProjectMember = { userId: string; email: string; name: string | null; role: ProjectRole; joinedAt: string };

/** A project's members, owners first. */
export async function listMembers(access: ProjectAccess): Promise<ProjectMember[]> {
  const rows = await prisma.membership.findMany({
    where: { projectId: access.projectId },
    orderBy: [{ role: "asc" }, { createdAt: "asc" }, { userId: "asc" }],
    select: { role: true, createdAt: true, user: { select: { id: true, email: true, name: true } } },
  });
  return rows.map((m) => ({ userId: m.user.id, email: m.user.email, name: m.user.name, role: m.role, joinedAt: m.createdAt.toISOString() }));
}

/**
 * Removes `memberUserId` from a project. An owner removes anyone; anyone may
 * remove themself (leave). The last owner can't go: 409, so that a project
 * always keeps an owner.
 */
export async function removeMember(access: ProjectAccess, memberUserId: string): Promise<void> {
  const { projectId, userId } = access;
  await prisma.$transaction(async (tx) => {
    // Serializes removals in one project, so two owners can't remove each
    // other at once and leave none. NO KEY UPDATE does not block event inserts
    // (their foreign-key check only takes KEY SHARE on the project row).
    const locked = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM projects WHERE id = ${projectId} FOR NO KEY UPDATE`;
    if (locked.length === 0) throw errors.notFound(PROJECT_NOT_FOUND);

    // Read again under the lock: the access was resolved before it.
    const memberships = await tx.membership.findMany({ where: { projectId }, select: { userId: true, role: true } });
    const caller = memberships.find((m) => m.userId === userId);
    if (!caller) throw errors.notFound(PROJECT_NOT_FOUND);
    if (memberUserId !== userId && caller.role !== "owner") {
      throw errors.forbidden("Only an owner can remove other members. You can remove yourself (leave the project).");
    }
    const target = memberships.find((m) => m.userId === memberUserId);
    if (!target) throw errors.notFound("This user is not a member of the project.");
    if (target.role === "owner" && memberships.filter((m) => m.role === "owner").length === 1) {
      throw errors.conflict(
        memberUserId === userId
          ? "You are the project's only owner. Invite another owner first, or delete the project."
          : "This is the project's only owner; a project must keep at least one.",
      );
    }
    await tx.membership.delete({ where: { projectId_userId: { projectId, userId: memberUserId } } });
  });
}
