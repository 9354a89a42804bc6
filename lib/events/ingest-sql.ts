import type { QueryCreator } from "kysely";
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

/** Inserts the statement's rows, each with the id of the issue it joined. */
export function insertEventsCte(qc: QueryCreator<DB & { placed: StoredInput & { issue_id: string } }>) {
  return qc
    .insertInto("events")
    .columns(["id", "project_id", "issue_id", "level", "message", "context", "timestamp", "received_at", "occurred_at", "release", "environment", "tags", "user_info"])
    .expression((eb) =>
      eb
        .selectFrom("placed as k")
        .select([
          "k.id",
          "k.project_id",
          "k.issue_id",
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
