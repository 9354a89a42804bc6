/**
 * The people, projects, keys, sessions and invitations the corpus's
 * placeholders point at, made directly in the database (as
 * tests/helpers/session.ts does), and a snapshot of the state that refused
 * requests must leave alone.
 */
import { randomUUID } from "node:crypto";
import pg from "pg";
import { sha256Hex } from "@/lib/crypto/hash";
import { prisma } from "@/lib/db/client";
import { generateInvitationToken } from "@/lib/invitations/schemas";
import { rotateProjectKey } from "@/lib/keys/service";
import { createProject } from "@/lib/project-setup/create-project";

export type Fixtures = {
  run: string;
  owner: { id: string; email: string; sessionToken: string; expiredSessionToken: string };
  outsider: { id: string; email: string; sessionToken: string };
  member: { id: string };
  main: { id: string; apiKey: string };
  other: { id: string; apiKey: string };
  scratch: { id: string; invitationId: string };
  revokedKey: string;
  inviteToken: string;
  inviteId: string;
};

/** A user with a live database session (the Cookie value is its token). */
export async function userWithSession(email: string, expires = new Date(Date.now() + 24 * 3600 * 1000)) {
  const user = await prisma.user.upsert({ where: { email }, update: {}, create: { email, emailVerified: new Date() }, select: { id: true, email: true } });
  const sessionToken = randomUUID();
  await prisma.session.create({ data: { sessionToken, userId: user.id, expires } });
  return { ...user, sessionToken };
}

export async function createFixtures(run: string): Promise<Fixtures> {
  const owner = await userWithSession(`chaos-owner-${run}@example.test`);
  const expired = await userWithSession(owner.email, new Date(Date.now() - 3600 * 1000));
  const outsider = await userWithSession(`chaos-outsider-${run}@example.test`);
  const member = await userWithSession(`chaos-member-${run}@example.test`);
  const main = await createProject(owner.id, `chaos main ${run}`);
  const other = await createProject(outsider.id, `chaos other ${run}`);
  const scratch = await createProject(owner.id, `chaos scratch ${run}`);
  const revoked = await createProject(owner.id, `chaos revoked ${run}`);
  await rotateProjectKey(revoked.id);
  for (const projectId of [main.id, scratch.id]) await prisma.membership.create({ data: { projectId, userId: member.id, role: "member" } });
  const week = new Date(Date.now() + 7 * 86_400_000);
  const scratchInvitation = await prisma.invitation.create({
    data: { projectId: scratch.id, email: `chaos-invitee-${run}@example.test`, role: "member", tokenHash: sha256Hex(generateInvitationToken()), invitedById: owner.id, expiresAt: week },
    select: { id: true },
  });
  const inviteToken = generateInvitationToken();
  const invite = await prisma.invitation.create({
    data: { projectId: other.id, email: owner.email, role: "owner", tokenHash: sha256Hex(inviteToken), invitedById: outsider.id, expiresAt: week },
    select: { id: true },
  });
  return {
    run,
    owner: { id: owner.id, email: owner.email, sessionToken: owner.sessionToken, expiredSessionToken: expired.sessionToken },
    outsider: { id: outsider.id, email: outsider.email, sessionToken: outsider.sessionToken },
    member: { id: member.id },
    main: { id: main.id, apiKey: main.apiKey },
    other: { id: other.id, apiKey: other.apiKey },
    scratch: { id: scratch.id, invitationId: scratchInvitation.id },
    revokedKey: revoked.apiKey,
    inviteToken,
    inviteId: invite.id,
  };
}

/** A project for one load phase, with its key. */
export async function createLoadProject(ownerId: string, name: string): Promise<{ id: string; apiKey: string }> {
  return createProject(ownerId, name);
}

/** One short-lived connection per call: the cluster is stopped and restarted under the runner. */
export async function query<R extends pg.QueryResultRow>(url: string, text: string, values: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 10_000 });
  await client.connect();
  try {
    return (await client.query<R>(text, values)).rows;
  } finally {
    await client.end().catch(() => {});
  }
}

/**
 * What no refused request may change: the protected projects, their active
 * API keys (not the DSN's public key, which reading a project may create), the scratch project's member and invitation, the invitation to the
 * other project. Compared before and after the fuzz phase.
 */
export async function protectedState(url: string, f: Fixtures): Promise<Record<string, string>> {
  const projects = await query<{ id: string }>(url, "SELECT id FROM projects WHERE id = ANY($1) ORDER BY id", [[f.main.id, f.other.id, f.scratch.id]]);
  const keys = await query<{ project_id: string; hash: string }>(url, "SELECT project_id, hash FROM api_keys WHERE revoked_at IS NULL AND kind = 'secret' AND project_id = ANY($1) ORDER BY project_id", [[f.main.id, f.other.id, f.scratch.id]]);
  const members = await query<{ project_id: string; user_id: string; role: string }>(url, "SELECT project_id, user_id, role::text FROM memberships WHERE project_id = ANY($1) ORDER BY project_id, user_id", [[f.main.id, f.other.id, f.scratch.id]]);
  const invitations = await query<{ id: string; accepted: boolean; revoked: boolean }>(url, "SELECT id, accepted_at IS NOT NULL AS accepted, revoked_at IS NOT NULL AS revoked FROM invitations WHERE id = ANY($1) ORDER BY id", [[f.scratch.invitationId, f.inviteId]]);
  const state: Record<string, string> = {};
  for (const id of [f.main.id, f.other.id, f.scratch.id]) {
    const label = id === f.main.id ? "main" : id === f.other.id ? "other" : "scratch";
    state[`${label} project exists`] = String(projects.some((p) => p.id === id));
    state[`${label} project's active key`] = keys.filter((k) => k.project_id === id).map((k) => k.hash.slice(0, 12)).join(",") || "none";
    state[`${label} project's members`] = members.filter((m) => m.project_id === id).map((m) => `${m.user_id}:${m.role}`).join(",");
  }
  for (const inv of [f.scratch.invitationId, f.inviteId]) {
    const row = invitations.find((i) => i.id === inv);
    state[`invitation ${inv === f.inviteId ? "to the other project" : "of the scratch project"}`] = row ? `accepted=${row.accepted} revoked=${row.revoked}` : "missing";
  }
  return state;
}
