import { z } from "zod";
import { idSchema } from "@/lib/http/input";
import { ROLES } from "@/lib/auth/roles";
import { allowedOriginsSchema } from "@/lib/projects/allowed-origins";

/** Input schemas of the projects API (generic parsing lives in lib/http/input.ts). */

// Printable text only: no control characters (NUL would even fail in PostgreSQL).
const CONTROL_CHARS = /[\u0000-\u001f\u007f-\u009f]/;
// Invisible formatting characters: direction overrides (U+202E turns
// "gnp.exe" into "exe.png"), zero-width joiners and the like.
const FORMAT_CHARS = /\p{Cf}/u;
// A project's name travels in invitation mails sent from the operator's
// server: it must not be a way to send links.
const LINK_LIKE = /([a-z][a-z0-9+.-]*:\/\/|\bwww\.|@)/i;

export const projectNameSchema = z
  .string({ error: "Give the project a name." })
  .trim()
  .min(1, "Give the project a name.")
  .max(100, "A project name has at most 100 characters.")
  .refine((name) => !CONTROL_CHARS.test(name), "A project name cannot contain control characters.")
  .refine((name) => !FORMAT_CHARS.test(name), "A project name cannot contain invisible formatting characters (such as direction overrides).")
  .refine((name) => !LINK_LIKE.test(name), "A project name cannot contain a link, a web address or an email address.");

export const createProjectBodySchema = z.strictObject({ name: projectNameSchema });
/** PATCH /api/projects/:id: a new name, the allowed origins of the Sentry routes, or both. */
export const updateProjectBodySchema = z
  .strictObject({ name: projectNameSchema.optional(), allowedOrigins: allowedOriginsSchema.optional() })
  .refine((body) => body.name !== undefined || body.allowedOrigins !== undefined, "Give a name, allowedOrigins, or both.");
/** POST /api/projects/:id/key?kind=: which key to rotate (the secret API key unless `public`, the DSN's). */
export const rotateKeyQuerySchema = z.object({
  kind: z.enum(["secret", "public"], { error: "kind is secret (the API key) or public (the DSN's key)." }).default("secret"),
});
export const changeRoleBodySchema = z.strictObject({ role: z.enum(ROLES, { error: `role is one of: ${ROLES.join(", ")}.` }) });

export const projectParamsSchema = z.object({ id: idSchema });
export const memberParamsSchema = z.object({ id: idSchema, userId: idSchema });
