import { prisma, Prisma } from "@/lib/db/client";
import { CURSOR_MESSAGE, decodeCursor, encodeCursor } from "@/lib/events/cursor";
import { DEFAULT_EVENTS_LIMIT, LIMIT_MESSAGE, MAX_EVENTS_LIMIT, TIME_MESSAGE, type EventFilters } from "@/lib/events/filters";
import type { EventLevel } from "@/lib/events/schema";
import { supportedTime } from "@/lib/events/time";
import { errors } from "@/lib/http/errors";
import type { ProjectAccess } from "@/lib/auth/access";

/**
 * A stored event as the management API and the dashboard show it (times in
 * ISO 8601): the SPEC's fields, plus `occurredAt` (the event's time) and
 * `issueId`.
 */
export type StoredEvent = {
  id: string;
  projectId: string;
  issueId: string | null;
  level: EventLevel;
  message: string;
  context: Record<string, unknown> | null;
  /** As the client sent it; null when it sent none. */
  timestamp: string | null;
  receivedAt: string;
  occurredAt: string;
};

/** A row of the events table as SQL reads it. */
type EventRecord = {
  id: string;
  project_id: string;
  issue_id: string | null;
  level: EventLevel;
  message: string;
  context: unknown;
  timestamp: Date | null;
  received_at: Date;
  occurred_at: Date;
};

const EVENT_COLUMNS = Prisma.sql`id::text AS id, project_id, issue_id::text AS issue_id, level::text AS level, message, context, timestamp, received_at, occurred_at`;

function toStoredEvent(row: EventRecord): StoredEvent {
  return {
    id: row.id,
    projectId: row.project_id,
    issueId: row.issue_id,
    level: row.level,
    message: row.message,
    context: (row.context ?? null) as Record<string, unknown> | null,
    timestamp: row.timestamp ? new Date(row.timestamp).toISOString() : null,
    receivedAt: new Date(row.received_at).toISOString(),
    occurredAt: new Date(row.occurred_at).toISOString(),
  };
}

// Characters that jsonb's text form writes escaped.
const JSON_ESCAPED = /["\\\u0000-\u001f]/;

/** `%`, `_` and `\` match themselves in a LIKE pattern once escaped. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`);
}

/** Callers that build Dates themselves (the dashboard) get a 400 too, never a database error. */
export function assertSupportedTimes(times: { since?: Date; until?: Date }): void {
  const problems = (["since", "until"] as const)
    .filter((name) => times[name] !== undefined && !supportedTime(times[name]!.getTime()))
    .map((path) => ({ path, message: TIME_MESSAGE }));
  if (problems.length > 0) throw errors.validation(problems);
}

/** [since, until) on the events' own time. */
export function timeBounds(since?: Date, until?: Date): Prisma.Sql[] {
  const conditions: Prisma.Sql[] = [];
  if (since) conditions.push(Prisma.sql`occurred_at >= ${since.toISOString()}::timestamptz`);
  if (until) conditions.push(Prisma.sql`occurred_at < ${until.toISOString()}::timestamptz`);
  return conditions;
}

/**
 * The conditions of a filtered view of a project's events (list, chart):
 * level, text (the message or any value in the context) and issue.
 */
export function eventConditions(access: ProjectAccess, filters: Pick<EventFilters, "level" | "q" | "issueId" | "since" | "until">): Prisma.Sql[] {
  const conditions: Prisma.Sql[] = [Prisma.sql`project_id = ${access.projectId}`, ...timeBounds(filters.since, filters.until)];
  const levels = filters.level ?? [];
  if (levels.length > 0) conditions.push(Prisma.sql`level IN (${Prisma.join(levels.map((l) => Prisma.sql`${l}::event_level`))})`);
  if (filters.issueId) conditions.push(Prisma.sql`issue_id = ${filters.issueId}::uuid`);
  if (filters.q) {
    const pattern = `%${escapeLike(filters.q)}%`;
    const inContext = Prisma.sql`EXISTS (
      SELECT 1 FROM jsonb_path_query(context, 'strict $.**') AS v(value)
      WHERE jsonb_typeof(v.value) IN ('string', 'number', 'boolean') AND (v.value #>> '{}') ILIKE ${pattern} ESCAPE '\\')`;
    // The context as JSON text holds every value as written, unless the text
    // has a character JSON escapes (a quote, a backslash, a control
    // character): then a match in it is a cheap first test, and the walk over
    // the values (ten times its cost) runs only for the events that pass it.
    conditions.push(
      JSON_ESCAPED.test(filters.q)
        ? Prisma.sql`(message ILIKE ${pattern} ESCAPE '\\' OR ${inContext})`
        : Prisma.sql`(message ILIKE ${pattern} ESCAPE '\\' OR (context::text ILIKE ${pattern} ESCAPE '\\' AND ${inContext}))`,
    );
  }
  return conditions;
}

/**
 * One page of a project's events, newest first by (occurredAt, id).
 * Keyset pagination: `nextCursor` is null on the last page, and a page never
 * repeats or skips an event that existed when the first page was read.
 */
export async function listProjectEvents(access: ProjectAccess, filters: EventFilters = {}): Promise<{ events: StoredEvent[]; nextCursor: string | null }> {
  const limit = filters.limit ?? DEFAULT_EVENTS_LIMIT;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_EVENTS_LIMIT) {
    throw errors.validation([{ path: "limit", message: LIMIT_MESSAGE }]);
  }
  assertSupportedTimes(filters);
  const position = filters.cursor === undefined ? undefined : decodeCursor(filters.cursor);
  if (position === null) throw errors.validation([{ path: "cursor", message: CURSOR_MESSAGE }]);

  const conditions = eventConditions(access, filters);
  if (position) {
    conditions.push(Prisma.sql`(occurred_at, id) < (${position.at.toISOString()}::timestamptz, ${position.id}::uuid)`);
  }

  const rows = await prisma.$queryRaw<EventRecord[]>`
    SELECT ${EVENT_COLUMNS}
    FROM events
    WHERE ${Prisma.join(conditions, " AND ")}
    ORDER BY occurred_at DESC, id DESC
    LIMIT ${limit + 1}`;

  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    events: page.map(toStoredEvent),
    nextCursor: rows.length > limit && last ? encodeCursor({ at: new Date(last.occurred_at), id: last.id }) : null,
  };
}

/** One event of the project (a permalink), or 404. */
export async function getProjectEvent(access: ProjectAccess, eventId: string): Promise<StoredEvent> {
  const rows = await prisma.$queryRaw<EventRecord[]>`
    SELECT ${EVENT_COLUMNS} FROM events WHERE id = ${eventId}::uuid AND project_id = ${access.projectId}`;
  if (rows.length === 0) throw errors.notFound("No event with this id in this project.");
  return toStoredEvent(rows[0]!);
}

/** Whether the project has received any event at all (the dashboard's first-event help). */
export async function projectHasEvents(access: ProjectAccess): Promise<boolean> {
  const rows = await prisma.$queryRaw<unknown[]>`SELECT 1 FROM issues WHERE project_id = ${access.projectId} LIMIT 1`;
  return rows.length > 0;
}

/**
 * Events received per project, for the given projects (the caller's own
 * list): the sum of their issues' totals, which retention leaves intact.
 */
export async function countEventsByProject(projectIds: string[]): Promise<Map<string, number>> {
  if (projectIds.length === 0) return new Map();
  const rows = await prisma.$queryRaw<{ project_id: string; n: bigint | number }[]>`
    SELECT project_id, sum(count) AS n FROM issues WHERE project_id = ANY(${projectIds}::text[]) GROUP BY project_id`;
  return new Map(rows.map((r) => [r.project_id, Number(r.n)]));
}
