import { sql, type QueryCreator } from "kysely";
import type { DB } from "@/lib/db/sql";
import type { EventLevel } from "@/lib/events/schema";

/** A row of the ingest statement as the events table stores it. */
export type StoredInput = {
  id: string;
  project_id: string;
  level: EventLevel;
  message: string;
  context: unknown;
  ts: Date | null;
  received_at: Date;
  occurred_at: Date;
  release: string | null;
  environment: string | null;
  tags: unknown;
  user_info: unknown;
};

/**
 * Inserts the statement's rows that joined an issue (`event_issues`: one
 * jsonb object `{event id: issue id}`, read once), straight from `input`:
 * the rows' large columns (context, tags, user) go from the input to the
 * table without being copied through the CTEs that group them, which held
 * several megabytes each and spilled to temporary files.
 */
export function insertEventsCte(qc: QueryCreator<DB & { input: StoredInput; event_issues: { ids: Record<string, string> | null } }>) {
  const issueOf = sql<string | null>`((SELECT ids FROM event_issues) ->> (k.id::text))::uuid`;
  return qc
    .insertInto("events")
    .columns(["id", "project_id", "issue_id", "level", "message", "context", "timestamp", "received_at", "occurred_at", "release", "environment", "tags", "user_info"])
    .expression((eb) =>
      eb
        .selectFrom("input as k")
        .where(issueOf, "is not", null)
        .select([
          "k.id",
          "k.project_id",
          issueOf.as("issue_id"),
          "k.level",
          "k.message",
          "k.context",
          "k.ts",
          "k.received_at",
          "k.occurred_at",
          "k.release",
          "k.environment",
          "k.tags",
          "k.user_info",
        ]),
    )
    .returning(["events.issue_id", "events.project_id", "events.level", "events.occurred_at"]);
}
