import { sql, type Expression, type ExpressionBuilder, type Kysely, type SqlBool } from "kysely";
import { listProjectMembers, membersAmong } from "@/lib/auth/memberships";
import { peopleByIds, type PersonView } from "@/lib/auth/users";
import type { ResolveMode } from "@/lib/db/generated/enums";
import { sqlDb, type DB } from "@/lib/db/sql";
import { errors } from "@/lib/http/errors";
import { listIssueActivity, recordActivities, type NewActivity } from "@/lib/issues/activities";
import type { IssueStatus } from "@/lib/issues/filters";
import { findRelease, newestRelease, recentReleases } from "@/lib/releases/lookup";
import type { ProjectAccess } from "@/lib/auth/access";

/**
 * The issue workflow's writes: resolve (now, in the next release, in a given
 * release), ignore (forever, for a while, for N more events), reopen, and
 * assign, for one issue or many of one project at once, each change recorded
 * in the issue's activity in the same transaction. Any member may.
 */

/** `resolvedIn` as the API takes and shows it: the next release, or a release by its version. */
export const NEXT_RELEASE = "next_release";

export type StatusChange =
  | { status: "open" }
  | { status: "resolved"; resolvedIn?: string }
  | { status: "ignored"; ignoreMinutes?: number; ignoreEvents?: number };

export type IssueChange = { status?: StatusChange; assigneeId?: string | null };

/** An issue's workflow state, as the API and the dashboard show it. */
export type IssueWorkflowView = {
  id: string;
  status: IssueStatus;
  assignee: PersonView | null;
  /** The last resolution (kept after the issue reopens). */
  resolvedAt: string | null;
  resolvedBy: PersonView | null;
  /** "next_release", a release's version, or null (resolved as of resolvedAt, by event time). */
  resolvedIn: string | null;
  /** The release whose newer ones reopen it: the newest one when resolved in the next release, or the one named. */
  resolvedRelease: string | null;
  /** Ignored until this time, or until the issue's count reaches ignoredUntilCount (whichever first); both null: forever. */
  ignoredUntil: string | null;
  ignoredUntilCount: number | null;
  /** Events that arrived while it was resolved and did not reopen it (dated before the resolution, or of the resolved release or older), since it was last resolved. */
  lateCount: number;
};

const WORKFLOW_COLUMNS = [
  "id",
  "status",
  "assignee_id",
  "resolved_at",
  "resolved_by_id",
  "resolve_mode",
  "resolved_in",
  "ignored_until",
  "ignored_until_count",
  "late_count",
] as const;

type WorkflowRow = {
  id: string;
  status: IssueStatus;
  assignee_id: string | null;
  resolved_at: Date | null;
  resolved_by_id: string | null;
  resolve_mode: ResolveMode | null;
  resolved_in: string | null;
  ignored_until: Date | null;
  ignored_until_count: string | null;
  late_count: string;
};

async function toViews(rows: WorkflowRow[]): Promise<IssueWorkflowView[]> {
  const people = await peopleByIds(rows.flatMap((r) => [r.assignee_id, r.resolved_by_id]).filter((id): id is string => id !== null));
  const person = (id: string | null) => (id ? (people.get(id) ?? null) : null);
  return rows.map((r) => ({
    id: r.id,
    status: r.status,
    assignee: person(r.assignee_id),
    resolvedAt: r.resolved_at ? new Date(r.resolved_at).toISOString() : null,
    resolvedBy: person(r.resolved_by_id),
    resolvedIn: r.resolve_mode === "next_release" ? NEXT_RELEASE : r.resolve_mode === "in_release" ? r.resolved_in : null,
    resolvedRelease: r.resolve_mode === "next_release" || r.resolve_mode === "in_release" ? r.resolved_in : null,
    ignoredUntil: r.ignored_until ? new Date(r.ignored_until).toISOString() : null,
    ignoredUntilCount: r.ignored_until_count === null ? null : Number(r.ignored_until_count),
    lateCount: Number(r.late_count),
  }));
}

// `= ANY($1::uuid[])`: one parameter whatever the number of ids.
const anyUuid = (ids: string[]) => sql<string>`ANY(${ids}::uuid[])`;

async function readWorkflows(db: Kysely<DB>, projectId: string, issueIds: string[]): Promise<WorkflowRow[]> {
  if (issueIds.length === 0) return [];
  return db
    .selectFrom("issues")
    .select((eb) => [eb.cast<string>(eb.ref("id"), "text").as("id"), ...WORKFLOW_COLUMNS.slice(1)])
    .where("project_id", "=", projectId)
    .where("id", "=", anyUuid(issueIds))
    .orderBy("id")
    .execute();
}


/** One issue's workflow state (for its page and GET), or 404. */
export async function getIssueWorkflow(access: ProjectAccess, issueId: string): Promise<IssueWorkflowView> {
  const [row] = await readWorkflows(sqlDb(), access.projectId, [issueId]);
  if (!row) throw errors.notFound("No issue with this id in this project.");
  return (await toViews([row]))[0]!;
}

/** What a resolution stores: its mode and, resolved in a release, that release. */
type Resolution = { mode: ResolveMode; release: { version: string; seq: number } | null };

async function resolutionOf(projectId: string, resolvedIn: string | undefined): Promise<Resolution> {
  if (resolvedIn === undefined) return { mode: "now", release: null };
  if (resolvedIn === NEXT_RELEASE) {
    const newest = await newestRelease(projectId);
    if (!newest) {
      throw errors.validation([
        { path: "resolvedIn", message: "No event of this project has named a release yet, so no later release could be told apart: resolve it now instead." },
      ]);
    }
    return { mode: "next_release", release: newest };
  }
  const release = await findRelease(projectId, resolvedIn);
  if (!release) throw errors.validation([{ path: "resolvedIn", message: `No event of this project has named the release "${resolvedIn}".` }]);
  return { mode: "in_release", release };
}

type Eb = ExpressionBuilder<DB, "issues">;

/** Rows the change would leave as they are: changing them again records nothing. */
function alreadySo(eb: Eb, change: StatusChange, resolution: Resolution | null): Expression<SqlBool> {
  const same = eb("status", "=", change.status);
  if (change.status === "resolved") {
    return eb.and([same, eb("resolve_mode", "is not distinct from", resolution!.mode), eb("resolved_seq", "is not distinct from", resolution!.release?.seq ?? null)]);
  }
  if (change.status === "ignored") {
    if (change.ignoreMinutes !== undefined || change.ignoreEvents !== undefined) return sql<SqlBool>`false`;
    return eb.and([same, eb("ignored_until", "is", null), eb("ignored_until_count", "is", null)]);
  }
  return same;
}

function activityDetail(from: IssueStatus, change: StatusChange, resolution: Resolution | null, ignoredUntil: Date | null): Record<string, unknown> {
  const detail: Record<string, unknown> = { from, to: change.status };
  if (change.status === "resolved" && resolution) {
    detail.resolveMode = resolution.mode;
    if (resolution.release) detail.resolvedIn = resolution.release.version;
  }
  if (change.status === "ignored") {
    if (ignoredUntil) detail.ignoredUntil = ignoredUntil.toISOString();
    if (change.ignoreEvents !== undefined) detail.ignoreEvents = change.ignoreEvents;
  }
  return detail;
}

async function applyStatus(trx: Kysely<DB>, access: ProjectAccess, issueIds: string[], change: StatusChange, resolution: Resolution | null): Promise<NewActivity[]> {
  const changed = await trx
    .with("target", (db) =>
      db
        .selectFrom("issues")
        .select(["id", "status as from_status"])
        .where("project_id", "=", access.projectId)
        .where("id", "=", anyUuid(issueIds))
        .where((eb) => eb.not(alreadySo(eb, change, resolution)))
        .orderBy("id")
        .forUpdate(),
    )
    .updateTable("issues")
    .from("target")
    .whereRef("issues.id", "=", "target.id")
    .set((eb) => {
      const common = { status: change.status, status_changed_at: sql<Date>`now()` };
      if (change.status === "resolved") {
        return {
          ...common,
          resolved_at: sql<Date>`now()`,
          resolved_by_id: access.userId,
          resolve_mode: resolution!.mode,
          resolved_in: resolution!.release?.version ?? null,
          resolved_seq: resolution!.release?.seq ?? null,
          late_count: "0",
          ignored_until: null,
          ignored_until_count: null,
        };
      }
      if (change.status === "ignored") {
        return {
          ...common,
          ignored_until: change.ignoreMinutes === undefined ? null : sql<Date>`now() + make_interval(mins => ${change.ignoreMinutes}::int)`,
          ignored_until_count: change.ignoreEvents === undefined ? null : sql<string>`${eb.ref("issues.count")} + ${change.ignoreEvents}::bigint`,
        };
      }
      return { ...common, ignored_until: null, ignored_until_count: null };
    })
    .returning(["issues.id", "issues.project_id", "target.from_status", "issues.ignored_until"])
    .execute();
  return changed.map((row) => ({
    issueId: row.id,
    projectId: row.project_id,
    userId: access.userId,
    kind: "status" as const,
    detail: activityDetail(row.from_status, change, resolution, row.ignored_until),
  }));
}

async function applyAssignee(trx: Kysely<DB>, access: ProjectAccess, issueIds: string[], assigneeId: string | null): Promise<NewActivity[]> {
  const changed = await trx
    .with("target", (db) =>
      db
        .selectFrom("issues")
        .select(["id", "assignee_id as previous"])
        .where("project_id", "=", access.projectId)
        .where("id", "=", anyUuid(issueIds))
        .where("assignee_id", "is distinct from", assigneeId)
        .orderBy("id")
        .forUpdate(),
    )
    .updateTable("issues")
    .from("target")
    .whereRef("issues.id", "=", "target.id")
    .set({ assignee_id: assigneeId })
    .returning(["issues.id", "issues.project_id", "target.previous"])
    .execute();
  return changed.map((row) => ({
    issueId: row.id,
    projectId: row.project_id,
    userId: access.userId,
    kind: "assignment" as const,
    detail: { assigneeId, previousAssigneeId: row.previous },
  }));
}

/**
 * Changes the status and/or the assignee of these issues of the project,
 * in one transaction, recording an activity for each issue that changed.
 * Ids of no issue of this project (another project's, unknown) change
 * nothing and come back in `notFound`. The assignee must be a member of
 * the project (400 otherwise); resolving in a release needs that release
 * (or, for the next release, any release) to have been seen.
 */
export async function changeIssues(
  access: ProjectAccess,
  issueIds: string[],
  change: IssueChange,
): Promise<{ issues: IssueWorkflowView[]; notFound: string[] }> {
  const ids = [...new Set(issueIds.map((id) => id.toLowerCase()))];
  if (change.assigneeId) {
    const members = await membersAmong(access.projectId, [change.assigneeId]);
    if (!members.has(change.assigneeId)) throw errors.validation([{ path: "assigneeId", message: "Not a member of this project: only members can be assigned." }]);
  }
  const status = change.status;
  const resolution = status?.status === "resolved" ? await resolutionOf(access.projectId, status.resolvedIn) : null;

  const rows = await sqlDb()
    .transaction()
    .execute(async (trx) => {
      const activities: NewActivity[] = [];
      if (status) activities.push(...(await applyStatus(trx, access, ids, status, resolution)));
      if (change.assigneeId !== undefined) activities.push(...(await applyAssignee(trx, access, ids, change.assigneeId)));
      await recordActivities(trx, activities);
      return readWorkflows(trx, access.projectId, ids);
    });
  const found = new Set(rows.map((r) => r.id));
  return { issues: await toViews(rows), notFound: ids.filter((id) => !found.has(id)) };
}

/** changeIssues for one issue: its new state, or 404. */
export async function changeIssue(access: ProjectAccess, issueId: string, change: IssueChange): Promise<IssueWorkflowView> {
  const { issues } = await changeIssues(access, [issueId], change);
  if (issues.length === 0) throw errors.notFound("No issue with this id in this project.");
  return issues[0]!;
}

/**
 * Ignored issues whose time ran out without a new event (an event ends the
 * ignore itself, at ingest) open again, at most `limit` per call; each gets a
 * status activity by Telltale. Answers how many opened.
 */
export async function reopenExpiredIgnores(limit = 1000): Promise<number> {
  return sqlDb()
    .transaction()
    .execute(async (trx) => {
      const opened = await trx
        .with("due", (db) =>
          db
            .selectFrom("issues")
            .select("id")
            .where("ignored_until", "<=", sql<Date>`now()`)
            .where("status", "=", "ignored")
            .orderBy("ignored_until")
            .limit(limit)
            .forUpdate()
            .skipLocked(),
        )
        .updateTable("issues")
        .from("due")
        .whereRef("issues.id", "=", "due.id")
        .set({ status: "open", status_changed_at: sql<Date>`now()`, ignored_until: null, ignored_until_count: null })
        .returning(["issues.id", "issues.project_id"])
        .execute();
      await recordActivities(
        trx,
        opened.map((row) => ({ issueId: row.id, projectId: row.project_id, userId: null, kind: "status", detail: { from: "ignored", to: "open", reason: "ignore_ended" } })),
      );
      return opened.length;
    });
}

/** A member who leaves a project is no longer the assignee of its issues (in the caller's transaction, which removes them). */
export async function unassignMember(db: Kysely<DB>, projectId: string, userId: string): Promise<void> {
  const unassigned = await db
    .updateTable("issues")
    .set({ assignee_id: null })
    .where("project_id", "=", projectId)
    .where("assignee_id", "=", userId)
    .returning(["id", "project_id"])
    .execute();
  await recordActivities(
    db,
    unassigned.map((row) => ({
      issueId: row.id,
      projectId: row.project_id,
      userId: null,
      kind: "assignment",
      detail: { assigneeId: null, previousAssigneeId: userId, reason: "left_project" },
    })),
  );
}

/** Who can be assigned: the project's members, owners first. */
export async function assignableMembers(access: ProjectAccess): Promise<PersonView[]> {
  return (await listProjectMembers(access.projectId)).map((m) => ({ id: m.userId, email: m.email, name: m.name }));
}

/** What the issue page's workflow controls need beside the issue: who can be assigned, the releases to resolve in, the activity's first page. */
export async function issueWorkflowPageData(access: ProjectAccess, issueId: string) {
  const [members, releases, activity] = await Promise.all([assignableMembers(access), recentReleases(access.projectId), listIssueActivity(access, issueId)]);
  return {
    members,
    releases: releases.map((r) => r.version),
    activities: activity.activities,
    moreActivity: activity.nextCursor !== null,
  };
}
