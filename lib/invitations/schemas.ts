import { randomBytes } from "node:crypto";
import { z } from "zod";
import { idSchema } from "@/lib/http/input";
import { ROLES } from "@/lib/auth/roles";

/** Invitation tokens are 32 random bytes in base64url (43 characters); only their SHA-256 is stored. */
export const invitationTokenSchema = z.string().regex(/^[A-Za-z0-9_-]{43}$/);

export function generateInvitationToken(): string {
  return randomBytes(32).toString("base64url");
}

export const emailSchema = z
  .string({ error: "Give an email address." })
  .trim()
  .toLowerCase()
  .max(254, "An email address has at most 254 characters.")
  .pipe(z.email("Not a valid email address."));

export const createInvitationBodySchema = z.strictObject({
  email: emailSchema,
  role: z.enum(ROLES, { error: "Use owner or member." }).default("member"),
});

export const invitationParamsSchema = z.object({ id: idSchema, invitationId: idSchema });
export const tokenParamsSchema = z.object({ token: invitationTokenSchema });
