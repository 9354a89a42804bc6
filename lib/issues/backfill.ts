import { sql, type Kysely } from "kysely";
import type { DB } from "@/lib/db/sql";
import { withCountUpserts, withIssueUpsert, type CountSourceRow, type IssueSourceRow } from "@/lib/issues/upsert";

/** The key of an issue in a map of upserted issues. */
export function issueKey(projectId: string, hash: string): string {
  return `${projectId}\u0001${hash}`;
}

/**
 * Groups events into their issues, creating or updating them as ingestion
 * does (lib/issues/upsert.ts), in the caller's transaction: the events'
 * issue ids by issueKey(project, hash).
 */
export async function upsertIssuesOf(db: Kysely<DB>, events: IssueSourceRow[]): Promise<Map<string, string>> {
  if (events.length === 0) return new Map();
  const source = sql<IssueSourceRow>`json_to_recordset(${JSON.stringify(events)}::json)`.as<"e">(
    sql`e(id uuid, project_id text, hash text, title text, level event_level, message text, occurred_at timestamptz)`,
  );
  const rows = await withIssueUpsert(db.with("issue_source", (qc) => qc.selectFrom(source).selectAll()))
    .selectFrom("issues_up")
    .select(["id", "project_id", "fingerprint_hash"])
    .execute();
  return new Map(rows.map((r) => [issueKey(r.project_id, r.fingerprint_hash), r.id]));
}

/** Adds events to their issues' per-minute, per-hour and per-day counts, in the caller's transaction. */
export async function addToIssueCounts(db: Kysely<DB>, events: CountSourceRow[]): Promise<void> {
  if (events.length === 0) return;
  const source = sql<CountSourceRow>`json_to_recordset(${JSON.stringify(events)}::json)`.as<"e">(
    sql`e(issue_id uuid, level event_level, project_id text, occurred_at timestamptz)`,
  );
  await withCountUpserts(db.with("count_source", (qc) => qc.selectFrom(source).selectAll()))
    .selectNoFrom((eb) => [
      eb.selectFrom("counts_up").select(sql<number>`count(*)::int`.as("n")).$asScalar().as("minutes"),
      eb.selectFrom("hours_up").select(sql<number>`count(*)::int`.as("n")).$asScalar().as("hours"),
      eb.selectFrom("days_up").select(sql<number>`count(*)::int`.as("n")).$asScalar().as("days"),
    ])
    .execute();
}
