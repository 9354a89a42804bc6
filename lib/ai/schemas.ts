import { z } from "zod";
import { MAX_TIME_MS, unixTimestampToMs } from "@/lib/events/time";
import { idSchema } from "@/lib/http/input";

export const MAX_SUMMARY_LIMIT = 500;
export const DEFAULT_SUMMARY_LIMIT = 50;

export type SummarizeQuery = { limit: number; since: Date | null; projectId?: string };

const digits = /^\d+$/;
const LIMIT_MESSAGE = `limit must be a whole number from 1 to ${MAX_SUMMARY_LIMIT}`;

/**
 * The query of GET /api/ai/summarize. Values arrive as strings; only plain
 * decimal digits are accepted, so "1e3", "0x10", " 5", "5.0" and "-1" are
 * refused rather than coerced. Unknown parameters are ignored (cache busters).
 */
export const summarizeQuerySchema = z
  .object({
    limit: z
      .string()
      .regex(digits, LIMIT_MESSAGE)
      .transform(Number)
      .pipe(z.number().min(1, LIMIT_MESSAGE).max(MAX_SUMMARY_LIMIT, LIMIT_MESSAGE))
      .describe(`Events to examine, 1 to ${MAX_SUMMARY_LIMIT} (default ${DEFAULT_SUMMARY_LIMIT})`)
      .optional(),
    since: z
      .string()
      .regex(digits, "since must be a non-negative whole unix timestamp, in seconds or (from 10^12 up) milliseconds")
      .transform((value) => unixTimestampToMs(Number(value)))
      .pipe(z.number().max(MAX_TIME_MS, "since must not be after the year 9999"))
      .describe("Unix timestamp (seconds, or milliseconds from 10^12 up): events since then; default the last 24 hours")
      .optional(),
    projectId: z
      .string()
      .pipe(idSchema.or(z.never({ error: "projectId is not a project id" })))
      .describe("One project (default: all of the caller's)")
      .optional(),
  })
  .transform(({ limit, since, projectId }): SummarizeQuery => ({
    limit: limit ?? DEFAULT_SUMMARY_LIMIT,
    since: since === undefined ? null : new Date(since),
    ...(projectId !== undefined ? { projectId } : {}),
  }));
