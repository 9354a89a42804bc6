import { grantsOfUser, listProjectsOfUser } from "@/lib/auth/memberships";
import { prisma } from "@/lib/db/client";
import { sqlDb } from "@/lib/db/sql";
import { errors } from "@/lib/http/errors";
import { countEventsByProject } from "@/lib/issues/totals";
import { activeKeyLast4 } from "@/lib/keys/queries";
import { forgetProjectKeys, readProjectKey, rotateProjectKey } from "@/lib/keys/service";
import { PROJECT_NOT_FOUND, requireOwner, type ProjectAccess } from "@/lib/auth/access";
import type { ProjectRole } from "@/lib/auth/roles";

export type ProjectSummary = {
  id: string;
  name: string;
  role: ProjectRole;
  createdAt: string;
  eventCount: number;
  /** Last four characters of the active API key (enough to mask it), null when it has none. */
  keyLast4: string | null;
};
export type ProjectDetails = { id: string; name: string; role: ProjectRole; createdAt: string; apiKey: string | null };

/**
 * The caller's projects, newest first, with their role, event count and the
 * active key's last four characters; nothing decrypted.
 */
export async function listProjectsForUser(userId: string): Promise<ProjectSummary[]> {
  const rows = await sqlDb()
    .selectFrom(grantsOfUser(userId).as("m"))
    .innerJoin("projects as p", "p.id", "m.project_id")
    .leftJoinLateral((eb) => activeKeyLast4(eb.ref("p.id")).as("k"), (join) => join.onTrue())
    .select(["p.id", "p.name", "m.role", "p.created_at", "k.last4 as key_last4"])
    .orderBy("p.created_at", "desc")
    .orderBy("p.id", "asc")
    .execute();
  const counts = await countEventsByProject(rows.map((r) => r.id));
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    role: row.role,
    createdAt: new Date(row.created_at).toISOString(),
    eventCount: counts.get(row.id) ?? 0,
    keyLast4: row.key_last4,
  }));
}

/**
 * A project with its current API key in plaintext, for its members.
 * `apiKey` is null when it can't be shown (sealed under another
 * TELLTALE_SECRET, or the data was changed by hand); an owner can rotate it.
 */
export async function getProjectDetails(access: ProjectAccess): Promise<ProjectDetails> {
  return {
    id: access.projectId,
    name: access.projectName,
    role: access.role,
    createdAt: access.projectCreatedAt.toISOString(),
    apiKey: await readProjectKey(access.projectId),
  };
}

/** Replaces the project's API key (owners only); the old key stops working at once. */
export async function rotateKeyAsOwner(access: ProjectAccess): Promise<{ apiKey: string }> {
  requireOwner(access);
  return { apiKey: await rotateProjectKey(access.projectId) };
}

/** Renames a project (owners only); answers the details as GET does. */
export async function renameProject(access: ProjectAccess, name: string): Promise<ProjectDetails> {
  requireOwner(access);
  const { count } = await prisma.project.updateMany({ where: { id: access.projectId }, data: { name } });
  if (count === 0) throw errors.notFound(PROJECT_NOT_FOUND);
  return getProjectDetails({ ...access, projectName: name });
}

/** Deletes a project with its events, keys, memberships and invitations (owners only). */
export async function deleteProjectAsOwner(access: ProjectAccess, options: { confirmName?: string } = {}): Promise<void> {
  requireOwner(access);
  // The dashboard asks the owner to type the name; checked against the stored one.
  if (options.confirmName !== undefined && options.confirmName !== access.projectName) {
    throw errors.validation([{ path: "confirmation", message: "Type the project name exactly to confirm." }]);
  }
  // Foreign keys cascade; deleteMany makes a concurrent delete a 404, not a 500.
  const { count } = await prisma.project.deleteMany({ where: { id: access.projectId } });
  forgetProjectKeys(access.projectId);
  if (count === 0) throw errors.notFound(PROJECT_NOT_FOUND);
}

/** The ids and names of the user's projects (what a summary across them covers). */
export async function listProjectNamesOfUser(userId: string): Promise<{ id: string; name: string }[]> {
  return listProjectsOfUser(userId);
}

/** Every project's id, in id order (retention walks them). */
export async function listProjectIds(): Promise<string[]> {
  const rows = await sqlDb().selectFrom("projects").select("id").orderBy("id").execute();
  return rows.map((r) => r.id);
}
