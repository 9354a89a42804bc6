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
