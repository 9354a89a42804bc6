import { prisma, Prisma } from "@/lib/db/client";
import type { EventLevel } from "@/lib/events/schema";

export type { EventLevel };

/**
 * An event as the summary sees it. Text fields are cut in SQL so that 500
 * events with 256 KiB contexts never reach Node in full; the lengths and the
 * message hash keep grouping and "truncated" notes exact.
 */
export type SelectedEvent = {
  id: string;
  projectId: string;
  projectName: string;
  level: EventLevel;
  /** The first MESSAGE_READ_CHARS characters. */
  message: string;
  messageLength: number;
  /** md5 of the whole message (hex), the grouping key. */
  messageHash: string;
  /** Compact JSON of the context when it fits in CONTEXT_READ_CHARS, else its cut text form; null when absent. */
  contextText: string | null;
  contextLength: number;
  receivedAt: Date;
};

const MESSAGE_READ_CHARS = 1_000;
const CONTEXT_READ_CHARS = 1_000;
/** How far back "new" looks: this many events per project before the examined ones. */
export const NEW_LOOKBACK_EVENTS = 1_000;

type Row = Omit<SelectedEvent, "contextLength"> & { contextLength: number | null };

/**
 * The newest `limit` events received at or after `since` in the projects the
 * user is a member of (or in the one project named, if they are a member of
 * it), newest first. One top-N per project over the (project_id,
 * occurred_at desc, id desc) index, then a merge: ~1 ms on millions of rows,
 * where an IN (...) query sorts every matching row.
 */
export async function selectRecentEvents(
  userId: string,
  options: { limit: number; since: Date | null; projectId?: string },
): Promise<SelectedEvent[]> {
  const since = options.since ?? new Date(0);
  const onlyProject = options.projectId !== undefined ? Prisma.sql`AND m.project_id = ${options.projectId}` : Prisma.empty;
  const rows = await prisma.$queryRaw<Row[]>`
    SELECT e.id::text AS "id",
           e.project_id AS "projectId",
           p.name AS "projectName",
           e.level::text AS "level",
           left(e.message, ${MESSAGE_READ_CHARS}::int) AS "message",
           length(e.message)::int AS "messageLength",
           md5(e.message) AS "messageHash",
           left(e.context::text, ${CONTEXT_READ_CHARS}::int) AS "contextText",
           length(e.context::text)::int AS "contextLength",
           e.occurred_at AS "receivedAt"
    FROM memberships m
    JOIN projects p ON p.id = m.project_id
    CROSS JOIN LATERAL (
      SELECT ev.id, ev.project_id, ev.level, ev.message, ev.context, ev.occurred_at
      FROM events ev
      WHERE ev.project_id = m.project_id AND ev.occurred_at >= ${since}
      ORDER BY ev.occurred_at DESC, ev.id DESC
      LIMIT ${options.limit}::int
    ) e
    WHERE m.user_id = ${userId} ${onlyProject}
    ORDER BY e.occurred_at DESC, e.id DESC
    LIMIT ${options.limit}::int`;
  return rows.map((row) => ({
    ...row,
    contextText: compactContext(row.contextText, row.contextLength ?? 0),
    contextLength: row.contextLength ?? 0,
    receivedAt: new Date(row.receivedAt),
  }));
}

/** jsonb's text form has spaces after ':' and ','; re-serialise it compactly when it is whole. */
function compactContext(text: string | null, fullLength: number): string | null {
  if (text === null) return null;
  if (fullLength > text.length) return text;
  try {
    return JSON.stringify(JSON.parse(text));
  } catch {
    return text;
  }
}

export type GroupKey = { projectId: string; level: EventLevel; messageHash: string };

/**
 * Which (project, level, message) groups were already seen in the
 * NEW_LOOKBACK_EVENTS events of their project received just before `before`
 * (the oldest examined event). A group not returned is "new in this window".
 * Bounded on purpose: an unbounded "ever seen before?" would scan the whole
 * history of a project for every genuinely new message, the very case that
 * matters. Comparison is by length first, then md5, inside PostgreSQL, so
 * no old message text travels to Node.
 */
export async function findPreviouslySeenGroups(
  groups: (GroupKey & { messageLength: number })[],
  before: { receivedAt: Date; id: string },
): Promise<GroupKey[]> {
  if (groups.length === 0) return [];
  const projectIds = [...new Set(groups.map((g) => g.projectId))];
  const hashes = [...new Set(groups.map((g) => g.messageHash))];
  const lengths = [...new Set(groups.map((g) => g.messageLength))];
  return prisma.$queryRaw<GroupKey[]>`
    SELECT DISTINCT o.project_id AS "projectId", o.level::text AS "level", md5(o.message) AS "messageHash"
    FROM unnest(${projectIds}::text[]) AS p(project_id)
    CROSS JOIN LATERAL (
      SELECT ev.project_id, ev.level, ev.message
      FROM events ev
      WHERE ev.project_id = p.project_id
        AND (ev.occurred_at, ev.id) < (${before.receivedAt}, ${before.id}::uuid)
      ORDER BY ev.occurred_at DESC, ev.id DESC
      LIMIT ${NEW_LOOKBACK_EVENTS}::int
    ) o
    WHERE length(o.message) = ANY(${lengths}::int[]) AND md5(o.message) = ANY(${hashes}::text[])`;
}
