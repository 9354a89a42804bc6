/**
 * Typed reads of the releases table (written by the ingest statement, see
 * ingest-sql.ts): a release's first event is a deploy marker.
 */
import { sql } from "kysely";
import { sqlDb } from "@/lib/db/sql";
import { epochMs, textArray } from "@/lib/db/sql-values";

export type ReleaseFirstSeen = { projectId: string; version: string; seq: number; firstSeen: Date };

/**
 * Releases of `projectIds` whose first event is at or after `since`,
 * earliest first, at most `limit`. A project has a few releases a day, so
 * the scan of its rows is short.
 */
export async function releasesFirstSeenSince(projectIds: string[], since: Date, limit: number): Promise<ReleaseFirstSeen[]> {
  if (projectIds.length === 0 || limit <= 0) return [];
  const rows = await sqlDb()
    .selectFrom("releases")
    .select(["project_id", "version", "seq", epochMs("first_seen").as("first_seen")])
    .where("project_id", "=", (eb) => eb.fn.any(textArray(projectIds)))
    .where("first_seen", ">=", since)
    .orderBy("first_seen")
    .orderBy(sql`project_id`)
    .orderBy("version")
    .limit(limit)
    .execute();
  return rows.map((r) => ({ projectId: r.project_id, version: r.version, seq: r.seq, firstSeen: new Date(r.first_seen) }));
}
