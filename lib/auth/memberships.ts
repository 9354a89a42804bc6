/**
 * The memberships table: who may reach which project, with which role (the
 * access grants). Project member rules live in lib/projects/members.ts and
 * invitations in lib/invitations; both change grants through these functions.
 */
import { expressionBuilder, type Kysely } from "kysely";
import { prisma, type Prisma } from "@/lib/db/client";
import { sqlDb, type DB } from "@/lib/db/sql";
import type { ProjectRole } from "@/lib/auth/roles";

/** A member of a project with their user's address and name. */
export type MemberRecord = { userId: string; email: string; name: string | null; role: ProjectRole; createdAt: Date };

type Grant = { projectId: string; userId: string; role: ProjectRole };

/** The user's grant on a project, with the project's name and creation time; null when they are not a member. */
export async function findAccessGrant(userId: string, projectId: string): Promise<{ role: ProjectRole; projectName: string; projectCreatedAt: Date } | null> {
  const membership = await prisma.membership.findUnique({
    where: { projectId_userId: { projectId, userId } },
    select: { role: true, project: { select: { name: true, createdAt: true } } },
  });
  return membership && { role: membership.role, projectName: membership.project.name, projectCreatedAt: membership.project.createdAt };
}

/** How many projects the user owns. */
export async function countOwnedProjects(userId: string, db: Pick<typeof prisma, "membership"> = prisma): Promise<number> {
  return db.membership.count({ where: { userId, role: "owner" } });
}

/** Subquery: the user's grants (project_id, role, and created_at: when they joined), one row per project. */
export function grantsOfUser(userId: string) {
  return expressionBuilder<DB, never>().selectFrom("memberships").select(["project_id", "role", "created_at"]).where("user_id", "=", userId);
}

/** A project's members, owners first, then by when they joined. */
export async function listProjectMembers(projectId: string): Promise<MemberRecord[]> {
  const rows = await prisma.membership.findMany({
    where: { projectId },
    orderBy: [{ role: "asc" }, { createdAt: "asc" }, { userId: "asc" }],
    select: { role: true, createdAt: true, user: { select: { id: true, email: true, name: true } } },
  });
  return rows.map((m) => ({ userId: m.user.id, email: m.user.email, name: m.user.name, role: m.role, createdAt: m.createdAt }));
}

/** Whether a member of the project has this (normalized) address. */
export async function isMemberAddress(projectId: string, email: string): Promise<boolean> {
  return (await prisma.membership.findFirst({ where: { projectId, user: { email } }, select: { userId: true } })) !== null;
}

/** Which of these users are members of the project. */
export async function membersAmong(projectId: string, userIds: string[]): Promise<Set<string>> {
  const rows = await prisma.membership.findMany({ where: { projectId, userId: { in: userIds } }, select: { userId: true } });
  return new Set(rows.map((m) => m.userId));
}

/** Grants a role on a project, inside the caller's transaction (a new project's owner). */
export async function addMembership(tx: Prisma.TransactionClient, grant: Grant): Promise<void> {
  await tx.membership.create({ data: grant });
}

/**
 * Grants the role of an accepted invitation inside the caller's transaction:
 * a new member gets it, a member invited as owner is promoted, and nobody is
 * ever demoted. Answers the role the user now has.
 */
export async function addOrPromoteMembership(tx: Prisma.TransactionClient, { projectId, userId, role }: Grant): Promise<ProjectRole> {
  const membership = await tx.membership.findUnique({ where: { projectId_userId: { projectId, userId } }, select: { role: true } });
  if (!membership) {
    await tx.membership.create({ data: { projectId, userId, role } });
    return role;
  }
  if (membership.role === "member" && role === "owner") {
    await tx.membership.update({ where: { projectId_userId: { projectId, userId } }, data: { role } });
    return role;
  }
  return membership.role;
}

// Member changes run in a transaction that holds the project's row lock
// (lib/projects/members.ts), taken with Kysely: these take its executor.

/** Every member's role in a project. */
export async function listRoles(db: Kysely<DB>, projectId: string): Promise<{ userId: string; role: ProjectRole }[]> {
  return db.selectFrom("memberships").select(["user_id as userId", "role"]).where("project_id", "=", projectId).execute();
}

/** Removes a member from a project. */
export async function deleteMembership(db: Kysely<DB>, projectId: string, userId: string): Promise<void> {
  await db.deleteFrom("memberships").where("project_id", "=", projectId).where("user_id", "=", userId).execute();
}

/** Changes a member's role; answers the member, or null when they are not one. */
export async function updateMembershipRole(db: Kysely<DB>, { projectId, userId, role }: Grant): Promise<MemberRecord | null> {
  const row = await db
    .with("changed", (q) =>
      q.updateTable("memberships").set({ role }).where("project_id", "=", projectId).where("user_id", "=", userId).returning(["user_id", "role", "created_at"]),
    )
    .selectFrom("changed")
    .innerJoin("users", "users.id", "changed.user_id")
    .select(["users.id as userId", "users.email", "users.name", "changed.role", "changed.created_at as createdAt"])
    .executeTakeFirst();
  return row ?? null;
}

/** Adds a member (the operator CLI's `member add`); answers the member. */
export async function insertMembership(db: Kysely<DB>, { projectId, userId, role }: Grant): Promise<MemberRecord> {
  return db
    .with("added", (q) => q.insertInto("memberships").values({ project_id: projectId, user_id: userId, role }).returning(["user_id", "role", "created_at"]))
    .selectFrom("added")
    .innerJoin("users", "users.id", "added.user_id")
    .select(["users.id as userId", "users.email", "users.name", "added.role", "added.created_at as createdAt"])
    .executeTakeFirstOrThrow();
}

/** The members of these projects with their addresses and roles (alert recipients). */
export async function membersOfProjects(projectIds: string[]): Promise<{ projectId: string; userId: string; role: ProjectRole; email: string }[]> {
  if (projectIds.length === 0) return [];
  return sqlDb()
    .selectFrom("memberships as m")
    .innerJoin("users as u", "u.id", "m.user_id")
    .select(["m.project_id as projectId", "m.user_id as userId", "m.role", "u.email"])
    .where("m.project_id", "in", projectIds)
    .execute();
}
