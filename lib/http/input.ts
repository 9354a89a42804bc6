import { z } from "zod";
import { errors, type FieldProblem } from "@/lib/http/errors";

/**
 * Request input (path, query, body) through zod, and the two ways a parse
 * fails: a body or query with problems -> 400 `validation_failed` listing all
 * of them; a malformed id in the path -> 404 (no such resource, nothing to fix).
 */

/** Largest JSON body the management API reads. */
export const MANAGEMENT_BODY_LIMIT = 64 * 1024;

/** Longest id any table uses (cuid, UUID, CLI-made ids): one bound for path, query and body. */
export const MAX_ID_CHARS = 100;

/** Ids made by the database (cuid, UUID) or the CLI: letters, digits, `_` and `-`. */
export const idSchema = z.string().regex(new RegExp(`^[A-Za-z0-9_-]{1,${MAX_ID_CHARS}}$`));

function joinPath(prefix: string, path: readonly PropertyKey[]): string {
  return [prefix, ...path.map(String)].filter((part) => part !== "").join(".");
}

/**
 * The one mapper from zod issues to `{path, message}` problems. An unknown key
 * is reported at its own path; `prefix` nests everything (`events.3`); `root`
 * names an issue about the whole value.
 */
export function zodProblems(issues: readonly z.core.$ZodIssue[], { prefix = "", root = "" }: { prefix?: string; root?: string } = {}): FieldProblem[] {
  const problems: FieldProblem[] = [];
  for (const issue of issues) {
    const base = joinPath(prefix, issue.path);
    if (issue.code === "unrecognized_keys") {
      for (const key of issue.keys) problems.push({ path: joinPath(base, [key]), message: "Unknown field." });
    } else {
      problems.push({ path: base || root, message: issue.message });
    }
  }
  return problems;
}

/**
 * A request body or query: 400 `validation_failed` listing every problem,
 * with those reading the body already found (`earlier`: duplicate keys, inexact numbers).
 */
export function parseInput<S extends z.ZodType>(schema: S, value: unknown, root = "body", earlier: FieldProblem[] = []): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success || earlier.length > 0) {
    throw errors.validation([...earlier, ...(result.success ? [] : zodProblems(result.error.issues, { root }))]);
  }
  return result.data;
}

/** Path parameters: an id that can't exist is simply not found. */
export function parsePathParams<S extends z.ZodType>(schema: S, params: unknown, detail = "Not found."): z.output<S> {
  const result = schema.safeParse(params);
  if (!result.success) throw errors.notFound(detail);
  return result.data;
}

/** Parameters that may be given more than once (`tag=a:1&tag=b:2`): always read as a list. */
const REPEATABLE_QUERY_PARAMS = new Set(["tag"]);

/**
 * Query string as a plain object. A name given twice is refused (400) rather
 * than silently read one way or the other, except the repeatable ones,
 * which are read as lists.
 */
export function queryObject(request: Request | URL | URLSearchParams): Record<string, string | string[]> {
  const params = request instanceof URLSearchParams ? request : (request instanceof URL ? request : new URL(request.url)).searchParams;
  const out: Record<string, string | string[]> = {};
  const repeated: FieldProblem[] = [];
  for (const [key, value] of params) {
    if (REPEATABLE_QUERY_PARAMS.has(key)) {
      const values = out[key];
      if (Array.isArray(values)) values.push(value);
      else out[key] = [value];
      continue;
    }
    if (key in out) {
      if (!repeated.some((p) => p.path === key)) repeated.push({ path: key, message: `Give ${key} at most once.` });
      continue;
    }
    out[key] = value;
  }
  if (repeated.length > 0) throw errors.validation(repeated);
  return out;
}

/** The optional Idempotency-Key header of the ingest routes. */
export const idempotencyKeySchema = z.string().regex(/^[\x20-\x7e]{1,200}$/);

/** The optional Idempotency-Key header (1 to 200 printable ASCII characters), or 400. */
export function idempotencyKeyOf(request: Request): string | undefined {
  const header = request.headers.get("idempotency-key");
  if (header === null) return undefined;
  if (!idempotencyKeySchema.safeParse(header).success) {
    throw errors.validation([{ path: "Idempotency-Key", message: "Must be 1 to 200 printable ASCII characters." }]);
  }
  return header;
}

/** Form fields as a plain object of strings (files are not accepted by any form). */
export function formObject(input: FormData | Record<string, string>): Record<string, string> {
  if (!(input instanceof FormData)) return { ...input };
  const out: Record<string, string> = {};
  for (const [key, value] of input) if (typeof value === "string" && !key.startsWith("$ACTION")) out[key] = value;
  return out;
}
