/**
 * The events side of the backfill of events stored before issues existed
 * (no issue and no event time): finding them, and assigning them to their
 * issues (tools/db/backfill-issues.ts).
 */
import { sql, type Kysely, type QueryCreator } from "kysely";
import type { DB } from "@/lib/db/sql";
import type { EventLevel } from "@/lib/events/schema";

export type UnassignedEvent = { id: string; project_id: string; level: EventLevel; message: string; timestamp: Date | null; received_at: Date };

/** Events without an issue: how many (a cheap exact count while few). */
export async function countUnassignedEvents(db: Kysely<DB>): Promise<number> {
  const row = await db.selectFrom("events").select(sql<number>`count(*)::int`.as("n")).where("issue_id", "is", null).executeTakeFirstOrThrow();
  return row.n;
}

/**
 * The next `limit` events without an issue, locked for the caller's
 * transaction. The issue index keeps the unassigned (NULL) events together,
 * so this finds them without scanning assigned ones; SKIP LOCKED keeps a
 * second backfill from taking (and counting) them too.
 */
export async function lockUnassignedEvents(db: Kysely<DB>, limit: number): Promise<UnassignedEvent[]> {
  return db
    .selectFrom("events")
    .select(["id", "project_id", "level", "message", "timestamp", "received_at"])
    .where("issue_id", "is", null)
    .orderBy("issue_id")
    .orderBy("occurred_at", "desc")
    .orderBy("id", "desc")
    .limit(limit)
    .forUpdate()
    .skipLocked()
    .execute();
}

/**
 * Gives the rows of `keyed` their issue (from `issue_ids`, the upserted
 * issues' ids by project and key) and their time, unless they have an issue
 * already; returns those assigned as the count upserts read them.
 */
export function assignIssuesCte(
  qc: QueryCreator<DB & { keyed: { id: string; project_id: string; group_hash: string; occurred_at: Date }; issue_ids: { ids: Record<string, string> | null } }>,
) {
  return qc
    .updateTable("events as e")
    .from("keyed as k")
    .set((eb) => ({
      issue_id: sql<string>`((${eb.selectFrom("issue_ids").select("issue_ids.ids")}) ->> (${eb.ref("k.project_id")} || chr(1) || ${eb.ref("k.group_hash")}))::uuid`,
      occurred_at: eb.ref("k.occurred_at"),
    }))
    .whereRef("e.id", "=", "k.id")
    .where("e.issue_id", "is", null)
    .returning(["e.issue_id", "e.project_id", "e.level", "e.occurred_at"]);
}
