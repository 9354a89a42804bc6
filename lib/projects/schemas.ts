import { z } from "zod";
import { idSchema } from "@/lib/http/input";
import { ROLES } from "@/lib/auth/roles";

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
export const renameProjectBodySchema = z.strictObject({ name: projectNameSchema });
export const changeRoleBodySchema = z.strictObject({ role: z.enum(ROLES, { error: `role is one of: ${ROLES.join(", ")}.` }) });

export const projectParamsSchema = z.object({ id: idSchema });
export const memberParamsSchema = z.object({ id: idSchema, userId: idSchema });
