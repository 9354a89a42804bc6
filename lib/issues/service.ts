import { sql, type Expression, type SqlBool } from "kysely";
import { sqlDb } from "@/lib/db/sql";
import { assertSupportedTimes, escapeLike, ilike } from "@/lib/events/list";
import type { EventLevel } from "@/lib/events/schema";
import { errors } from "@/lib/http/errors";
import {
  DEFAULT_ISSUE_WINDOW_MS,
  DEFAULT_ISSUES_LIMIT,
  type IssueFilters,
  type IssueSort,
  type IssueStatus,
} from "@/lib/issues/filters";
import { bucketCounts } from "@/lib/issues/bucket-counts";
import { settleTagCounts } from "@/lib/issues/tag-backlog";
import { issueHasTag } from "@/lib/issues/tag-breakdown";
import { windowCountsQuery } from "@/lib/issues/window-counts";
import { getIssueWorkflow, type IssueWorkflowView } from "@/lib/issues/workflow";
import type { ProjectAccess } from "@/lib/auth/access";

/** An issue as the API and the dashboard show it (times in ISO 8601, from the events' time). */
export type IssueView = {
  id: string;
  projectId: string;
  level: EventLevel;
  title: string;
  sampleMessage: string;
  firstSeen: string;
  lastSeen: string;
  /** Events ever grouped into it (retention removes old events, not this). */
  count: number;
  status: IssueStatus;
  regressedAt: string | null;
  /** The member it is assigned to (a user id), or null. */
  assigneeId: string | null;
  /** Events in the window asked for, exact. */
  windowCount: number;
  /** First seen in the window. */
  isNew: boolean;
  /** Reopened in the window (a resolved issue that got an event), whether or not it is also new there. */
  isRegressed: boolean;
  /** Events per bucket, oldest first; the buckets are `window.bucketMs` long and end with the window. */
  sparkline: number[];
};

export type IssueWindow = { since: string; until: string; bucketMs: number };

// Sparkline bucket sizes: the smallest that keeps a window to at most 30 buckets.
const BUCKET_SIZES_MS = [1, 2, 5, 10, 15, 30, 60, 120, 180, 360, 720, 1440, 10080].map((m) => m * 60_000);
const MAX_SPARKLINE_BUCKETS = 30;

type IssueRecord = {
  id: string;
  project_id: string;
  level: EventLevel;
  title: string;
  sample_message: string;
  first_seen: Date;
  last_seen: Date;
  count: string;
  status: IssueStatus;
  regressed_at: Date | null;
  assignee_id: string | null;
  window_count: string;
};

function resolveWindow(filters: { since?: Date; until?: Date }, now = new Date()) {
  assertSupportedTimes(filters);
  const until = filters.until ?? null;
  const since = filters.since ?? new Date((until ?? now).getTime() - DEFAULT_ISSUE_WINDOW_MS);
  if (until && since >= until) throw errors.validation([{ path: "until", message: "until must be after since." }]);
  const end = until ?? now;
  // Sparkline buckets aligned to their size (so whole hours come from the hourly counts).
  const span = end.getTime() - since.getTime();
  const bucketMs = BUCKET_SIZES_MS.find((size) => span / size <= MAX_SPARKLINE_BUCKETS) ?? BUCKET_SIZES_MS.at(-1)!;
  const buckets = Math.max(1, Math.ceil((end.getTime() - Math.floor(since.getTime() / bucketMs) * bucketMs) / bucketMs));
  const start = new Date(Math.floor((end.getTime() - 1) / bucketMs) * bucketMs - (buckets - 1) * bucketMs);
  return { since, until, end, bucketMs, start, buckets };
}

// Sort columns: the column of the listed issues and how a cursor carries its value.
const SORTS = {
  last_seen: { column: "last_seen", kind: "time" },
  first_seen: { column: "first_seen", kind: "time" },
  events: { column: "window_count", kind: "number" },
  total: { column: "count", kind: "number" },
} as const satisfies Record<IssueSort, { column: keyof IssueRecord; kind: "time" | "number" }>;

type IssueCursor = { sort: IssueSort; value: string; id: string };

function encodeIssueCursor(cursor: IssueCursor): string {
  return Buffer.from(JSON.stringify([1, cursor.sort, cursor.value, cursor.id]), "utf8").toString("base64url");
}

function decodeIssueCursor(text: string, sort: IssueSort): IssueCursor {
  try {
    const [version, s, value, id] = JSON.parse(Buffer.from(text, "base64url").toString("utf8")) as unknown[];
    const ok =
      version === 1 &&
      s === sort &&
      typeof value === "string" &&
      typeof id === "string" &&
      /^[0-9a-f-]{36}$/.test(id) &&
      (SORTS[sort].kind === "time" ? !Number.isNaN(Date.parse(value)) : /^\d{1,19}$/.test(value));
    if (ok) return { sort, value: value as string, id: id as string };
  } catch {
    // not one of ours
  }
  throw errors.validation([{ path: "cursor", message: "Not a valid cursor for this sort: pass nextCursor from a previous answer unchanged." }]);
}

function toIssueView(row: IssueRecord, since: Date, sparkline: number[]): IssueView {
  const regressedAt = row.regressed_at ? new Date(row.regressed_at) : null;
  const firstSeen = new Date(row.first_seen);
  const isNew = firstSeen >= since;
  return {
    id: row.id,
    projectId: row.project_id,
    level: row.level,
    title: row.title,
    sampleMessage: row.sample_message,
    firstSeen: firstSeen.toISOString(),
    lastSeen: new Date(row.last_seen).toISOString(),
    count: Number(row.count),
    status: row.status,
    regressedAt: regressedAt?.toISOString() ?? null,
    assigneeId: row.assignee_id,
    windowCount: Number(row.window_count),
    isNew,
    isRegressed: regressedAt !== null && regressedAt >= since,
    sparkline,
  };
}

async function sparklines(
  projectId: string,
  issueIds: string[],
  { start, bucketMs, buckets }: { start: Date; bucketMs: number; buckets: number },
): Promise<Map<string, number[]>> {
  const out = new Map(issueIds.map((id) => [id, new Array<number>(buckets).fill(0)]));
  if (issueIds.length === 0) return out;
  const counts = bucketCounts({ projectIds: [projectId], issueIds, start, end: new Date(start.getTime() + buckets * bucketMs), bucketMs });
  const rows = await sqlDb()
    .selectFrom(counts.as("c"))
    .select((eb) => ["c.issue_id", "c.b", eb.cast<string>(eb.fn.sum("c.n"), "bigint").as("n")])
    .groupBy(["c.issue_id", "c.b"])
    .execute();
  for (const row of rows) {
    const line = out.get(row.issue_id);
    if (line && row.b >= 0 && row.b < buckets) line[row.b]! += Number(row.n);
  }
  return out;
}

// With the id as text (`i.id::text AS id`): a cursor's id is compared as text.
const ISSUE_COLUMNS = ["i.project_id", "i.level", "i.title", "i.sample_message", "i.first_seen", "i.last_seen", "i.count", "i.status", "i.regressed_at", "i.assignee_id"] as const;

/**
/** The list's environment, release and tag filters as tags. */
function issueTagFilters(filters: IssueFilters): { key: string; value: string }[] {
  return [
    ...(filters.environment ? [{ key: "environment", value: filters.environment }] : []),
    ...(filters.release ? [{ key: "release", value: filters.release }] : []),
    ...(filters.tag ?? []),
  ];
}

/**
 * A page of the project's issues that had events in the window (default the
 * last 24 hours), with their exact window counts, new and regressed flags and
 * a sparkline. Keyset pagination on the sort key and the id.
 */
export async function listProjectIssues(
  access: ProjectAccess,
  filters: IssueFilters = {},
  now = new Date(),
): Promise<{ issues: IssueView[]; nextCursor: string | null; window: IssueWindow }> {
  const window = resolveWindow(filters, now);
  const sort = filters.sort ?? "last_seen";
  const limit = filters.limit ?? DEFAULT_ISSUES_LIMIT;
  const cursor = filters.cursor ? decodeIssueCursor(filters.cursor, sort) : null;
  const statuses = filters.status ?? ["open"];

  const { column, kind } = SORTS[sort];
  // The tag filters read the tag counts: what was ingested before this call is in them first.
  if (issueTagFilters(filters).some((tag) => tag.key !== "level")) await settleTagCounts();
  // The window's counts once (MATERIALIZED), then joined to the issues.
  const rows: IssueRecord[] = await sqlDb()
    .with(
      (cte) => cte("win").materialized(),
      (db) =>
        db
          .selectFrom(windowCountsQuery({ projectIds: [access.projectId], since: window.since, until: window.until }).as("p"))
          .select((eb) => ["p.issue_id", eb.cast<string>(eb.fn.sum("p.n"), "bigint").as("window_count")])
          .groupBy("p.issue_id")
          .having((eb) => eb(eb.fn.sum("p.n"), ">", sql.lit(0))),
    )
    .with("listed", (db) =>
      db
        .selectFrom("win")
        .innerJoin("issues as i", "i.id", "win.issue_id")
        .select((eb) => [eb.cast<string>(eb.ref("i.id"), "text").as("id"), ...ISSUE_COLUMNS, "win.window_count"])
        .where((eb) => {
          // Compared as the enums, not as text: a cast column has no
          // statistics, and the planner then expects one issue and nests the
          // window's aggregate inside a loop over them (docs/performance.md#figures-behind-the-code).
          const conditions: Expression<SqlBool>[] = [eb("i.project_id", "=", access.projectId), eb("i.status", "=", eb.fn.any(eb.val(statuses)))];
          if (filters.level?.length) conditions.push(eb("i.level", "=", eb.fn.any(eb.val(filters.level))));
          if (filters.q) {
            const pattern = `%${escapeLike(filters.q)}%`;
            conditions.push(eb.or([ilike(eb.ref("i.title"), pattern), ilike(eb.ref("i.sample_message"), pattern)]));
          }
          for (const tag of issueTagFilters(filters)) {
            // `level` is no counted tag: the issue's own level answers it.
            if (tag.key === "level") conditions.push(sql<SqlBool>`${eb.ref("i.level")}::text = ${tag.value}`);
            else conditions.push(issueHasTag(eb.ref("i.id"), access.projectId, tag, { since: window.since, until: window.until }));
          }
          return eb.and(conditions);
        }),
    )
    .selectFrom("listed")
    .selectAll()
    .$if(cursor !== null, (q) =>
      q.where((eb) =>
        eb(eb.refTuple(column, "id"), "<", eb.tuple(kind === "time" ? sql<Date>`${new Date(cursor!.value)}::timestamptz` : sql<string>`${cursor!.value}::bigint`, cursor!.id)),
      ),
    )
    .orderBy(column, "desc")
    .orderBy("id", "desc")
    .limit(limit + 1)
    .execute();

  const page = rows.slice(0, limit);
  const lines = await sparklines(access.projectId, page.map((r) => r.id), window);
  const last = page.at(-1);
  const value = (r: IssueRecord) => {
    const v = sort === "events" ? r.window_count : sort === "total" ? r.count : sort === "first_seen" ? r.first_seen : r.last_seen;
    return v instanceof Date ? v.toISOString() : String(v);
  };
  return {
    issues: page.map((r) => toIssueView(r, window.since, lines.get(r.id)!)),
    nextCursor: rows.length > limit && last ? encodeIssueCursor({ sort, value: value(last), id: last.id }) : null,
    window: { since: window.since.toISOString(), until: window.end.toISOString(), bucketMs: window.bucketMs },
  };
}

/** One issue of the project with its counts in the window (default the last 24 hours) and its workflow state, or 404. */
export async function getProjectIssue(
  access: ProjectAccess,
  issueId: string,
  filters: { since?: Date; until?: Date } = {},
  now = new Date(),
): Promise<IssueView & Omit<IssueWorkflowView, "id" | "status"> & { window: IssueWindow }> {
  const window = resolveWindow(filters, now);
  // The issue, its sparkline and its workflow state at once: each is scoped
  // to the project and the issue, and a missing issue is a 404 either way.
  const [row, lines, { id: _id, status: _status, ...workflow }] = await Promise.all([
    issueRow(access, issueId, window),
    sparklines(access.projectId, [issueId], window),
    getIssueWorkflow(access, issueId),
  ]);
  if (!row) throw errors.notFound("No issue with this id in this project.");
  return {
    ...toIssueView(row, window.since, lines.get(issueId)!),
    ...workflow,
    window: { since: window.since.toISOString(), until: window.end.toISOString(), bucketMs: window.bucketMs },
  };
}

/** The start of the window an issue is shown for (default the last 24 hours); a validation error for a window it refuses. */
export function issueWindowSince(filters: { since?: Date; until?: Date } = {}, now = new Date()): Date {
  return resolveWindow(filters, now).since;
}

function issueRow(access: ProjectAccess, issueId: string, window: { since: Date; until: Date | null }): Promise<IssueRecord | undefined> {
  return sqlDb()
    .selectFrom("issues as i")
    .select((eb) => [
      eb.cast<string>(eb.ref("i.id"), "text").as("id"),
      ...ISSUE_COLUMNS,
      eb
        .selectFrom(windowCountsQuery({ projectIds: [access.projectId], since: window.since, until: window.until, issueIds: [issueId] }).as("p"))
        .select((eb) => eb.cast<string>(eb.fn.coalesce(eb.fn.sum("p.n"), eb.lit(0)), "bigint").as("n"))
        .$asScalar()
        .as("window_count"),
    ])
    .where("i.id", "=", issueId)
    .where("i.project_id", "=", access.projectId)
    .executeTakeFirst();
}
