/**
 * The latest event of issues, for what an alert says about them: the
 * concrete message, the release, and the parts of the context a stack is
 * read from (never the whole context: it may be 256 KiB).
 */
import { sql } from "kysely";
import { sqlDb } from "@/lib/db/sql";
import { uuidArray } from "@/lib/db/sql-values";

export type LatestEvent = { message: string; release: string | null; stackContext: Record<string, unknown> | null };

/** Text of the latest message read at most. */
export const LATEST_MESSAGE_CHARS = 1_000;

/** Per issue, its newest event (one probe of the (issue, occurred_at) index each); issues with none are absent. */
export async function latestEventsOfIssues(issueIds: string[]): Promise<Map<string, LatestEvent>> {
  if (issueIds.length === 0) return new Map();
  const rows = await sqlDb()
    .selectFrom(sql<{ id: string }>`unnest(${uuidArray(issueIds)})`.as<"i">(sql`i(id)`))
    .crossJoinLateral((eb) =>
      eb
        .selectFrom("events as ev")
        .select([
          sql<string>`left(ev.message, ${LATEST_MESSAGE_CHARS}::int)`.as("message"),
          "ev.release",
          // The keys a stack is read from (lib/grouping/key.ts eventStack), null when the context has none.
          sql<Record<string, unknown> | null>`nullif(jsonb_strip_nulls(jsonb_build_object(
            'exception', ev.context -> 'exception', 'platform', ev.context -> 'platform',
            'stack', ev.context -> 'stack', 'stacktrace', ev.context -> 'stacktrace', 'traceback', ev.context -> 'traceback',
            'error', ev.context -> 'error', 'err', ev.context -> 'err')), '{}'::jsonb)`.as("stack_context"),
        ])
        .where("ev.issue_id", "=", eb.ref("i.id"))
        .orderBy("ev.occurred_at", "desc")
        .orderBy("ev.id", "desc")
        .limit(1)
        .as("e"),
    )
    .select([sql<string>`i.id::text`.as("issue_id"), "e.message", "e.release", "e.stack_context"])
    .execute();
  return new Map(rows.map((r) => [r.issue_id, { message: r.message, release: r.release, stackContext: r.stack_context }]));
}
