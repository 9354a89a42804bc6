import { z } from "zod";
import { errors, type FieldProblem } from "@/lib/http/errors";
import { MAX_TIME_MS, unixTimestampToMs } from "@/lib/events/time";

export const MAX_SUMMARY_LIMIT = 500;
export const DEFAULT_SUMMARY_LIMIT = 50;

export type SummarizeQuery = { limit: number; since: Date | null; projectId?: string };

const digits = /^\d+$/;

// Query values arrive as strings; only plain decimal digits are accepted, so
// "1e3", "0x10", " 5", "5.0" and "-1" are all rejected rather than coerced.
const querySchema = z.object({
  limit: z
    .string()
    .regex(digits, `limit must be a whole number from 1 to ${MAX_SUMMARY_LIMIT}`)
    .transform(Number)
    .pipe(
      z
        .number()
        .min(1, `limit must be a whole number from 1 to ${MAX_SUMMARY_LIMIT}`)
        .max(MAX_SUMMARY_LIMIT, `limit must be a whole number from 1 to ${MAX_SUMMARY_LIMIT}`),
    )
    .optional(),
  since: z
    .string()
    .regex(digits, "since must be a non-negative whole unix timestamp, in seconds or (from 10^12 up) milliseconds")
    .transform((value) => unixTimestampToMs(Number(value)))
    .pipe(z.number().max(MAX_TIME_MS, "since must not be after the year 9999"))
    .optional(),
  projectId: z.string().min(1, "projectId must not be empty").max(200, "projectId is too long").optional(),
});

type QueryKey = keyof z.input<typeof querySchema>;
const KEYS: QueryKey[] = ["limit", "since", "projectId"];

/**
 * Parses the query of GET /api/ai/summarize; every problem is reported at
 * once as a 400 validation_failed. Unknown parameters are ignored (cache
 * busters and the like), a known one given twice is an error.
 */
export function parseSummarizeQuery(params: URLSearchParams): SummarizeQuery {
  const problems: FieldProblem[] = [];
  const input: Partial<Record<QueryKey, string>> = {};
  for (const key of KEYS) {
    const values = params.getAll(key);
    if (values.length > 1) problems.push({ path: key, message: `${key} must be given at most once` });
    else if (values.length === 1) input[key] = values[0];
  }

  const parsed = querySchema.safeParse(input);
  if (!parsed.success) {
    for (const issue of parsed.error.issues) {
      const path = issue.path.map(String).join(".");
      if (!problems.some((p) => p.path === path)) problems.push({ path, message: issue.message });
    }
  }
  if (problems.length > 0 || !parsed.success) throw errors.validation(problems);

  const { limit, since, projectId } = parsed.data;
  return {
    limit: limit ?? DEFAULT_SUMMARY_LIMIT,
    since: since === undefined ? null : new Date(since),
    ...(projectId !== undefined ? { projectId } : {}),
  };
}
