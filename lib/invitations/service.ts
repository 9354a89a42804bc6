import { INVITATION_LIFETIME_MS } from "@/lib/auth/lifetimes";
import { addOrPromoteMembership, isMemberAddress } from "@/lib/auth/memberships";
import { settings } from "@/lib/config/settings";
import { sha256Hex } from "@/lib/crypto/hash";
import { transaction } from "@/lib/db/transaction";
import { prisma } from "@/lib/db/client";
import { errors } from "@/lib/http/errors";
import { sendInvitationEmail } from "@/lib/invitations/email";
import { consumeInvitationQuota } from "@/lib/invitations/rate-limit";
import { generateInvitationToken } from "@/lib/invitations/schemas";
import { logger } from "@/lib/log";
import { requireOwner, type ProjectAccess } from "@/lib/auth/access";
import type { ProjectRole } from "@/lib/auth/roles";

type Invitee = { id: string; email: string };
type Inviter = { email: string; name: string | null };

export type CreatedInvitation = {
  id: string;
  email: string;
  role: ProjectRole;
  createdAt: string;
  expiresAt: string;
  /** The single-use link, for the owner to pass on if the mail does not arrive. */
  inviteUrl: string;
  emailSent: boolean;
};

export type ProjectInvitation = { id: string; email: string; role: ProjectRole; createdAt: string; expiresAt: string; invitedBy: Inviter };

export type PendingInvitation = {
  id: string;
  projectId: string;
  projectName: string;
  role: ProjectRole;
  createdAt: string;
  expiresAt: string;
  invitedBy: Inviter;
};

export type InvitationStatus = "pending" | "accepted" | "revoked" | "expired";

export type InvitationPreview = {
  /** The invited address: the page says who the link is for. */
  email: string;
  projectName: string;
  role: ProjectRole;
  status: InvitationStatus;
  /** Whether the given user is the invited address (null: nobody signed in). */
  forThisUser: boolean | null;
};

const pending = (now = new Date()) => ({ acceptedAt: null, revokedAt: null, expiresAt: { gt: now } });
const inviterSelect = { select: { email: true, name: true } } as const;

function statusOf(invitation: { acceptedAt: Date | null; revokedAt: Date | null; expiresAt: Date }, now = new Date()): InvitationStatus {
  if (invitation.acceptedAt) return "accepted";
  if (invitation.revokedAt) return "revoked";
  return invitation.expiresAt <= now ? "expired" : "pending";
}

/**
 * Invites `email` to a project (owners only) and mails a single-use link that
 * expires in 7 days. A new invitation replaces a pending one to the same
 * address; inviting someone who is already a member is a 409.
 */
export async function createInvitation(
  access: ProjectAccess,
  input: { email: string; role: ProjectRole },
  { baseUrl }: { baseUrl: string },
): Promise<CreatedInvitation> {
  requireOwner(access);
  const { projectId, userId } = access;
  const email = input.email.trim().toLowerCase();
  if (await isMemberAddress(projectId, email)) throw errors.conflict("This address already belongs to a member of the project.");
  await consumeInvitationQuota(userId, email);

  const token = generateInvitationToken();
  const now = new Date();
  const { invitation, projectName, inviter } = await transaction("invitation", async (tx) => {
    await tx.invitation.updateMany({ where: { projectId, email, ...pending(now) }, data: { revokedAt: now } });
    const invitation = await tx.invitation.create({
      data: { projectId, email, role: input.role, tokenHash: sha256Hex(token), invitedById: userId, expiresAt: new Date(now.getTime() + INVITATION_LIFETIME_MS) },
      select: { id: true, email: true, role: true, createdAt: true, expiresAt: true, project: { select: { name: true } }, invitedBy: inviterSelect },
    });
    return { invitation, projectName: invitation.project.name, inviter: invitation.invitedBy };
  });

  const inviteUrl = `${baseUrl.replace(/\/+$/, "")}/invitations/${token}`;
  let emailSent = false;
  if (settings().mail.server) {
    try {
      await sendInvitationEmail({ to: email, projectName, role: invitation.role, invitedBy: inviter.name ?? inviter.email, url: inviteUrl, expiresAt: invitation.expiresAt });
      emailSent = true;
    } catch (error) {
      // The invitation stands; the owner can pass the link on by hand.
      logger.warn("invitation email not sent", { invitationId: invitation.id, error: error instanceof Error ? error.message : String(error) });
    }
  }
  return {
    id: invitation.id,
    email: invitation.email,
    role: invitation.role,
    createdAt: invitation.createdAt.toISOString(),
    expiresAt: invitation.expiresAt.toISOString(),
    inviteUrl,
    emailSent,
  };
}

/** A project's pending invitations (owners only). */
export async function listProjectInvitations(access: ProjectAccess): Promise<ProjectInvitation[]> {
  requireOwner(access);
  const rows = await prisma.invitation.findMany({
    where: { projectId: access.projectId, ...pending() },
    orderBy: [{ createdAt: "desc" }, { id: "asc" }],
    select: { id: true, email: true, role: true, createdAt: true, expiresAt: true, invitedBy: inviterSelect },
  });
  return rows.map((r) => ({ ...r, createdAt: r.createdAt.toISOString(), expiresAt: r.expiresAt.toISOString() }));
}

/** Revokes an invitation (owners only); revoking twice is fine, an accepted one is a 409. */
export async function revokeInvitation(access: ProjectAccess, invitationId: string): Promise<void> {
  requireOwner(access);
  const { projectId } = access;
  const invitation = await prisma.invitation.findFirst({ where: { id: invitationId, projectId }, select: { acceptedAt: true, revokedAt: true } });
  if (!invitation) throw errors.notFound("No invitation with this id in this project.");
  if (invitation.acceptedAt) throw errors.conflict("This invitation was already accepted; remove the member instead.");
  if (invitation.revokedAt) return;
  await prisma.invitation.updateMany({ where: { id: invitationId, projectId, acceptedAt: null, revokedAt: null }, data: { revokedAt: new Date() } });
}

/** The caller's pending invitations (by their session's address), except to projects they are already in. */
export async function listPendingInvitationsForUser(user: Invitee): Promise<PendingInvitation[]> {
  const rows = await prisma.invitation.findMany({
    where: { email: user.email.toLowerCase(), ...pending(), project: { memberships: { none: { userId: user.id } } } },
    orderBy: [{ createdAt: "desc" }, { id: "asc" }],
    select: { id: true, projectId: true, role: true, createdAt: true, expiresAt: true, project: { select: { name: true } }, invitedBy: inviterSelect },
  });
  return rows.map((r) => ({
    id: r.id,
    projectId: r.projectId,
    projectName: r.project.name,
    role: r.role,
    createdAt: r.createdAt.toISOString(),
    expiresAt: r.expiresAt.toISOString(),
    invitedBy: r.invitedBy,
  }));
}

/** What the invitation page shows about a token (null: no such invitation). */
export async function getInvitationPreview(token: string, user: Invitee | null): Promise<InvitationPreview | null> {
  const invitation = await prisma.invitation.findUnique({
    where: { tokenHash: sha256Hex(token) },
    select: { email: true, role: true, acceptedAt: true, revokedAt: true, expiresAt: true, project: { select: { name: true } } },
  });
  if (!invitation) return null;
  return {
    email: invitation.email,
    projectName: invitation.project.name,
    role: invitation.role,
    status: statusOf(invitation),
    forThisUser: user ? invitation.email === user.email.toLowerCase() : null,
  };
}

/**
 * Accepts the invitation a token names. The session's address must be the
 * invited one (403 otherwise). Unknown, revoked, expired and already used
 * invitations are all 404 (the detail says which); the token works once.
 */
export async function acceptInvitation(user: Invitee, token: string): Promise<{ projectId: string; role: ProjectRole }> {
  return acceptWhere(user, { tokenHash: sha256Hex(token) });
}

/** The same, by id: for the dashboard's list of the caller's pending invitations. */
export async function acceptInvitationById(user: Invitee, invitationId: string): Promise<{ projectId: string; role: ProjectRole }> {
  return acceptWhere(user, { id: invitationId });
}

/** Why an invitation can no longer be accepted (API detail and invitation page). */
export const INVITATION_UNAVAILABLE: Record<Exclude<InvitationStatus, "pending">, string> = {
  accepted: "This invitation has already been used.",
  revoked: "This invitation was revoked. Ask an owner of the project for a new one.",
  expired: "This invitation has expired. Ask an owner of the project for a new one.",
};

async function acceptWhere(user: Invitee, where: { tokenHash: string } | { id: string }): Promise<{ projectId: string; role: ProjectRole }> {
  const invitation = await prisma.invitation.findUnique({
    where,
    select: { id: true, projectId: true, email: true, role: true, acceptedAt: true, revokedAt: true, expiresAt: true },
  });
  if (!invitation) throw errors.notFound("No such invitation. Check the link, or ask for a new one.");
  if (invitation.email !== user.email.toLowerCase()) {
    throw errors.forbidden("This invitation was sent to a different email address. Sign in with that address to accept it.");
  }

  return transaction("invitation acceptance", async (tx) => {
    const now = new Date();
    // The conditional update is what makes the token single-use under concurrency.
    const { count } = await tx.invitation.updateMany({ where: { id: invitation.id, ...pending(now) }, data: { acceptedAt: now } });
    if (count === 0) {
      const status = statusOf(invitation, now);
      throw errors.notFound(INVITATION_UNAVAILABLE[status === "pending" ? "accepted" : status]);
    }
    // A member invited as owner is promoted; nobody is ever demoted.
    const role = await addOrPromoteMembership(tx, { projectId: invitation.projectId, userId: user.id, role: invitation.role });
    return { projectId: invitation.projectId, role };
  });
}
