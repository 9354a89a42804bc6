import { z } from "zod";
import { CURSOR_MESSAGE, decodeCursor } from "@/lib/events/cursor";
import { EVENT_LEVELS, MAX_TAG_KEY_CHARS, MAX_TAG_VALUE_CHARS, type EventLevel } from "@/lib/events/schema";
import { supportedTime, unixTimestampToMs } from "@/lib/events/time";
import { idSchema, parseInput } from "@/lib/http/input";

/** Filters of the events list (API query string and dashboard URL alike). */
export type EventFilters = {
  /** One level or several (any of them). */
  level?: EventLevel[];
  /** Case-insensitive substring of the message. */
  q?: string;
  /** time >= since. */
  since?: Date;
  /** time < until. */
  until?: Date;
  /** Only the events of this issue. */
  issueId?: string;
  /** Only events with all of these tags (built-in or their own, as the issue's tag breakdown counts them). */
  tag?: TagFilter[];
  /** `nextCursor` of the previous page. */
  cursor?: string;
  /** 1 to MAX_EVENTS_LIMIT, default DEFAULT_EVENTS_LIMIT. */
  limit?: number;
};

export const DEFAULT_EVENTS_LIMIT = 50;
export const MAX_EVENTS_LIMIT = 200;
export const MAX_SEARCH_CHARS = 200;
export const LIMIT_MESSAGE = `Use a whole number from 1 to ${MAX_EVENTS_LIMIT}.`;
export const TIME_MESSAGE =
  "Use an ISO 8601 time with a zone (2024-05-01T12:00:00Z) or a unix timestamp in seconds or milliseconds, in years 0001 to 9999.";

const ISO_TIME = /^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?(?:Z|[+-]\d{2}:?\d{2}))?$/i;

/**
 * A point in time: ISO 8601 (a date, or a date and time with a zone), or a
 * unix timestamp; values of 10^12 and above are milliseconds, smaller ones
 * seconds (the rule of the summary endpoint).
 */
export function parseTimeParam(value: string): Date | null {
  const text = value.trim();
  let ms: number;
  if (/^\d{1,16}$/.test(text)) {
    ms = unixTimestampToMs(Number(text));
  } else if (ISO_TIME.test(text)) {
    ms = Date.parse(text.replace(" ", "T"));
  } else {
    return null;
  }
  return supportedTime(ms);
}

// Each field's schema is exported so that the dashboard's URL parser is built
// from the same rules (with its own fallbacks instead of errors).

export const timeParamSchema = z
  .string()
  .transform((value, ctx) => {
    const date = parseTimeParam(value);
    if (!date) {
      ctx.addIssue({ code: "custom", message: TIME_MESSAGE });
      return z.NEVER;
    }
    return date;
  })
  .describe("ISO 8601 (2024-05-01T12:00:00Z, or a date) or a unix timestamp in seconds, or milliseconds from 10^12 up");

export const levelsParamSchema = z
  .string()
  .transform((value, ctx) => {
    const levels = [...new Set(value.split(",").map((l) => l.trim().toLowerCase()).filter(Boolean))];
    if (levels.length === 0 || levels.some((l) => !(EVENT_LEVELS as readonly string[]).includes(l))) {
      ctx.addIssue({ code: "custom", message: "Use error, warn or info (several separated by commas)." });
      return z.NEVER;
    }
    return levels as EventLevel[];
  })
  .describe("error, warn or info; several separated by commas");

export const searchTextSchema = z
  .string()
  .trim()
  .max(MAX_SEARCH_CHARS, `Search text has at most ${MAX_SEARCH_CHARS} characters.`)
  .refine((q) => !q.includes("\u0000"), "Search text cannot contain NUL characters.")
  .transform((q) => (q ? q : undefined))
  .describe("Case-insensitive text to look for");

/** `tag=key:value`: one tag an event (or an issue's events) must have. */
export type TagFilter = { key: string; value: string };
export const MAX_TAG_FILTERS = 10;
const TAG_FILTER_MESSAGE = `Use key:value (a tag name of 1 to ${MAX_TAG_KEY_CHARS} characters without a colon, a value of 1 to ${MAX_TAG_VALUE_CHARS}).`;

/** `tag` (repeatable): each `key:value`, split at the first colon; at most MAX_TAG_FILTERS. */
export const tagFiltersParamSchema = z
  .union([z.string(), z.array(z.string())])
  .transform((raw, ctx) => {
    const values = Array.isArray(raw) ? raw : [raw];
    if (values.length > MAX_TAG_FILTERS) {
      ctx.addIssue({ code: "custom", message: `Give at most ${MAX_TAG_FILTERS} tag filters.` });
      return z.NEVER;
    }
    const filters: TagFilter[] = [];
    for (const text of values) {
      const colon = text.indexOf(":");
      const key = text.slice(0, colon).trim();
      const value = text.slice(colon + 1).trim();
      if (colon < 1 || key === "" || key.length > MAX_TAG_KEY_CHARS || value === "" || value.length > MAX_TAG_VALUE_CHARS || text.includes("\u0000")) {
        ctx.addIssue({ code: "custom", message: TAG_FILTER_MESSAGE });
        return z.NEVER;
      }
      if (!filters.some((f) => f.key === key && f.value === value)) filters.push({ key, value });
    }
    return filters;
  });

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/** A UUID (event and issue ids), lower-cased. */
export function uuidParamSchema(message: string) {
  return z.string().regex(UUID, message).transform((id) => id.toLowerCase());
}

export const eventParamsSchema = z.object({ id: idSchema, eventId: uuidParamSchema("Not an event id.") });

export const cursorParamSchema = z
  .string()
  .refine((c) => decodeCursor(c) !== null, CURSOR_MESSAGE)
  .describe("nextCursor of the previous page, unchanged");

/** A page size from 1 to `max`: one check and one message, whatever the value. */
export function limitParamSchema(max: number) {
  const message = `Use a whole number from 1 to ${max}.`;
  return z
    .string()
    .transform((value, ctx) => {
      const n = /^\d{1,6}$/.test(value) ? Number(value) : NaN;
      if (!(n >= 1 && n <= max)) {
        ctx.addIssue({ code: "custom", message });
        return z.NEVER;
      }
      return n;
    })
    .describe(`Page size, 1 to ${max}`);
}

export const eventsQuerySchema = z
  .object({
    level: levelsParamSchema.optional(),
    q: searchTextSchema.optional(),
    since: timeParamSchema.optional(),
    until: timeParamSchema.optional(),
    issueId: uuidParamSchema("issueId is not an issue id.").optional(),
    tag: tagFiltersParamSchema.optional(),
    cursor: cursorParamSchema.optional(),
    limit: limitParamSchema(MAX_EVENTS_LIMIT).optional(),
  })
  .refine((f) => !f.since || !f.until || f.since < f.until, { path: ["until"], message: "until must be after since." });

/** Query-string values -> filters, or 400 validation_failed listing every problem. Unknown names are ignored. */
export function parseEventsQuery(query: Record<string, string | string[] | undefined>): EventFilters {
  return parseInput(eventsQuerySchema, query, "query");
}
