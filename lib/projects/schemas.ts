import { z } from "zod";
import { errors, type FieldProblem } from "@/lib/http/errors";

/**
 * Input schemas of the management API, and the two ways a parse fails:
 * a body or query with problems -> 400 `validation_failed` listing all of
 * them; a malformed id in the path -> 404 (no such resource, nothing to fix).
 */

/** Largest JSON body the management API reads. */
export const MANAGEMENT_BODY_LIMIT = 64 * 1024;

export const ROLES = ["owner", "member"] as const;
export type ProjectRole = (typeof ROLES)[number];

// Printable text only: no control characters (NUL would even fail in PostgreSQL).
const CONTROL_CHARS = /[\u0000-\u001f\u007f]/;

export const projectNameSchema = z
  .string({ error: "Give the project a name." })
  .trim()
  .min(1, "Give the project a name.")
  .max(100, "A project name has at most 100 characters.")
  .refine((name) => !CONTROL_CHARS.test(name), "A project name cannot contain control characters.");

export const createProjectBodySchema = z.strictObject({ name: projectNameSchema });

/** Ids made by the database (cuid) or the CLI: letters, digits, `_` and `-`. */
export const idSchema = z.string().regex(/^[A-Za-z0-9_-]{1,100}$/);

export const projectParamsSchema = z.object({ id: idSchema });
export const memberParamsSchema = z.object({ id: idSchema, userId: idSchema });

/** Maps zod issues to `{path, message}`; an unknown key is reported at its own path. */
export function zodProblems(issues: readonly z.core.$ZodIssue[], root: string): FieldProblem[] {
  const problems: FieldProblem[] = [];
  for (const issue of issues) {
    const base = issue.path.map(String).join(".");
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) problems.push({ path: base ? `${base}.${key}` : key, message: "Unknown field." });
    } else {
      problems.push({ path: base || root, message: issue.message });
    }
  }
  return problems;
}

/** A request body or query: 400 `validation_failed` listing every problem. */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, root = "body"): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw errors.validation(zodProblems(result.error.issues, root));
  return result.data;
}

/** Path parameters: an id that can't exist is simply not found. */
export function parsePathParams<S extends z.ZodType>(schema: S, params: unknown, detail = "Not found."): z.output<S> {
  const result = schema.safeParse(params);
  if (!result.success) throw errors.notFound(detail);
  return result.data;
}

/** Query string as a plain object (the first value of each name). */
export function queryObject(request: Request): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of new URL(request.url).searchParams) if (!(key in out)) out[key] = value;
  return out;
}
