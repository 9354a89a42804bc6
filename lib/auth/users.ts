import { expressionBuilder } from "kysely";
import { prisma, type Prisma } from "@/lib/db/client";
import type { DB } from "@/lib/db/sql";

/** Finds or creates a user by email (operator CLI; invitations). */
export async function findOrCreateUserByEmail(email: string): Promise<{ id: string; email: string }> {
  const normalized = email.trim().toLowerCase();
  return prisma.user.upsert({
    where: { email: normalized },
    update: {},
    create: { email: normalized },
    select: { id: true, email: true },
  });
}

/**
 * Takes the user's row lock for the rest of the caller's transaction:
 * serializes what is counted per person (projects owned against
 * MAX_PROJECTS_PER_USER).
 */
export async function lockUser(tx: Prisma.TransactionClient, userId: string): Promise<void> {
  // Prisma has no typed row lock, and a Kysely query cannot join Prisma's transaction.
  // eslint-disable-next-line telltale/no-untyped-sql -- the one statement, fixed text with one bound value
  await tx.$queryRaw`SELECT id FROM users WHERE id = ${userId} FOR UPDATE`;
}

/** The id of the user with this (normalized) address, or null. */
export async function findUserIdByEmail(address: string): Promise<string | null> {
  const user = await prisma.user.findUnique({ where: { email: address }, select: { id: true } });
  return user?.id ?? null;
}

/** Subquery: the user with this (normalized) address, for EXISTS. */
export function userWithEmail(address: string) {
  const eb = expressionBuilder<DB, never>();
  return eb.selectFrom("users").select(eb.lit(1).as("one")).where("email", "=", address);
}

/** Subquery: any user at all, for EXISTS (an instance with none is being set up). */
export function anyUser() {
  const eb = expressionBuilder<DB, never>();
  return eb.selectFrom("users").select(eb.lit(1).as("one"));
}

/** Subquery: a sign-in link not yet expired for an address other than this one, for EXISTS. */
export function liveSignInTokenForOtherAddress(address: string) {
  const eb = expressionBuilder<DB, never>();
  return eb
    .selectFrom("verification_tokens")
    .select(eb.lit(1).as("one"))
    .where("identifier", "<>", address)
    .where("expires", ">", eb.fn<Date>("now"));
}

/** Stores a sign-in link's token (hashed as Auth.js hashes it) for an address, as Auth.js's email provider does (lib/sign-in/operator-link.ts). */
export async function storeSignInToken(identifier: string, tokenHash: string, expires: Date): Promise<void> {
  await prisma.verificationToken.create({ data: { identifier, token: tokenHash, expires } });
}

/** Every user with how many projects they own and belong to, oldest first (the operator's `user list`). */
export async function listUsersWithProjectCounts(): Promise<{ id: string; email: string; name: string | null; createdAt: Date; owns: number; memberOf: number }[]> {
  const rows = await prisma.user.findMany({
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    select: { id: true, email: true, name: true, createdAt: true, memberships: { select: { role: true } } },
  });
  return rows.map(({ memberships, ...user }) => ({ ...user, owns: memberships.filter((m) => m.role === "owner").length, memberOf: memberships.length }));
}

/** Who a user is, as lists of people show them (an assignee, an activity's author). */
export type PersonView = { id: string; email: string; name: string | null };

/** These users by id (those that exist). */
export async function peopleByIds(ids: Iterable<string>): Promise<Map<string, PersonView>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map();
  const rows = await prisma.user.findMany({ where: { id: { in: unique } }, select: { id: true, email: true, name: true } });
  return new Map(rows.map((u) => [u.id, u]));
}
