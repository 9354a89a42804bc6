import { prisma } from "@/lib/db/client";
import { errors } from "@/lib/http/errors";
import { PROJECT_NOT_FOUND, type ProjectAccess } from "@/lib/auth/access";
import type { ProjectRole } from "@/lib/auth/roles";

export type ProjectMember = { userId: string; email: string; name: string | null; role: ProjectRole; joinedAt: string };

const memberSelect = { role: true, createdAt: true, user: { select: { id: true, email: true, name: true } } } as const;

function toMember(m: { role: ProjectRole; createdAt: Date; user: { id: string; email: string; name: string | null } }): ProjectMember {
  return { userId: m.user.id, email: m.user.email, name: m.user.name, role: m.role, joinedAt: m.createdAt.toISOString() };
}

/** A project's members, owners first. */
export async function listMembers(access: ProjectAccess): Promise<ProjectMember[]> {
  const rows = await prisma.membership.findMany({
    where: { projectId: access.projectId },
    orderBy: [{ role: "asc" }, { createdAt: "asc" }, { userId: "asc" }],
    select: memberSelect,
  });
  return rows.map(toMember);
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

/**
 * Changes a member's role (owners only). Demoting the last owner is a 409:
 * a project always keeps an owner. Serialized per project like removals.
 */
export async function changeMemberRole(access: ProjectAccess, memberUserId: string, role: ProjectRole): Promise<ProjectMember> {
  const { projectId, userId } = access;
  return prisma.$transaction(async (tx) => {
    const locked = await tx.$queryRaw<{ id: string }[]>`SELECT id FROM projects WHERE id = ${projectId} FOR NO KEY UPDATE`;
    if (locked.length === 0) throw errors.notFound(PROJECT_NOT_FOUND);
    const memberships = await tx.membership.findMany({ where: { projectId }, select: { userId: true, role: true } });
    const caller = memberships.find((m) => m.userId === userId);
    if (!caller) throw errors.notFound(PROJECT_NOT_FOUND);
    if (caller.role !== "owner") throw errors.forbidden("Only an owner can change roles.");
    const target = memberships.find((m) => m.userId === memberUserId);
    if (!target) throw errors.notFound("This user is not a member of the project.");
    if (target.role === "owner" && role !== "owner" && memberships.filter((m) => m.role === "owner").length === 1) {
      throw errors.conflict("This is the project's only owner; make another member an owner first.");
    }
    return toMember(await tx.membership.update({ where: { projectId_userId: { projectId, userId: memberUserId } }, data: { role }, select: memberSelect }));
  });
}
