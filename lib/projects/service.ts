import { grantsOfUser } from "@/lib/auth/memberships";
import { prisma } from "@/lib/db/client";
import { sqlDb } from "@/lib/db/sql";
import { errors } from "@/lib/http/errors";
import { deleteProjectEventsBefore } from "@/lib/events/retention";
import { deleteProjectTagCounts, lockProjectIssues } from "@/lib/issues/project-deletion";
import { COUNT_BUCKETS, deleteProjectCountsBefore, type CountBucket } from "@/lib/issues/retention";
import { countEventsByProject } from "@/lib/issues/totals";
import { activeKeyLast4 } from "@/lib/keys/queries";
import { projectDsn } from "@/lib/keys/dsn";
import { forgetProjectKeys, readProjectKey, rotateProjectKey, type KeyKind } from "@/lib/keys/service";
import { readOrCreatePublicKey } from "@/lib/projects/dsn";
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
export type ProjectDetails = {
  id: string;
  name: string;
  role: ProjectRole;
  createdAt: string;
  apiKey: string | null;
  /** The Sentry DSN on this site's public origin; null when its public key can't be shown (sealed under another TELLTALE_SECRET). */
  dsn: string | null;
  /** Origins whose pages may send through the Sentry routes; ["*"] is any. */
  allowedOrigins: string[];
};

/** What rotating a key answers: the new secret key, or the new public key with the DSN that carries it. */
export type RotatedKey = { kind: "secret"; apiKey: string } | { kind: "public"; publicKey: string; dsn: string };

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
 * A project with its current API key in plaintext and its DSN on `origin`
 * (lib/auth/public-origin.ts), for its members. `apiKey` is null when it
 * can't be shown (sealed under another TELLTALE_SECRET, or the data was
 * changed by hand); an owner can rotate it.
 */
export async function getProjectDetails(access: ProjectAccess, origin: string): Promise<ProjectDetails> {
  const [project, apiKey, publicKey] = await Promise.all([
    prisma.project.findUnique({ where: { id: access.projectId }, select: { name: true, number: true, allowedOrigins: true } }),
    readProjectKey(access.projectId),
    readOrCreatePublicKey(access.projectId),
  ]);
  if (!project) throw errors.notFound(PROJECT_NOT_FOUND);
  return {
    id: access.projectId,
    name: project.name,
    role: access.role,
    createdAt: access.projectCreatedAt.toISOString(),
    apiKey,
    dsn: publicKey ? projectDsn(origin, publicKey, project.number) : null,
    allowedOrigins: project.allowedOrigins,
  };
}

/** The project's secret API key in plaintext (Reveal and Copy), null when it can't be shown. */
export async function revealApiKey(access: ProjectAccess): Promise<string | null> {
  return readProjectKey(access.projectId);
}

/**
 * Replaces one of the project's keys (owners only): the secret API key, or
 * the public key in its DSN. The old one stops working at once; the other
 * kind is untouched.
 */
export async function rotateKeyAsOwner(access: ProjectAccess, kind: KeyKind, origin: string): Promise<RotatedKey> {
  requireOwner(access);
  return rotateKeyWithDsn(access.projectId, kind, origin);
}

/** Replaces one of a project's keys (the caller checked who may); a new public key comes with its DSN on `origin`. */
export async function rotateKeyWithDsn(projectId: string, kind: KeyKind, origin: string): Promise<RotatedKey> {
  const key = await rotateProjectKey(projectId, kind);
  if (kind === "secret") return { kind, apiKey: key };
  const project = await prisma.project.findUnique({ where: { id: projectId }, select: { number: true } });
  if (!project) throw errors.notFound(PROJECT_NOT_FOUND);
  return { kind, publicKey: key, dsn: projectDsn(origin, key, project.number) };
}

/**
 * Renames a project and/or sets the origins allowed on its Sentry routes
 * (owners only); answers the details as GET does.
 */
export async function updateProject(access: ProjectAccess, changes: { name?: string; allowedOrigins?: string[] }, origin: string): Promise<ProjectDetails> {
  requireOwner(access);
  const { count } = await prisma.project.updateMany({ where: { id: access.projectId }, data: changes });
  if (count === 0) throw errors.notFound(PROJECT_NOT_FOUND);
  // Cached public keys carry the origins they allow: drop them here and in
  // every instance, so the new list applies to the next request.
  if (changes.allowedOrigins) forgetProjectKeys(access.projectId);
  return getProjectDetails(access, origin);
}

/** Deletes a project with its events, keys, memberships and invitations (owners only). */
export async function deleteProjectAsOwner(
  access: ProjectAccess,
  options: { confirmName?: string; stepsAboveEvents?: number; stepRows?: number } = {},
): Promise<void> {
  requireOwner(access);
  // The dashboard asks the owner to type the name; checked against the stored one.
  if (options.confirmName !== undefined && options.confirmName !== access.projectName) {
    throw errors.validation([{ path: "confirmation", message: "Type the project name exactly to confirm." }]);
  }
  const events = (await countEventsByProject([access.projectId])).get(access.projectId) ?? 0;
  if (events > (options.stepsAboveEvents ?? DELETE_IN_STEPS_ABOVE_EVENTS)) await deleteProjectData(access.projectId, { stepRows: options.stepRows });
  // Foreign keys cascade (what arrived since the steps above), but for the tag counts; a concurrent delete is a 404, not a 500.
  const count = await sqlDb()
    .transaction()
    .execute(async (trx) => {
      await lockProjectIssues(trx, access.projectId);
      const { numDeletedRows } = await trx.deleteFrom("projects").where("id", "=", access.projectId).executeTakeFirstOrThrow();
      if (numDeletedRows > 0n) await deleteProjectTagCounts(trx, access.projectId);
      return numDeletedRows;
    });
  forgetProjectKeys(access.projectId);
  if (count === 0n) throw errors.notFound(PROJECT_NOT_FOUND);
}

/**
 * A project with more events than this (its issues' totals: an upper bound)
 * has them and their counts deleted in steps before its row. Steps cost
 * several times what one cascade does per row
 * (docs/performance.md#figures-behind-the-code), so a smaller project goes
 * in one transaction.
 */
const DELETE_IN_STEPS_ABOVE_EVENTS = 100_000;
/** Rows per statement when a project's events and counts are deleted in steps. */
const PROJECT_DELETION_STEP_ROWS = 20_000;
/** After every event and count bucket (event times are at most a minute past their arrival). */
const END_OF_TIME = new Date("9999-12-31T00:00:00Z");

/**
 * A project's events and counts, deleted in steps of `stepRows` (each its
 * own short statement), before its row goes: the cascade of a large
 * project's millions of rows in one statement would pass the statement
 * deadline, and the project could never be deleted. Answers the rows
 * deleted per kind.
 */
export async function deleteProjectData(projectId: string, options: { stepRows?: number | undefined } = {}): Promise<Record<"events" | CountBucket, number>> {
  const stepRows = options.stepRows ?? PROJECT_DELETION_STEP_ROWS;
  const deleted = { events: 0, minute: 0, hour: 0, day: 0, tagHour: 0, tagDay: 0 };
  const always = async () => true;
  await deleteProjectEventsBefore(projectId, END_OF_TIME, stepRows, always, (n) => (deleted.events += n));
  for (const bucket of Object.keys(COUNT_BUCKETS) as CountBucket[]) {
    await deleteProjectCountsBefore(bucket, projectId, END_OF_TIME, stepRows, always, (n) => (deleted[bucket] += n));
  }
  return deleted;
}

/**
 * The ids and names of the user's projects, in the order they joined them
 * (what a summary across them covers). Kysely rather than Prisma: every
 * summary starts here (docs/performance.md#figures-behind-the-code).
 */
export async function listProjectNamesOfUser(userId: string): Promise<{ id: string; name: string }[]> {
  return sqlDb()
    .selectFrom(grantsOfUser(userId).as("m"))
    .innerJoin("projects as p", "p.id", "m.project_id")
    .select(["p.id", "p.name"])
    .orderBy("m.created_at")
    .orderBy("p.id")
    .execute();
}

/** Every project's id, in id order (retention walks them). */
export async function listProjectIds(): Promise<string[]> {
  const rows = await sqlDb().selectFrom("projects").select("id").orderBy("id").execute();
  return rows.map((r) => r.id);
}
