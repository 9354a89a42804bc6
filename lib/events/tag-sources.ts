import { sql } from "kysely";
import { sqlDb } from "@/lib/db/sql";
import type { EventUser } from "@/lib/events/schema";
import type { ProjectAccess } from "@/lib/auth/access";

/** What an event's tag pairs are made from (lib/events/event-tags.ts), with only the parts of the context they read. */
export type EventTagSource = {
  release: string | null;
  environment: string | null;
  tags: Record<string, string> | null;
  user: EventUser | null;
  context: Record<string, unknown> | null;
};

/**
 * The newest `limit` events of one issue in [from, to), as the sources of
 * their tags: the parts of a window's tag breakdown that whole hours do not
 * cover. Read through the issue's (issue, time) index.
 */
export async function issueEventTagSources(access: ProjectAccess, issueId: string, range: { from: Date; to: Date }, limit: number): Promise<EventTagSource[]> {
  const rows = await sqlDb()
    .selectFrom("events")
    .select((eb) => [
      "release",
      "environment",
      "tags",
      "user_info",
      sql<Record<string, unknown> | null>`jsonb_build_object(
        'contexts', ${eb.ref("context")} -> 'contexts',
        'request', jsonb_build_object('url', ${eb.ref("context")} -> 'request' -> 'url'),
        'transaction', ${eb.ref("context")} -> 'transaction',
        'server_name', ${eb.ref("context")} -> 'server_name')`.as("tag_context"),
    ])
    .where("issue_id", "=", issueId)
    .where("project_id", "=", access.projectId)
    .where("occurred_at", ">=", range.from)
    .where("occurred_at", "<", range.to)
    .orderBy("occurred_at", "desc")
    .orderBy("id", "desc")
    .limit(limit)
    .execute();
  return rows.map((r) => ({
    release: r.release,
    environment: r.environment,
    tags: (r.tags ?? null) as Record<string, string> | null,
    user: (r.user_info ?? null) as EventUser | null,
    context: r.tag_context,
  }));
}
