import { z } from "zod";
import { idSchema, ROLES } from "@/lib/projects/schemas";

/** Invitation tokens are 32 random bytes in base64url (43 characters). */
export const invitationTokenSchema = z.string().regex(/^[A-Za-z0-9_-]{43}$/);

export const createInvitationBodySchema = z.strictObject({
  email: z
    .string({ error: "Give the email address to invite." })
    .trim()
    .toLowerCase()
    .max(254, "An email address has at most 254 characters.")
    .pipe(z.email("Not a valid email address.")),
  role: z.enum(ROLES, { error: "Use owner or member." }).default("member"),
});

export const invitationParamsSchema = z.object({ id: idSchema, invitationId: idSchema });
export const tokenParamsSchema = z.object({ token: invitationTokenSchema });
