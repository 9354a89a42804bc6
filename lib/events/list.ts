import { sql, type Expression, type ExpressionBuilder, type SqlBool } from "kysely";
import { sqlDb, type DB } from "@/lib/db/sql";
import { CURSOR_MESSAGE, decodeCursor, encodeCursor } from "@/lib/events/cursor";
import { DEFAULT_EVENTS_LIMIT, LIMIT_MESSAGE, MAX_EVENTS_LIMIT, TIME_MESSAGE, type EventFilters } from "@/lib/events/filters";
import type { EventLevel, EventUser } from "@/lib/events/schema";
import { supportedTime } from "@/lib/events/time";
import { errors } from "@/lib/http/errors";
import { eventTagValueSql } from "@/lib/events/event-tags";
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
  /** The extension fields (null when absent): what the client or SDK sent. */
  release: string | null;
  environment: string | null;
  tags: Record<string, string> | null;
  user: EventUser | null;
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
  occurred_at: Date | null;
  release: string | null;
  environment: string | null;
  tags: unknown;
  user_info: unknown;
};

const EVENT_COLUMNS = ["id", "project_id", "issue_id", "level", "message", "context", "timestamp", "received_at", "occurred_at", "release", "environment", "tags", "user_info"] as const;

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
    occurredAt: new Date(row.occurred_at!).toISOString(),
    release: row.release,
    environment: row.environment,
    tags: (row.tags ?? null) as Record<string, string> | null,
    user: (row.user_info ?? null) as EventUser | null,
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

/** `text ILIKE pattern` where the pattern escapes with a backslash (escapeLike). */
export function ilike(text: Expression<unknown>, pattern: string) {
  return sql<SqlBool>`${text} ILIKE ${pattern} ESCAPE '\\'`;
}

/**
 * The conditions of a filtered view of a project's events (list, chart):
 * [since, until) on the events' own time, level, text (the message or any
 * value in the context), issue and tags.
 */
export function eventConditions(
  eb: ExpressionBuilder<DB, "events">,
  access: ProjectAccess,
  filters: Pick<EventFilters, "level" | "q" | "issueId" | "since" | "until" | "tag">,
): Expression<SqlBool>[] {
  const conditions: Expression<SqlBool>[] = [eb("project_id", "=", access.projectId)];
  if (filters.since) conditions.push(eb("occurred_at", ">=", filters.since));
  if (filters.until) conditions.push(eb("occurred_at", "<", filters.until));
  const levels = filters.level ?? [];
  if (levels.length > 0) conditions.push(eb("level", "in", levels));
  if (filters.issueId) conditions.push(eb("issue_id", "=", filters.issueId));
  for (const tag of filters.tag ?? []) conditions.push(eb(eventTagValueSql(tag.key), "=", tag.value));
  if (filters.q) {
    const pattern = `%${escapeLike(filters.q)}%`;
    const inContext = sql<SqlBool>`EXISTS (
      SELECT 1 FROM jsonb_path_query(${eb.ref("context")}, 'strict $.**') AS v(value)
      WHERE jsonb_typeof(v.value) IN ('string', 'number', 'boolean') AND ${ilike(sql`(v.value #>> '{}')`, pattern)})`;
    // The context as JSON text holds every value as written, unless the text
    // has a character JSON escapes (a quote, a backslash, a control
    // character): then a match in it is a cheap first test, and the walk over
    // the values (ten times its cost) runs only for the events that pass it.
    const message = ilike(eb.ref("message"), pattern);
    conditions.push(
      JSON_ESCAPED.test(filters.q)
        ? eb.or([message, inContext])
        : eb.or([message, eb.and([ilike(eb.cast(eb.ref("context"), "text"), pattern), inContext])]),
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

  const rows = await sqlDb()
    .selectFrom("events")
    .select(EVENT_COLUMNS)
    .where((eb) => {
      const conditions = eventConditions(eb, access, filters);
      if (position) conditions.push(eb(eb.refTuple("occurred_at", "id"), "<", eb.tuple(position.at, position.id)));
      return eb.and(conditions);
    })
    .orderBy("occurred_at", "desc")
    .orderBy("id", "desc")
    .limit(limit + 1)
    .execute();

  const page = rows.slice(0, limit);
  const last = page.at(-1);
  return {
    events: page.map(toStoredEvent),
    nextCursor: rows.length > limit && last ? encodeCursor({ at: new Date(last.occurred_at!), id: last.id }) : null,
  };
}

/** One event of the project (a permalink), or 404. */
export async function getProjectEvent(access: ProjectAccess, eventId: string): Promise<StoredEvent> {
  const row = await sqlDb().selectFrom("events").select(EVENT_COLUMNS).where("id", "=", eventId).where("project_id", "=", access.projectId).executeTakeFirst();
  if (!row) throw errors.notFound("No event with this id in this project.");
  return toStoredEvent(row);
}
