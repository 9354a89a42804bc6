import { sql, type Kysely } from "kysely";
import { peopleByIds, type PersonView } from "@/lib/auth/users";
import type { IssueActivityKind } from "@/lib/db/generated/enums";
import { sqlDb, type DB } from "@/lib/db/sql";
import { errors } from "@/lib/http/errors";
import type { ProjectAccess } from "@/lib/auth/access";

/**
 * The issue_activities table: what happened to an issue (status changes,
 * assignments, comments, regressions), newest first on its page. Workflow
 * changes (lib/issues/workflow.ts) record theirs through `recordActivities`;
 * the ingest statement writes regressions and ends of ignores itself
 * (lib/issues/ingest-sql.ts).
 */

export type { IssueActivityKind };

/** An activity as the API and the dashboard show it; `detail` is the kind's own (docs/api.md). */
export type ActivityView = {
  id: string;
  kind: IssueActivityKind;
  createdAt: string;
  /** Who did it; null for what Telltale did itself (a regression, an ignore that ran out). */
  user: PersonView | null;
  detail: Record<string, unknown>;
  /** For an assignment: the new assignee (null: unassigned). */
  assignee?: PersonView | null;
};

export type NewActivity = { issueId: string; projectId: string; userId: string | null; kind: IssueActivityKind; detail: Record<string, unknown> };

export const MAX_COMMENT_CHARS = 5000;
export const DEFAULT_ACTIVITY_LIMIT = 50;
export const MAX_ACTIVITY_LIMIT = 200;

/**
 * Adds activities in the caller's transaction (the one that made the
 * change). Each is dated a millisecond after the one before, so that one
 * change's activities (a status and an assignee) list in the order made.
 */
export async function recordActivities(db: Kysely<DB>, rows: NewActivity[]): Promise<void> {
  if (rows.length === 0) return;
  await db
    .insertInto("issue_activities")
    .values(
      rows.map((r, i) => ({
        issue_id: r.issueId,
        project_id: r.projectId,
        user_id: r.userId,
        kind: r.kind,
        detail: sql`${JSON.stringify(r.detail)}::jsonb`,
        created_at: sql<Date>`now() + ${i}::int * interval '1 millisecond'`,
      })),
    )
    .execute();
}

type ActivityRow = { id: string; kind: IssueActivityKind; created_at: Date; user_id: string | null; detail: unknown };

async function toViews(rows: ActivityRow[]): Promise<ActivityView[]> {
  const detailOf = (r: ActivityRow) => (r.detail && typeof r.detail === "object" ? (r.detail as Record<string, unknown>) : {});
  const ids = rows.flatMap((r) => [r.user_id, r.kind === "assignment" ? detailOf(r).assigneeId : null]).filter((id): id is string => typeof id === "string");
  const people = await peopleByIds(ids);
  return rows.map((r) => {
    const detail = detailOf(r);
    const view: ActivityView = { id: r.id, kind: r.kind, createdAt: new Date(r.created_at).toISOString(), user: r.user_id ? (people.get(r.user_id) ?? null) : null, detail };
    if (r.kind === "assignment") view.assignee = typeof detail.assigneeId === "string" ? (people.get(detail.assigneeId) ?? null) : null;
    return view;
  });
}

const CURSOR_MESSAGE = "Not a valid cursor: pass nextCursor from a previous answer unchanged.";

function encodeCursor(row: ActivityRow): string {
  return Buffer.from(JSON.stringify([new Date(row.created_at).toISOString(), row.id]), "utf8").toString("base64url");
}

function decodeCursor(text: string): { at: Date; id: string } {
  try {
    const [at, id] = JSON.parse(Buffer.from(text, "base64url").toString("utf8")) as unknown[];
    if (typeof at === "string" && !Number.isNaN(Date.parse(at)) && typeof id === "string" && /^[0-9a-f-]{36}$/.test(id)) return { at: new Date(at), id };
  } catch {
    // not one of ours
  }
  throw errors.validation([{ path: "cursor", message: CURSOR_MESSAGE }]);
}

async function assertIssueOfProject(access: ProjectAccess, issueId: string): Promise<void> {
  const found = await sqlDb().selectFrom("issues").select("id").where("id", "=", issueId).where("project_id", "=", access.projectId).executeTakeFirst();
  if (!found) throw errors.notFound("No issue with this id in this project.");
}

/** An issue's activity, newest first, a page at a time (keyset on time and id); 404 for an issue of another project. */
export async function listIssueActivity(
  access: ProjectAccess,
  issueId: string,
  options: { cursor?: string; limit?: number } = {},
): Promise<{ activities: ActivityView[]; nextCursor: string | null }> {
  const limit = options.limit ?? DEFAULT_ACTIVITY_LIMIT;
  const cursor = options.cursor ? decodeCursor(options.cursor) : null;
  await assertIssueOfProject(access, issueId);
  const rows = await sqlDb()
    .selectFrom("issue_activities")
    .select(["id", "kind", "created_at", "user_id", "detail"])
    .where("issue_id", "=", issueId)
    .where("project_id", "=", access.projectId)
    .$if(cursor !== null, (q) => q.where((eb) => eb(eb.refTuple("created_at", sql<string>`id::text`), "<", eb.tuple(cursor!.at, cursor!.id))))
    .orderBy("created_at", "desc")
    .orderBy(sql`id::text`, "desc")
    .limit(limit + 1)
    .execute();
  const page = rows.slice(0, limit);
  return { activities: await toViews(page), nextCursor: rows.length > limit ? encodeCursor(page.at(-1)!) : null };
}

/** A member's comment on an issue of the project (404 otherwise), answered as its activity. */
export async function addIssueComment(access: ProjectAccess, issueId: string, text: string): Promise<ActivityView> {
  const row = await sqlDb()
    .insertInto("issue_activities")
    .columns(["issue_id", "project_id", "user_id", "kind", "detail"])
    .expression((eb) =>
      eb
        .selectFrom("issues")
        .select((eb) => ["issues.id", "issues.project_id", eb.val(access.userId).as("user_id"), sql<IssueActivityKind>`'comment'::issue_activity_kind`.as("kind"), sql`jsonb_build_object('text', ${text}::text)`.as("detail")])
        .where("issues.id", "=", issueId)
        .where("issues.project_id", "=", access.projectId),
    )
    .returning(["id", "kind", "created_at", "user_id", "detail"])
    .executeTakeFirst();
  if (!row) throw errors.notFound("No issue with this id in this project.");
  return (await toViews([row]))[0]!;
}
