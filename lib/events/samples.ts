/**
 * The reads of the events table that summaries and window counts make:
 * bounded probes of the events' indexes, never a scan of a window. Counts
 * come from the count tables (lib/issues/window-counts.ts); only the
 * partial minutes at a window's edges are counted here.
 */
import { sql, type SelectQueryBuilder } from "kysely";
import { sqlDb, type DB } from "@/lib/db/sql";
import { lastEventAt } from "@/lib/events/last-event";
import type { EventLevel } from "@/lib/events/schema";
import { epochMs, inRanges, textArray, uuidArray, type PieceCountRow, type Range } from "@/lib/issues/window-counts";

/**
 * Events per issue and level within `ranges` (partial minutes at a window's
 * edges), negated when `sign` is -1: rows shaped like the count tables' for
 * windowCountsQuery's union.
 */
export function eventCountsQuery(options: { projectIds: string[]; ranges: Range[]; sign: 1 | -1; issueIds?: string[] }): SelectQueryBuilder<DB, "events", PieceCountRow> {
  let query = sqlDb()
    .selectFrom("events")
    .select([
      sql<string>`issue_id`.as("issue_id"),
      "level",
      (options.sign === 1 ? sql<number>`count(*)::int` : sql<number>`-count(*)::int`).as("n"),
    ])
    .where("project_id", "=", (eb) => eb.fn.any(textArray(options.projectIds)))
    .where("issue_id", "is not", null)
    .where((eb) => inRanges(eb, "occurred_at", options.ranges));
  if (options.issueIds) query = query.where("issue_id", "=", (eb) => eb.fn.any(uuidArray(options.issueIds!)));
  return query.groupBy(["issue_id", "level"]) as SelectQueryBuilder<DB, "events", PieceCountRow>;
}

/** The time of each project's latest event (null when it has none), as lastEventAt. */
export async function latestEventTimes(projectIds: string[]): Promise<Map<string, Date | null>> {
  if (projectIds.length === 0) return new Map();
  const rows = await sqlDb()
    .selectFrom(sql<{ id: string }>`unnest(${textArray(projectIds)})`.as<"p">(sql`p(id)`))
    .select((eb) => ["p.id", lastEventAt(eb.ref("p.id")).as("last")])
    .execute();
  return new Map(rows.map((r) => [r.id, r.last ? new Date(r.last) : null]));
}

/** The first event at or after `since` of each issue (one index probe each); issues with none are absent. */
export async function firstEventsSince(issueIds: string[], since: Date): Promise<Map<string, Date>> {
  if (issueIds.length === 0) return new Map();
  const rows = await sqlDb()
    .selectFrom(sql<{ id: string }>`unnest(${uuidArray(issueIds)})`.as<"i">(sql`i(id)`))
    .crossJoinLateral((eb) =>
      eb
        .selectFrom("events")
        .select(epochMs("occurred_at").as("first"))
        .where("issue_id", "=", eb.ref("i.id"))
        .where("occurred_at", ">=", since)
        .orderBy("occurred_at", "asc")
        .limit(1)
        .as("f"),
    )
    .select([sql<string>`i.id::text`.as("issue_id"), "f.first"])
    .execute();
  return new Map(rows.map((r) => [r.issue_id, new Date(r.first)]));
}

/** An event read for a summary: text cut in SQL, so a 256 KiB context is never read whole. */
export type SampledEvent = {
  id: string;
  issueId: string;
  projectId: string;
  level: EventLevel;
  occurredAt: Date;
  /** The first `messageChars` characters, and the full length. */
  message: string;
  messageLength: number;
  /** The context's JSON text, cut to `contextChars`; null when absent. */
  contextText: string | null;
  contextLength: number;
};

/**
 * The newest `count` events of each issue at or after `since` (a lateral
 * probe of the (issue, occurred_at) index per issue), newest first within
 * an issue; the caller orders across issues.
 */
export async function newestEventsOfIssues(
  quotas: { issueId: string; count: number }[],
  since: Date,
  cut: { messageChars: number; contextChars: number },
): Promise<SampledEvent[]> {
  const wanted = quotas.filter((q) => q.count > 0);
  if (wanted.length === 0) return [];
  const rows = await sqlDb()
    .selectFrom(
      sql<{ issue_id: string; n: number }>`unnest(${uuidArray(wanted.map((q) => q.issueId))}, ${sql.val(wanted.map((q) => q.count))}::int[])`.as<"q">(sql`q(issue_id, n)`),
    )
    .crossJoinLateral((eb) =>
      eb
        .selectFrom("events as ev")
        .select([
          sql<string>`ev.id::text`.as("id"),
          sql<string>`ev.issue_id::text`.as("issue_id"),
          "ev.project_id",
          "ev.level",
          epochMs("ev.occurred_at").as("occurred_at"),
          sql<string>`left(ev.message, ${cut.messageChars}::int)`.as("message"),
          sql<number>`length(ev.message)::int`.as("message_length"),
          sql<string | null>`left(ev.context::text, ${cut.contextChars}::int)`.as("context_text"),
          sql<number | null>`length(ev.context::text)::int`.as("context_length"),
        ])
        .where("ev.issue_id", "=", eb.ref("q.issue_id"))
        .where("ev.occurred_at", ">=", since)
        .orderBy("ev.occurred_at", "desc")
        .orderBy("ev.id", "desc")
        .limit(eb.ref("q.n"))
        .as("e"),
    )
    .selectAll("e")
    .execute();
  return rows.map((row) => ({
    id: row.id,
    issueId: row.issue_id,
    projectId: row.project_id,
    level: row.level,
    occurredAt: new Date(row.occurred_at),
    message: row.message,
    messageLength: row.message_length,
    contextText: row.context_text,
    contextLength: row.context_length ?? 0,
  }));
}
