import { prisma, Prisma } from "@/lib/db/client";
import { assertSupportedTimes } from "@/lib/events/list";
import type { EventLevel } from "@/lib/events/schema";
import { errors } from "@/lib/http/errors";
import {
  DEFAULT_ISSUE_WINDOW_MS,
  DEFAULT_ISSUES_LIMIT,
  type IssueFilters,
  type IssueSort,
  type IssueStatus,
} from "@/lib/issues/filters";
import { bucketCountsSql, windowCountsSql } from "@/lib/issues/window-counts";
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
  /** Events in the window asked for, exact. */
  windowCount: number;
  /** First seen in the window. */
  isNew: boolean;
  /** Reopened in the window (a resolved issue that got an event), not new. */
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
  count: bigint | number;
  status: IssueStatus;
  regressed_at: Date | null;
  window_count: bigint | number;
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

// Sort columns: their SQL and how a cursor carries their value.
const SORTS: Record<IssueSort, { sql: Prisma.Sql; kind: "time" | "number" }> = {
  last_seen: { sql: Prisma.sql`last_seen`, kind: "time" },
  first_seen: { sql: Prisma.sql`first_seen`, kind: "time" },
  events: { sql: Prisma.sql`window_count`, kind: "number" },
  total: { sql: Prisma.sql`count`, kind: "number" },
};

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
    windowCount: Number(row.window_count),
    isNew,
    isRegressed: !isNew && regressedAt !== null && regressedAt >= since,
    sparkline,
  };
}

async function sparklines(
  projectId: string,
  issueIds: string[],
  { start, end, bucketMs, buckets }: { start: Date; end: Date; bucketMs: number; buckets: number },
): Promise<Map<string, number[]>> {
  const out = new Map(issueIds.map((id) => [id, new Array<number>(buckets).fill(0)]));
  if (issueIds.length === 0) return out;
  const rows = await prisma.$queryRaw<{ issue_id: string; b: number; n: bigint | number }[]>`
    SELECT issue_id::text, b, sum(n)::bigint AS n
    FROM (${bucketCountsSql({ projectIds: [projectId], issueIds, start, end: new Date(start.getTime() + buckets * bucketMs), bucketMs })}) AS c
    GROUP BY 1, 2`;
  for (const row of rows) {
    const line = out.get(row.issue_id);
    if (line && row.b >= 0 && row.b < buckets) line[row.b]! += Number(row.n);
  }
  return out;
}

const ISSUE_COLUMNS = Prisma.sql`i.id::text AS id, i.project_id, i.level::text AS level, i.title, i.sample_message, i.first_seen, i.last_seen, i.count, i.status::text AS status, i.regressed_at`;

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

  const conditions: Prisma.Sql[] = [Prisma.sql`i.project_id = ${access.projectId}`, Prisma.sql`i.status = ANY(${statuses}::issue_status[])`];
  // Compared as the enums, not as text: a cast column has no statistics, and
  // the planner then expects one issue and nests the window's aggregate
  // inside a loop over them (10 s on a 10-million-event project).
  if (filters.level?.length) conditions.push(Prisma.sql`i.level = ANY(${filters.level}::event_level[])`);
  if (filters.q) {
    const pattern = `%${filters.q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
    conditions.push(Prisma.sql`(i.title ILIKE ${pattern} ESCAPE '\\' OR i.sample_message ILIKE ${pattern} ESCAPE '\\')`);
  }
  const { sql: sortSql, kind } = SORTS[sort];
  const after = cursor
    ? kind === "time"
      ? Prisma.sql`WHERE (${sortSql}, id) < (${new Date(cursor.value)}::timestamptz, ${cursor.id})`
      : Prisma.sql`WHERE (${sortSql}, id) < (${BigInt(cursor.value)}::bigint, ${cursor.id})`
    : Prisma.empty;

  // The window's counts once (MATERIALIZED), then joined to the issues.
  const rows = await prisma.$queryRaw<(IssueRecord & { id: string })[]>`
    WITH win AS MATERIALIZED (
      SELECT issue_id, sum(n)::bigint AS window_count
      FROM ${windowCountsSql({ projectIds: [access.projectId], since: window.since, until: window.until })} AS p
      GROUP BY issue_id HAVING sum(n) > 0
    ),
    listed AS (
      SELECT ${ISSUE_COLUMNS}, win.window_count
      FROM win JOIN issues i ON i.id = win.issue_id
      WHERE ${Prisma.join(conditions, " AND ")}
    )
    SELECT * FROM listed ${after}
    ORDER BY ${sortSql} DESC, id DESC
    LIMIT ${limit + 1}`;

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

/** One issue of the project with its counts in the window (default the last 24 hours), or 404. */
export async function getProjectIssue(
  access: ProjectAccess,
  issueId: string,
  filters: { since?: Date; until?: Date } = {},
  now = new Date(),
): Promise<IssueView & { window: IssueWindow }> {
  const window = resolveWindow(filters, now);
  const rows = await prisma.$queryRaw<IssueRecord[]>`
    SELECT ${ISSUE_COLUMNS},
      (SELECT coalesce(sum(n), 0)::bigint FROM ${windowCountsSql({ projectIds: [access.projectId], since: window.since, until: window.until, issueIds: [issueId] })} AS p) AS window_count
    FROM issues i WHERE i.id = ${issueId}::uuid AND i.project_id = ${access.projectId}`;
  if (rows.length === 0) throw errors.notFound("No issue with this id in this project.");
  const lines = await sparklines(access.projectId, [issueId], window);
  return {
    ...toIssueView(rows[0]!, window.since, lines.get(issueId)!),
    window: { since: window.since.toISOString(), until: window.end.toISOString(), bucketMs: window.bucketMs },
  };
}

/** Resolve, ignore or reopen an issue (any member). A resolved issue reopens by itself on its next event. */
export async function setIssueStatus(access: ProjectAccess, issueId: string, status: IssueStatus): Promise<{ id: string; status: IssueStatus }> {
  const updated = await prisma.$queryRaw<{ id: string; status: IssueStatus }[]>`
    UPDATE issues SET status = ${status}::issue_status,
      status_changed_at = CASE WHEN status = ${status}::issue_status THEN status_changed_at ELSE now() END
    WHERE id = ${issueId}::uuid AND project_id = ${access.projectId}
    RETURNING id::text, status::text AS status`;
  if (updated.length === 0) throw errors.notFound("No issue with this id in this project.");
  return updated[0]!;
}
