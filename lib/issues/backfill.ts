import { sql, type Kysely } from "kysely";
import { part, type DB } from "@/lib/db/sql";
import { assignIssuesCte } from "@/lib/events/backfill";
import { countUpsertCte, groupedCte, issueIdsCte, issueUpsertCte, type KeyedRow } from "@/lib/issues/ingest-sql";

/** An old event to group: its issue key (hash) and title from lib/issues/template.ts, its time from lib/events/time.ts. */
export type BackfillRow = Pick<KeyedRow, "id" | "project_id" | "group_hash" | "title" | "level" | "message" | "occurred_at">;

/**
 * Assigns old events to their issues in one statement of the caller's
 * transaction, with the issue upsert and the per-minute, hour and day count
 * upserts of ingestion (lib/issues/ingest-sql.ts): issues created or updated
 * in (project, key) order, the events given their issue and time
 * (lib/events/backfill.ts), their counts added. Old events carry no release
 * and no tags. Answers how many events it assigned.
 */
export async function assignEventsToIssues(db: Kysely<DB>, rows: BackfillRow[]): Promise<number> {
  if (rows.length === 0) return 0;
  const keyed = sql<KeyedRow>`json_to_recordset(${JSON.stringify(rows.map((r) => ({ ...r, release_seq: null, tag_pairs: null })))}::json)`.as<"e">(
    sql`e(id uuid, project_id text, group_hash text, title text, level event_level, message text, occurred_at timestamptz, release_seq int, tag_pairs jsonb)`,
  );
  const row = await db
    .with("keyed", (qc) => qc.selectFrom(keyed).selectAll())
    .with("grouped", part(groupedCte))
    .with("issues_up", part(issueUpsertCte))
    .with("issue_ids", part(issueIdsCte))
    .with("events_in", part(assignIssuesCte))
    .with("counts_up", part(countUpsertCte("issue_counts")))
    .with("hours_up", part(countUpsertCte("issue_hours")))
    .with("days_up", part(countUpsertCte("issue_days")))
    .selectNoFrom((eb) => eb.selectFrom("events_in").select(sql<number>`count(*)::int`.as("n")).$asScalar().as("assigned"))
    .executeTakeFirstOrThrow();
  return row.assigned;
}
