/**
 * The events side of the backfill of events stored before issues existed
 * (no issue and no event time): finding them, and assigning them to their
 * issues (tools/db/backfill-issues.ts).
 */
import { sql, type Kysely } from "kysely";
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
 * Gives events their issue and time, unless they have an issue already:
 * answers those assigned (as the issue counts read them).
 */
export async function assignEventIssues(
  db: Kysely<DB>,
  assignments: { id: string; issue_id: string; occurred_at: Date }[],
): Promise<{ issue_id: string; level: EventLevel; project_id: string; occurred_at: Date }[]> {
  if (assignments.length === 0) return [];
  const source = sql<{ id: string; issue_id: string; occurred_at: Date }>`json_to_recordset(${JSON.stringify(assignments)}::json)`.as<"s">(
    sql`s(id uuid, issue_id uuid, occurred_at timestamptz)`,
  );
  const rows = await db
    .updateTable("events as e")
    .from(source)
    .set((eb) => ({ issue_id: eb.ref("s.issue_id"), occurred_at: eb.ref("s.occurred_at") }))
    .whereRef("e.id", "=", "s.id")
    .where("e.issue_id", "is", null)
    .returning(["e.issue_id", "e.level", "e.project_id", "e.occurred_at"])
    .execute();
  return rows.map((r) => ({ issue_id: r.issue_id!, level: r.level, project_id: r.project_id, occurred_at: r.occurred_at! }));
}
