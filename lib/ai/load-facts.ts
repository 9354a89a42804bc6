import {
  CONTEXT_READ_CHARS,
  MAX_ISSUES_IN_FACTS,
  MESSAGE_READ_CHARS,
  ONGOING_MS,
  type ExaminedEvent,
  type IssueFacts,
  type IssueStatus,
  type LevelCounts,
  type ProjectFacts,
  type SummaryFacts,
} from "@/lib/ai/facts";
import { looksLikeInstructions, rankIssues, rankTop } from "@/lib/ai/rank";
import { prisma, Prisma, queryRows } from "@/lib/db/client";
import type { EventLevel } from "@/lib/events/schema";
import { windowCountsByIssue, windowIssuesSql } from "@/lib/issues/window-counts";
import { lastEventAtSql } from "@/lib/events/last-event";

const zero = (): LevelCounts => ({ error: 0, warn: 0, info: 0 });

/** An issue with events in the window: its count at one level, and what ranking reads of it. */
type WindowIssueRow = {
  id: string;
  project_id: string;
  /** The level of this row's events, and their number in the window. */
  level: EventLevel;
  n: string;
  issue_level: EventLevel;
  status: IssueStatus;
  /** Unix ms: pg parses a number much faster than a timestamp's text (4,700 issues: 10 ms). */
  first_seen: number;
  last_seen: number;
  regressed_at: number | null;
};

type EventRow = {
  id: string;
  issue_id: string;
  project_id: string;
  level: EventLevel;
  occurred_at: Date;
  message: string;
  message_length: number;
  context_text: string | null;
  context_length: number | null;
};

/**
 * The facts of a summary for `projects` over [since, now] (no upper bound:
 * events a client dated slightly ahead count too), and the previous window
 * of the same length: exact totals from the issue aggregates, issues ranked,
 * and at most `limit` events examined in detail, chosen by rank.
 */
export async function loadSummaryFacts(options: {
  projects: { id: string; name: string }[];
  since: Date;
  now: Date;
  limit: number;
}): Promise<SummaryFacts> {
  const { projects, since, now, limit } = options;
  const projectIds = projects.map((p) => p.id);
  const previousSince = new Date(since.getTime() - Math.max(0, now.getTime() - since.getTime()));

  const [current, previous, lastEvents] = await Promise.all([
    windowIssues(projectIds, since),
    countsByIssue(projectIds, previousSince, since),
    prisma.$queryRaw<{ project_id: string; last: Date | null }[]>`
      SELECT p.id AS project_id, ${lastEventAtSql(Prisma.sql`p.id`)} AS last FROM unnest(${projectIds}::text[]) AS p(id)`,
  ]);

  const projectFacts = new Map<string, ProjectFacts>(
    projects.map((p) => [p.id, { projectId: p.id, name: p.name, window: zero(), previous: zero(), lastEventAt: null, quiet: false }]),
  );
  const totals = zero();
  const windowByIssue = new Map<string, number>();
  const issueRows = new Map<string, WindowIssueRow>();
  for (const row of current) {
    const n = Number(row.n);
    projectFacts.get(row.project_id)!.window[row.level] += n;
    totals[row.level] += n;
    windowByIssue.set(row.id, (windowByIssue.get(row.id) ?? 0) + n);
    issueRows.set(row.id, row);
  }
  for (const c of previous) projectFacts.get(c.projectId)!.previous[c.level] += c.count;
  for (const row of lastEvents) projectFacts.get(row.project_id)!.lastEventAt = row.last ? new Date(row.last) : null;
  for (const p of projectFacts.values()) {
    p.quiet = p.previous.error + p.previous.warn + p.previous.info > 0 && p.window.error + p.window.warn + p.window.info === 0;
  }

  const previousByIssue = sumByIssue(previous);
  const names = new Map(projects.map((p) => [p.id, p.name]));
  const candidates = [...issueRows.values()].map((row): IssueFacts => {
    const firstSeen = new Date(row.first_seen);
    const lastSeen = new Date(row.last_seen);
    const regressedAt = row.regressed_at === null ? null : new Date(row.regressed_at);
    const isNew = firstSeen >= since;
    return {
      issueId: row.id,
      projectId: row.project_id,
      projectName: names.get(row.project_id) ?? row.project_id,
      level: row.issue_level,
      // Read for the issues ranking judges only (rankKept).
      title: "",
      sampleMessage: "",
      status: row.status,
      firstSeen,
      lastSeen,
      regressedAt,
      windowCount: windowByIssue.get(row.id) ?? 0,
      previousCount: previousByIssue.get(row.id) ?? 0,
      // Exact for the issues kept (below); for the others, bounds.
      windowFirst: isNew ? firstSeen : since,
      windowLast: lastSeen,
      isNew,
      isRegression: !isNew && regressedAt !== null && regressedAt >= since,
      ongoing: now.getTime() - lastSeen.getTime() <= ONGOING_MS,
      // Judged by rankTop, for the issues that can make the top only.
      instructionLike: false,
    };
  });
  const kept = await rankKept(candidates, projectIds);
  await fillWindowFirst(kept, since);

  return {
    now,
    since,
    totals,
    projects: [...projectFacts.values()].sort(
      (a, b) => b.window.error - a.window.error || total(b.window) - total(a.window) || a.name.localeCompare(b.name),
    ),
    issues: kept,
    issueCount: candidates.length,
    examined: await examineEvents(kept, since, limit),
  };
}

function total(c: LevelCounts): number {
  return c.error + c.warn + c.info;
}

/** Issues with events in [since, now and after]: their counts per level, and the columns ranking reads. */
async function windowIssues(projectIds: string[], since: Date): Promise<WindowIssueRow[]> {
  if (projectIds.length === 0) return [];
  return queryRows<WindowIssueRow>(
    windowIssuesSql(
      { projectIds, since, until: null },
      Prisma.sql`i.id::text, i.project_id, win.level::text AS level, win.n, i.level::text AS issue_level,
                 i.status::text AS status, ${epochMs(Prisma.sql`i.first_seen`)} AS first_seen,
                 ${epochMs(Prisma.sql`i.last_seen`)} AS last_seen, ${epochMs(Prisma.sql`i.regressed_at`)} AS regressed_at`,
    ),
  );
}

/** A timestamptz(3) as unix milliseconds, exactly, read by pg as a number. */
const epochMs = (column: Prisma.Sql) => Prisma.sql`(extract(epoch FROM ${column}) * 1000)::float8`;

async function countsByIssue(projectIds: string[], since: Date, until: Date | null) {
  if (projectIds.length === 0 || (until && until <= since)) return [];
  return windowCountsByIssue({ projectIds, since, until });
}

function sumByIssue(rows: { issueId: string; count: number }[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const r of rows) out.set(r.issueId, (out.get(r.issueId) ?? 0) + r.count);
  return out;
}

// Texts read at first for the ranking's judge: the top, and room for some
// that read like instructions and wait behind the others.
const FIRST_TEXTS = MAX_ISSUES_IN_FACTS + 14;

/**
 * rankTop over the candidates, reading titles and sample messages only for
 * the issues it judges: a prefix of the rank order (rankIssues, before any
 * judgement), read for the first FIRST_TEXTS and four times as many each
 * time the judge reaches past what was read. A 7-day summary of 20 busy
 * projects ranks 4,700 issues: reading every one's text took 47 ms.
 */
async function rankKept(candidates: IssueFacts[], projectIds: string[]): Promise<IssueFacts[]> {
  const order = rankIssues(candidates);
  let read = 0;
  for (let want = FIRST_TEXTS; ; want *= 4) {
    const next = order.slice(read, want);
    read += next.length;
    if (next.length > 0) {
      const texts = new Map((await issueTexts(next.map((i) => i.issueId), projectIds)).map((t) => [t.id, t]));
      for (const issue of next) {
        issue.title = texts.get(issue.issueId)?.title ?? "";
        issue.sampleMessage = texts.get(issue.issueId)?.sample ?? "";
      }
    }
    const known = new Set(order.slice(0, read));
    let reachedPast = false;
    // Given in rank order, rankTop's own sort finds it sorted (linear).
    const kept = rankTop(order, MAX_ISSUES_IN_FACTS, (i) => {
      if (!known.has(i)) reachedPast = true;
      return looksLikeInstructions(i.title) || looksLikeInstructions(i.sampleMessage);
    });
    if (!reachedPast || read === order.length) return kept;
  }
}

async function issueTexts(ids: string[], projectIds: string[]): Promise<{ id: string; title: string; sample: string }[]> {
  return queryRows(Prisma.sql`
    SELECT id::text, title, left(sample_message, ${MESSAGE_READ_CHARS}::int) AS sample
    FROM issues WHERE id = ANY(${ids}::uuid[]) AND project_id = ANY(${projectIds}::text[])`);
}

/** The first event of each kept issue in the window, exactly (one index probe each). */
async function fillWindowFirst(issues: IssueFacts[], since: Date): Promise<void> {
  const unknown = issues.filter((i) => !i.isNew);
  if (unknown.length === 0) return;
  const rows = await prisma.$queryRaw<{ issue_id: string; first: Date | null }[]>`
    SELECT i.id::text AS issue_id, f.first
    FROM unnest(${unknown.map((i) => i.issueId)}::uuid[]) AS i(id)
    CROSS JOIN LATERAL (
      SELECT occurred_at AS first FROM events WHERE issue_id = i.id AND occurred_at >= ${since}
      ORDER BY occurred_at ASC LIMIT 1
    ) f`;
  const first = new Map(rows.map((r) => [r.issue_id, r.first]));
  for (const issue of unknown) {
    const at = first.get(issue.issueId);
    if (at) issue.windowFirst = new Date(at);
  }
}

/**
 * At most `limit` events, by rank: the newest event of each issue in rank
 * order, then more of the top issues' newest events, round-robin. Text is
 * cut in SQL, so a 500-event summary of 256 KiB contexts never reads them whole.
 */
async function examineEvents(issues: IssueFacts[], since: Date, limit: number): Promise<ExaminedEvent[]> {
  if (issues.length === 0 || limit <= 0) return [];
  // Quota per issue: one each down the ranking, the rest spread over the top five.
  const quota = new Map<string, number>();
  for (const issue of issues.slice(0, limit)) quota.set(issue.issueId, 1);
  let left = limit - quota.size;
  const top = issues.slice(0, 5).filter((i) => i.windowCount > 1);
  for (let round = 0; left > 0 && top.length > 0; round++) {
    let gave = false;
    for (const issue of top) {
      if (left === 0) break;
      const q = quota.get(issue.issueId)!;
      if (q < issue.windowCount) {
        quota.set(issue.issueId, q + 1);
        left--;
        gave = true;
      }
    }
    if (!gave) break;
  }
  const ids = [...quota.keys()];
  const rows = await prisma.$queryRaw<EventRow[]>`
    SELECT e.id::text, e.issue_id::text, e.project_id, e.level::text AS level, e.occurred_at,
           left(e.message, ${MESSAGE_READ_CHARS}::int) AS message, length(e.message)::int AS message_length,
           left(e.context::text, ${CONTEXT_READ_CHARS}::int) AS context_text, length(e.context::text)::int AS context_length
    FROM unnest(${ids}::uuid[], ${ids.map((id) => quota.get(id)!)}::int[]) AS q(issue_id, n)
    CROSS JOIN LATERAL (
      SELECT * FROM events ev WHERE ev.issue_id = q.issue_id AND ev.occurred_at >= ${since}
      ORDER BY ev.occurred_at DESC, ev.id DESC LIMIT q.n
    ) e`;
  const rank = new Map(issues.map((issue, i) => [issue.issueId, i]));
  const seenPerIssue = new Map<string, number>();
  // Order: the newest of each issue by rank first, then the extra samples.
  const ordered = rows
    .map((row) => {
      const nth = seenPerIssue.get(row.issue_id) ?? 0;
      seenPerIssue.set(row.issue_id, nth + 1);
      return { row, nth };
    })
    .sort((a, b) => a.nth - b.nth || rank.get(a.row.issue_id)! - rank.get(b.row.issue_id)!);
  return ordered.map(({ row }) => ({
    id: row.id,
    issueId: row.issue_id,
    projectId: row.project_id,
    level: row.level,
    occurredAt: new Date(row.occurred_at),
    message: row.message,
    messageLength: row.message_length,
    contextText: compactContext(row.context_text, row.context_length ?? 0),
    contextLength: row.context_length ?? 0,
  }));
}

/** jsonb's text form has spaces after ':' and ','; re-serialise it compactly when it is whole. */
function compactContext(text: string | null, fullLength: number): string | null {
  if (text === null) return null;
  if (fullLength > text.length) return text;
  try {
    return JSON.stringify(JSON.parse(text));
  } catch {
    return text;
  }
}

// Exported for the summary's cache key: the facts that change a summary.
export function factsFingerprint(facts: SummaryFacts): string {
  return JSON.stringify([
    facts.totals,
    facts.issues.map((i) => [i.issueId, i.windowCount, i.previousCount, i.lastSeen.getTime(), i.status]),
    facts.projects.map((p) => [p.projectId, total(p.window), total(p.previous)]),
    facts.examined.map((e) => e.id),
  ]);
}

