import { deleteMembership, listProjectMembers, listRoles, updateMembershipRole, type MemberRecord } from "@/lib/auth/memberships";
import { sqlDb } from "@/lib/db/sql";
import { errors } from "@/lib/http/errors";
import { PROJECT_NOT_FOUND, type ProjectAccess } from "@/lib/auth/access";
import type { ProjectRole } from "@/lib/auth/roles";
import { unassignMember } from "@/lib/issues/workflow";
import { lockProject } from "@/lib/projects/lock";

export type ProjectMember = { userId: string; email: string; name: string | null; role: ProjectRole; joinedAt: string };

function toMember(m: MemberRecord): ProjectMember {
  return { userId: m.userId, email: m.email, name: m.name, role: m.role, joinedAt: m.createdAt.toISOString() };
}

/** A project's members, owners first. */
export async function listMembers(access: ProjectAccess): Promise<ProjectMember[]> {
  return (await listProjectMembers(access.projectId)).map(toMember);
}

/**
 * Removes `memberUserId` from a project. An owner removes anyone; anyone may
 * remove themself (leave). The last owner can't go: 409, so that a project
 * always keeps an owner.
 */
export async function removeMember(access: ProjectAccess, memberUserId: string): Promise<void> {
  const { projectId, userId } = access;
  await sqlDb()
    .transaction()
    .execute(async (trx) => {
      // Serializes removals in one project, so two owners can't remove each
      // other at once and leave none.
      if (!(await lockProject(trx, projectId))) throw errors.notFound(PROJECT_NOT_FOUND);

      // Read again under the lock: the access was resolved before it.
      const memberships = await listRoles(trx, projectId);
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
      await deleteMembership(trx, projectId, memberUserId);
      await unassignMember(trx, projectId, memberUserId);
    });
}

/**
 * Changes a member's role (owners only). Demoting the last owner is a 409:
 * a project always keeps an owner. Serialized per project like removals.
 */
export async function changeMemberRole(access: ProjectAccess, memberUserId: string, role: ProjectRole): Promise<ProjectMember> {
  const { projectId, userId } = access;
  return sqlDb()
    .transaction()
    .execute(async (trx) => {
      if (!(await lockProject(trx, projectId))) throw errors.notFound(PROJECT_NOT_FOUND);
      const memberships = await listRoles(trx, projectId);
      const caller = memberships.find((m) => m.userId === userId);
      if (!caller) throw errors.notFound(PROJECT_NOT_FOUND);
      if (caller.role !== "owner") throw errors.forbidden("Only an owner can change roles.");
      const target = memberships.find((m) => m.userId === memberUserId);
      if (!target) throw errors.notFound("This user is not a member of the project.");
      if (target.role === "owner" && role !== "owner" && memberships.filter((m) => m.role === "owner").length === 1) {
        throw errors.conflict("This is the project's only owner; make another member an owner first.");
      }
      const member = await updateMembershipRole(trx, { projectId, userId: memberUserId, role });
      if (!member) throw errors.notFound("This user is not a member of the project.");
      return toMember(member);
    });
}
