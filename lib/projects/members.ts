import type { Kysely } from "kysely";
import { deleteMembership, insertMembership, listProjectMembers, listRoles, updateMembershipRole, type MemberRecord } from "@/lib/auth/memberships";
import { sqlDb, type DB } from "@/lib/db/sql";
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
  await removeFromProject(access.projectId, access.userId, memberUserId);
}

/**
 * Changes a member's role (owners only). Demoting the last owner is a 409:
 * a project always keeps an owner. Serialized per project like removals.
 */
export async function changeMemberRole(access: ProjectAccess, memberUserId: string, role: ProjectRole): Promise<ProjectMember> {
  return changeRoleInProject(access.projectId, access.userId, memberUserId, role);
}

/** The operator CLI's removal: any member, with the same last-owner rule (404 for an unknown project). */
export async function removeMemberAsOperator(projectId: string, memberUserId: string): Promise<void> {
  await removeFromProject(projectId, null, memberUserId);
}

/** The operator CLI's role change, with the same last-owner rule. */
export async function changeMemberRoleAsOperator(projectId: string, memberUserId: string, role: ProjectRole): Promise<ProjectMember> {
  return changeRoleInProject(projectId, null, memberUserId, role);
}

/** The operator CLI's `member add`: grants a role to a user who is not yet a member (409 when they are). */
export async function addMemberAsOperator(projectId: string, memberUserId: string, role: ProjectRole): Promise<ProjectMember> {
  return inLockedProject(projectId, async (trx, memberships) => {
    const existing = memberships.find((m) => m.userId === memberUserId);
    if (existing) throw errors.conflict(`This user is already a member of the project (role ${existing.role}); change the role instead.`);
    return toMember(await insertMembership(trx, { projectId, userId: memberUserId, role }));
  });
}

type Roles = { userId: string; role: ProjectRole }[];

/**
 * Runs `fn` in a transaction holding the project's row lock, with every
 * member's role read under it: member changes in one project are
 * serialized, so two owners can't demote or remove each other at once and
 * leave none.
 */
async function inLockedProject<T>(projectId: string, fn: (trx: Kysely<DB>, memberships: Roles) => Promise<T>): Promise<T> {
  return sqlDb()
    .transaction()
    .execute(async (trx) => {
      if (!(await lockProject(trx, projectId))) throw errors.notFound(PROJECT_NOT_FOUND);
      return fn(trx, await listRoles(trx, projectId));
    });
}

/** The caller's role read again under the lock (the access was resolved before it); null for the operator. */
function callerRole(memberships: Roles, callerId: string | null): ProjectRole {
  if (callerId === null) return "owner";
  const caller = memberships.find((m) => m.userId === callerId);
  if (!caller) throw errors.notFound(PROJECT_NOT_FOUND);
  return caller.role;
}

async function removeFromProject(projectId: string, callerId: string | null, memberUserId: string): Promise<void> {
  await inLockedProject(projectId, async (trx, memberships) => {
    if (memberUserId !== callerId && callerRole(memberships, callerId) !== "owner") {
      throw errors.forbidden("Only an owner can remove other members. You can remove yourself (leave the project).");
    }
    const target = memberships.find((m) => m.userId === memberUserId);
    if (!target) throw errors.notFound("This user is not a member of the project.");
    if (target.role === "owner" && memberships.filter((m) => m.role === "owner").length === 1) {
      throw errors.conflict(
        memberUserId === callerId
          ? "You are the project's only owner. Make another member an owner first (Team & settings, Make owner), or delete the project."
          : "This is the project's only owner; a project must keep at least one.",
      );
    }
    await deleteMembership(trx, projectId, memberUserId);
    await unassignMember(trx, projectId, memberUserId);
  });
}

async function changeRoleInProject(projectId: string, callerId: string | null, memberUserId: string, role: ProjectRole): Promise<ProjectMember> {
  return inLockedProject(projectId, async (trx, memberships) => {
    if (callerRole(memberships, callerId) !== "owner") throw errors.forbidden("Only an owner can change roles.");
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
