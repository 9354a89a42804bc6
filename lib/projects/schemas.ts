import { z } from "zod";
import { idSchema } from "@/lib/http/input";

/** Input schemas of the projects API (generic parsing lives in lib/http/input.ts). */

// Printable text only: no control characters (NUL would even fail in PostgreSQL).
const CONTROL_CHARS = /[\u0000-\u001f\u007f]/;

export const projectNameSchema = z
  .string({ error: "Give the project a name." })
  .trim()
  .min(1, "Give the project a name.")
  .max(100, "A project name has at most 100 characters.")
  .refine((name) => !CONTROL_CHARS.test(name), "A project name cannot contain control characters.");

export const createProjectBodySchema = z.strictObject({ name: projectNameSchema });

export const projectParamsSchema = z.object({ id: idSchema });
export const memberParamsSchema = z.object({ id: idSchema, userId: idSchema });
