/**
 * The reads of the events table that summaries and window counts make:
 * bounded probes of the events' indexes, never a scan of a window. Counts
 * come from the count tables (lib/issues/window-counts.ts); only the
 * partial minutes at a window's edges are counted here.
 */
import { sql, type SelectQueryBuilder } from "kysely";
import { sqlDb, type DB } from "@/lib/db/sql";
import type { EventLevel } from "@/lib/events/schema";
import { epochMs, inRanges, textArray, uuidArray, type Range } from "@/lib/db/sql-values";
import { tagProbeRows, type TagProbe } from "@/lib/events/tag-probes";

/** One row of windowCountsQuery (lib/issues/window-counts.ts) and of eventCountsQuery: events of an issue at one level in one piece, to be summed. */
export type PieceCountRow = { issue_id: string; level: EventLevel; n: number };

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

/** Events of one issue looked at for late ones at most (its newest dated before its resolution). */
export const LATE_SCAN_ROWS = 20_000;

/**
 * Per issue, its events at or after `since` that are dated at or before its
 * `resolvedAt` and arrived after it: late events, counted without
 * reopening it. Among its newest LATE_SCAN_ROWS events so dated (one range
 * of the (issue, occurred_at) index each): `atLeast` when it has more, so
 * the count is a lower bound.
 */
export async function lateEventCounts(issues: { issueId: string; resolvedAt: Date }[], since: Date): Promise<Map<string, { count: number; atLeast: boolean }>> {
  const wanted = issues.filter((i) => i.resolvedAt >= since);
  if (wanted.length === 0) return new Map();
  const rows = await sqlDb()
    .selectFrom(
      sql<{ issue_id: string; resolved_at: Date }>`unnest(${uuidArray(wanted.map((i) => i.issueId))}, ${sql.val(wanted.map((i) => i.resolvedAt.toISOString()))}::timestamptz[])`.as<"q">(
        sql`q(issue_id, resolved_at)`,
      ),
    )
    .crossJoinLateral((eb) =>
      eb
        .selectFrom(
          eb
            .selectFrom("events as ev")
            .select("ev.received_at")
            .where("ev.issue_id", "=", eb.ref("q.issue_id"))
            .where("ev.occurred_at", ">=", since)
            .where("ev.occurred_at", "<=", eb.ref("q.resolved_at"))
            .orderBy("ev.occurred_at", "desc")
            .limit(LATE_SCAN_ROWS)
            .as("d"),
        )
        .select([
          sql<number>`(count(*) FILTER (WHERE d.received_at > q.resolved_at))::int`.as("n"),
          sql<boolean>`count(*) >= ${sql.lit(LATE_SCAN_ROWS)}`.as("full"),
        ])
        .as("l"),
    )
    .select([sql<string>`q.issue_id::text`.as("issue_id"), "l.n", "l.full"])
    .execute();
  return new Map(rows.filter((r) => r.n > 0).map((r) => [r.issue_id, { count: r.n, atLeast: r.full }]));
}

/** Contexts larger than this (stored size) are not looked into for values: a 256 KiB context is never read whole. */
const VALUE_CONTEXT_MAX_BYTES = 8_192;
/** Longer values (stacks, messages, payloads) are not values a share is told of. */
export const VALUE_MAX_CHARS = 100;

/** How often a value of one key was seen among an issue's events read in each window. */
export type IssueValueCount = {
  issueId: string;
  source: "tag" | "context";
  key: string;
  value: string;
  count: number;
  previousCount: number;
  /** Its first event among those read in the window (null: none there). */
  firstAt: Date | null;
};

/**
 * An issue whose values are counted: its newest `cap` events of each window,
 * its tags too when `tags`; only values seen at least `atLeast.count` times
 * among those of the window or `atLeast.previous` times among those before
 * are returned (the caller's floor: the rest could never be told).
 */
export type ValueCountIssue = { issueId: string; cap: number; tags: boolean; atLeast: { count: number; previous: number } };

/**
 * The values of each issue's newest events (at most `cap` at or after
 * `since`, and at most `cap` in [previousSince, since)): the top-level
 * scalar values of its context (a `code`, a `status`) and, when `tags`, its
 * tags (`release`, `environment` and its own tags), counted per window. Two
 * ranges of the (issue, occurred_at) index per issue; contexts over
 * VALUE_CONTEXT_MAX_BYTES and values over VALUE_MAX_CHARS are skipped.
 * Unpacking the values is CPU work (thousands of events, several values
 * each): one statement per issue, run at once, so they spread over the
 * server's cores; an issue whose tags are counted elsewhere skips them
 * (docs/performance.md#figures-behind-the-code).
 */
export async function valueCountsOfIssues(issues: ValueCountIssue[], since: Date, previousSince: Date): Promise<IssueValueCount[]> {
  const wanted = issues.filter((i) => i.cap > 0);
  const counts = await Promise.all(wanted.map((issue) => valueCountsOfIssue(issue, since, previousSince)));
  return counts.flat();
}

async function valueCountsOfIssue(issue: ValueCountIssue, since: Date, previousSince: Date): Promise<IssueValueCount[]> {
  // The issue and cap come through unnest, as a lateral reference: given as
  // values, the planner sorts a bitmap scan of the whole window instead of
  // stopping the index scan at the cap.
  const read = (current: boolean) => sql`(SELECT ${sql.lit(current)} AS cur, ev.occurred_at, ev.release, ev.environment, ev.tags,
        CASE WHEN pg_column_size(ev.context) <= ${sql.lit(VALUE_CONTEXT_MAX_BYTES)} THEN ev.context END AS context
      FROM events ev
      WHERE ev.issue_id = q.issue_id AND ev.occurred_at >= ${current ? since : previousSince}${current ? sql`` : sql` AND ev.occurred_at < ${since}`}
      ORDER BY ev.occurred_at DESC, ev.id DESC
      LIMIT q.cap)`;
  const tagValues = sql`SELECT 'tag' AS source, 'release' AS key, e.release AS value WHERE e.release IS NOT NULL
      UNION ALL SELECT 'tag', 'environment', e.environment WHERE e.environment IS NOT NULL
      UNION ALL SELECT 'tag', t.key, t.value FROM jsonb_each_text(CASE WHEN jsonb_typeof(e.tags) = 'object' THEN e.tags END) AS t
        WHERE t.key NOT IN ('release', 'environment')
      UNION ALL `;
  const { rows } = await sql<{ source: "tag" | "context"; key: string; value: string; n: number; previous_n: number; first_at: number | null }>`
    SELECT v.source, v.key, v.value,
      (count(*) FILTER (WHERE e.cur))::int AS n,
      (count(*) FILTER (WHERE NOT e.cur))::int AS previous_n,
      (extract(epoch FROM min(e.occurred_at) FILTER (WHERE e.cur)) * 1000)::float8 AS first_at
    FROM unnest(${uuidArray([issue.issueId])}, ${sql.val([issue.cap])}::int[]) AS q(issue_id, cap)
    CROSS JOIN LATERAL (${read(true)} UNION ALL ${read(false)}) AS e
    CROSS JOIN LATERAL (
      ${issue.tags ? tagValues : sql``}SELECT 'context' AS source, c.key AS key, c.value #>> '{}' AS value FROM jsonb_each(CASE WHEN jsonb_typeof(e.context) = 'object' THEN e.context END) AS c
        WHERE jsonb_typeof(c.value) IN ('string', 'number', 'boolean')
    ) AS v
    WHERE length(v.value) <= ${sql.lit(VALUE_MAX_CHARS)} AND length(v.key) <= ${sql.lit(VALUE_MAX_CHARS)}
    GROUP BY 1, 2, 3
    HAVING count(*) FILTER (WHERE e.cur) >= ${issue.atLeast.count}::int OR count(*) FILTER (WHERE NOT e.cur) >= ${issue.atLeast.previous}::int`.execute(sqlDb());
  return rows.map((r) => ({
    issueId: issue.issueId,
    source: r.source,
    key: r.key,
    value: r.value,
    count: r.n,
    previousCount: r.previous_n,
    firstAt: r.first_at === null ? null : new Date(r.first_at),
  }));
}

/**
 * The first event of each probe's issue in [from, to) whose `key` has
 * `value`: `release` and `environment` by their columns, any other key by
 * the event's own tags. One range of the (issue, occurred_at) index each,
 * bounded by the probe (an hour or a day of one issue); null when none.
 */
export async function firstEventsWithTag(probes: TagProbe[]): Promise<(Date | null)[]> {
  if (probes.length === 0) return [];
  const rows = await sqlDb()
    .selectFrom(
      tagProbeRows(probes),
    )
    .leftJoinLateral(
      (eb) =>
        eb
          .selectFrom("events as ev")
          .select(epochMs("ev.occurred_at").as("first"))
          .where("ev.issue_id", "=", eb.ref("q.issue_id"))
          .where("ev.occurred_at", ">=", eb.ref("q.from_at"))
          .where("ev.occurred_at", "<", eb.ref("q.to_at"))
          .where(
            sql<boolean>`CASE q.key WHEN 'release' THEN ev.release = q.value WHEN 'environment' THEN ev.environment = q.value
              ELSE (jsonb_typeof(ev.tags) = 'object' AND ev.tags ->> q.key = q.value) END`,
          )
          .orderBy("ev.occurred_at", "asc")
          .limit(1)
          .as("f"),
      (join) => join.onTrue(),
    )
    .select(["q.n", "f.first"])
    .execute();
  const out: (Date | null)[] = probes.map(() => null);
  for (const r of rows) if (r.first !== null) out[r.n] = new Date(r.first);
  return out;
}
