import { prisma } from "@/lib/db/client";
import { errors } from "@/lib/http/errors";
import { forgetProjectKeys, readProjectKey, rotateProjectKey } from "@/lib/keys/service";
import { PROJECT_NOT_FOUND, requireProjectRole } from "@/lib/projects/access";
import type { ProjectRole } from "@/lib/projects/schemas";

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

type ProjectSummaryRow = { id: string; name: string; role: ProjectRole; created_at: Date; event_count: bigint | number; key_last4: string | null };

/**
 * The caller's projects, newest first, with their role, event count and the
 * active key's last four characters: one query, nothing decrypted. Each count
 * is an index-only scan of events_project_received_idx for that project alone
 * (linear in its events, never a scan of the whole table).
 */
export async function listProjectsForUser(userId: string): Promise<ProjectSummary[]> {
  const rows = await prisma.$queryRaw<ProjectSummaryRow[]>`
    SELECT p.id, p.name, m.role::text AS role, p.created_at, c.event_count, k.last4 AS key_last4
    FROM memberships m
    JOIN projects p ON p.id = m.project_id
    LEFT JOIN LATERAL (
      SELECT last4 FROM api_keys WHERE project_id = p.id AND revoked_at IS NULL ORDER BY created_at DESC LIMIT 1
    ) k ON true
    CROSS JOIN LATERAL (SELECT count(*) AS event_count FROM events e WHERE e.project_id = p.id) c
    WHERE m.user_id = ${userId}
    ORDER BY p.created_at DESC, p.id ASC`;
  return rows.map((row) => ({
    id: row.id,
    name: row.name,
    role: row.role,
    createdAt: new Date(row.created_at).toISOString(),
    eventCount: Number(row.event_count),
    keyLast4: row.key_last4,
  }));
}

export type ProjectMembership = Omit<ProjectDetails, "apiKey">;

/** A project and the caller's role in it, for its members only (others: 404). No key. */
export async function getProjectMembership(userId: string, projectId: string): Promise<ProjectMembership> {
  const row = await prisma.membership.findUnique({
    where: { projectId_userId: { projectId, userId } },
    select: { role: true, project: { select: { id: true, name: true, createdAt: true } } },
  });
  if (!row) throw errors.notFound(PROJECT_NOT_FOUND);
  return { id: row.project.id, name: row.project.name, role: row.role, createdAt: row.project.createdAt.toISOString() };
}

/**
 * A project with its current API key in plaintext, for its members only
 * (others: 404). `apiKey` is null when it can't be shown (sealed under another
 * TELLTALE_SECRET, or the data was changed by hand); an owner can rotate it.
 */
export async function getProjectForMember(userId: string, projectId: string): Promise<ProjectDetails> {
  const project = await getProjectMembership(userId, projectId);
  return { ...project, apiKey: await readProjectKey(projectId) };
}

/** Replaces the project's API key (owners only); the old key stops working at once. */
export async function rotateKeyAsOwner(userId: string, projectId: string): Promise<{ apiKey: string }> {
  await requireProjectRole(userId, projectId, "owner");
  return { apiKey: await rotateProjectKey(projectId) };
}

/** Deletes a project with its events, keys, memberships and invitations (owners only). */
export async function deleteProjectAsOwner(userId: string, projectId: string, options: { confirmName?: string } = {}): Promise<void> {
  await requireProjectRole(userId, projectId, "owner");
  if (options.confirmName !== undefined) {
    // The dashboard asks the owner to type the name; checked against the stored one.
    const project = await prisma.project.findUnique({ where: { id: projectId }, select: { name: true } });
    if (project?.name !== options.confirmName) {
      throw errors.validation([{ path: "confirmation", message: "Type the project name exactly to confirm." }]);
    }
  }
  // Foreign keys cascade; deleteMany makes a concurrent delete a 404, not a 500.
  const { count } = await prisma.project.deleteMany({ where: { id: projectId } });
  forgetProjectKeys(projectId);
  if (count === 0) throw errors.notFound(PROJECT_NOT_FOUND);
}
