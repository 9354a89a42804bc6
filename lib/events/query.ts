import { z } from "zod";
import { prisma, Prisma } from "@/lib/db/client";
import { errors } from "@/lib/http/errors";
import { requireProjectRole } from "@/lib/projects/access";
import { parseInput } from "@/lib/projects/schemas";
import { EVENT_LEVELS, type EventLevel } from "@/lib/events/schema";
import { supportedTime, unixTimestampToMs } from "@/lib/events/time";

export { supportedTime };

export { EVENT_LEVELS, type EventLevel };

/** An event as the management API and the dashboard show it (times in ISO 8601). */
export type StoredEvent = {
  id: string;
  projectId: string;
  level: EventLevel;
  message: string;
  context: Record<string, unknown> | null;
  timestamp: string | null;
  receivedAt: string;
};

export type EventFilters = {
  /** One level or several (any of them). */
  level?: EventLevel | EventLevel[];
  /** Case-insensitive substring of the message. */
  q?: string;
  /** receivedAt >= since. */
  since?: Date;
  /** receivedAt < until. */
  until?: Date;
  /** `nextCursor` of the previous page. */
  cursor?: string;
  /** 1 to 200, default 50. */
  limit?: number;
};

export const DEFAULT_EVENTS_LIMIT = 50;
export const MAX_EVENTS_LIMIT = 200;
const LIMIT_MESSAGE = `Use a whole number from 1 to ${MAX_EVENTS_LIMIT}.`;
const TIME_MESSAGE = "Use an ISO 8601 time with a zone (2024-05-01T12:00:00Z) or a unix timestamp in seconds or milliseconds, in years 0001 to 9999.";

// ---------------------------------------------------------------------------
// Cursor: where the previous page stopped, in the sort order (receivedAt desc,
// id desc). Opaque to clients: base64url of "v1.<receivedAt ms>.<event id>".

type CursorPosition = { receivedAt: Date; id: string };
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function encodeCursor(position: CursorPosition): string {
  return Buffer.from(`v1.${position.receivedAt.getTime()}.${position.id}`, "utf8").toString("base64url");
}

/** The position a cursor names, or null when it is not one of ours. */
export function decodeCursor(cursor: string): CursorPosition | null {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(cursor)) return null;
  const match = /^v1\.(\d{1,15})\.([0-9a-f-]{36})$/.exec(Buffer.from(cursor, "base64url").toString("utf8"));
  if (!match || !UUID.test(match[2]!)) return null;
  const receivedAt = supportedTime(Number(match[1]));
  return receivedAt ? { receivedAt, id: match[2]! } : null;
}

// ---------------------------------------------------------------------------
// Query-string parsing (shared by the API route and the dashboard's events page)

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

const timeParam = z.string().transform((value, ctx) => {
  const date = parseTimeParam(value);
  if (!date) {
    ctx.addIssue({ code: "custom", message: TIME_MESSAGE });
    return z.NEVER;
  }
  return date;
});

export const eventsQuerySchema = z
  .object({
    level: z
      .string()
      .transform((value, ctx) => {
        const levels = [...new Set(value.split(",").map((l) => l.trim().toLowerCase()).filter(Boolean))];
        if (levels.length === 0 || levels.some((l) => !(EVENT_LEVELS as readonly string[]).includes(l))) {
          ctx.addIssue({ code: "custom", message: "Use error, warn or info (several separated by commas)." });
          return z.NEVER;
        }
        return levels as EventLevel[];
      })
      .optional(),
    q: z
      .string()
      .trim()
      .max(200, "Search text has at most 200 characters.")
      .refine((q) => !q.includes("\u0000"), "Search text cannot contain NUL characters.")
      .optional()
      .transform((q) => (q ? q : undefined)),
    since: timeParam.optional(),
    until: timeParam.optional(),
    cursor: z
      .string()
      .refine((c) => decodeCursor(c) !== null, "Not a valid cursor: pass nextCursor from a previous answer unchanged.")
      .optional(),
    // One check and one message, whatever the value (zod's own int() check
    // would answer "Too big: expected int to be <=9007199254740991").
    limit: z
      .string()
      .transform((value, ctx) => {
        const n = /^\d{1,6}$/.test(value) ? Number(value) : NaN;
        if (!(n >= 1 && n <= MAX_EVENTS_LIMIT)) {
          ctx.addIssue({ code: "custom", message: LIMIT_MESSAGE });
          return z.NEVER;
        }
        return n;
      })
      .optional(),
  })
  .refine((f) => !f.since || !f.until || f.since < f.until, { path: ["until"], message: "until must be after since." });

/** Query-string values -> filters, or 400 validation_failed listing every problem. Unknown names are ignored. */
export function parseEventsQuery(query: Record<string, string | undefined>): EventFilters {
  return parseInput(eventsQuerySchema, query, "query");
}

// ---------------------------------------------------------------------------

/** `%`, `_` and `\` match themselves in a LIKE pattern once escaped. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

type EventRow = {
  id: string;
  project_id: string;
  level: EventLevel;
  message: string;
  context: unknown;
  timestamp: Date | null;
  received_at: Date;
};

function toStoredEvent(row: EventRow): StoredEvent {
  return {
    id: row.id,
    projectId: row.project_id,
    level: row.level,
    message: row.message,
    context: (row.context ?? null) as Record<string, unknown> | null,
    timestamp: row.timestamp ? new Date(row.timestamp).toISOString() : null,
    receivedAt: new Date(row.received_at).toISOString(),
  };
}

/** Callers that build Dates themselves (the dashboard) get a 400 too, never a database error. */
function assertSupportedTimes(times: { since?: Date; until?: Date }): void {
  const problems = (["since", "until"] as const)
    .filter((name) => times[name] !== undefined && !supportedTime(times[name]!.getTime()))
    .map((path) => ({ path, message: TIME_MESSAGE }));
  if (problems.length > 0) throw errors.validation(problems);
}

function timeBounds(since?: Date, until?: Date): Prisma.Sql[] {
  const conditions: Prisma.Sql[] = [];
  if (since) conditions.push(Prisma.sql`received_at >= ${since.toISOString()}::timestamptz`);
  if (until) conditions.push(Prisma.sql`received_at < ${until.toISOString()}::timestamptz`);
  return conditions;
}

/**
 * One page of a project's events, newest first by (receivedAt, id), for its
 * members only (others: 404). Keyset pagination: `nextCursor` is null on the
 * last page, and a page never repeats or skips an event that existed when the
 * first page was read.
 */
export async function listProjectEvents(
  userId: string,
  projectId: string,
  filters: EventFilters = {},
): Promise<{ events: StoredEvent[]; nextCursor: string | null }> {
  const limit = filters.limit ?? DEFAULT_EVENTS_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_EVENTS_LIMIT) {
    throw errors.validation([{ path: "limit", message: LIMIT_MESSAGE }]);
  }
  assertSupportedTimes(filters);
  const position = filters.cursor === undefined ? undefined : decodeCursor(filters.cursor);
  if (position === null) throw errors.validation([{ path: "cursor", message: "Not a valid cursor: pass nextCursor from a previous answer unchanged." }]);

  await requireProjectRole(userId, projectId);

  const conditions: Prisma.Sql[] = [Prisma.sql`project_id = ${projectId}`, ...timeBounds(filters.since, filters.until)];
  const levels = filters.level === undefined ? [] : [filters.level].flat();
  if (levels.length > 0) conditions.push(Prisma.sql`level IN (${Prisma.join(levels.map((l) => Prisma.sql`${l}::event_level`))})`);
  if (filters.q) conditions.push(Prisma.sql`message ILIKE ${`%${escapeLike(filters.q)}%`} ESCAPE '\\'`);
  if (position) {
    conditions.push(Prisma.sql`(received_at, id) < (${position.receivedAt.toISOString()}::timestamptz, ${position.id}::uuid)`);
  }

  const rows = await prisma.$queryRaw<EventRow[]>`
    SELECT id::text AS id, project_id, level::text AS level, message, context, timestamp, received_at
    FROM events
    WHERE ${Prisma.join(conditions, " AND ")}
    ORDER BY received_at DESC, id DESC
    LIMIT ${limit + 1}`;

  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    events: page.map(toStoredEvent),
    nextCursor: rows.length > limit && last ? encodeCursor({ receivedAt: new Date(last.received_at), id: last.id }) : null,
  };
}

// ---------------------------------------------------------------------------
// Histogram for the dashboard's chart

export type HistogramBucket = { bucket: string; error: number; warn: number; info: number };

const BUCKET_SIZES_MS = [60_000, 5 * 60_000, 15 * 60_000, 3_600_000, 6 * 3_600_000, 86_400_000, 7 * 86_400_000];
const MAX_BUCKETS = 120;

/** The smallest bucket size that keeps a range under MAX_BUCKETS buckets. */
export function histogramBucketMs(rangeMs: number): number {
  return BUCKET_SIZES_MS.find((size) => rangeMs / size <= MAX_BUCKETS) ?? Math.ceil(rangeMs / MAX_BUCKETS);
}

/**
 * Event counts per level in equal time buckets over [since, until) by
 * receivedAt (default: the last 24 hours), empty buckets included, for the
 * project's members only (others: 404). Buckets are aligned to the unix epoch.
 */
export async function eventHistogram(
  userId: string,
  projectId: string,
  { since, until }: { since?: Date; until?: Date } = {},
): Promise<HistogramBucket[]> {
  const end = until ?? new Date();
  const start = since ?? new Date(end.getTime() - 86_400_000);
  assertSupportedTimes({ since: start, until: end });
  if (start >= end) throw errors.validation([{ path: "until", message: "until must be after since." }]);
  await requireProjectRole(userId, projectId);

  const size = histogramBucketMs(end.getTime() - start.getTime());
  const first = Math.floor(start.getTime() / size) * size;
  const rows = await prisma.$queryRaw<{ bucket_ms: bigint | number; level: EventLevel; n: bigint | number }[]>`
    SELECT (floor(extract(epoch FROM received_at) * 1000 / ${size}) * ${size})::bigint AS bucket_ms, level::text AS level, count(*)::bigint AS n
    FROM events
    WHERE project_id = ${projectId} AND ${Prisma.join(timeBounds(start, end), " AND ")}
    GROUP BY 1, 2`;

  const buckets = new Map<number, HistogramBucket>();
  for (let t = first; t < end.getTime(); t += size) buckets.set(t, { bucket: new Date(t).toISOString(), error: 0, warn: 0, info: 0 });
  for (const row of rows) {
    const bucket = buckets.get(Number(row.bucket_ms));
    if (bucket) bucket[row.level] = Number(row.n);
  }
  return [...buckets.values()];
}
