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
import { looksLikeInstructions, rankTop } from "@/lib/ai/rank";
import { prisma, Prisma, queryRows } from "@/lib/db/client";
import type { EventLevel } from "@/lib/events/schema";
import { windowCountsSql } from "@/lib/issues/window-counts";
import { lastEventAtSql } from "@/lib/events/last-event";

const zero = (): LevelCounts => ({ error: 0, warn: 0, info: 0 });

type IssueRow = {
  id: string;
  project_id: string;
  level: EventLevel;
  title: string;
  sample: string;
  status: IssueStatus;
  first_seen: Date;
  last_seen: Date;
  regressed_at: Date | null;
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
    countsByIssue(projectIds, since, null),
    countsByIssue(projectIds, previousSince, since),
    prisma.$queryRaw<{ project_id: string; last: Date | null }[]>`
      SELECT p.id AS project_id, ${lastEventAtSql(Prisma.sql`p.id`)} AS last FROM unnest(${projectIds}::text[]) AS p(id)`,
  ]);

  const projectFacts = new Map<string, ProjectFacts>(
    projects.map((p) => [p.id, { projectId: p.id, name: p.name, window: zero(), previous: zero(), lastEventAt: null, quiet: false }]),
  );
  const totals = zero();
  for (const c of current) {
    projectFacts.get(c.projectId)!.window[c.level] += c.count;
    totals[c.level] += c.count;
  }
  for (const c of previous) projectFacts.get(c.projectId)!.previous[c.level] += c.count;
  for (const row of lastEvents) projectFacts.get(row.project_id)!.lastEventAt = row.last ? new Date(row.last) : null;
  for (const p of projectFacts.values()) {
    p.quiet = p.previous.error + p.previous.warn + p.previous.info > 0 && p.window.error + p.window.warn + p.window.info === 0;
  }

  const windowByIssue = sumByIssue(current);
  const previousByIssue = sumByIssue(previous);
  const issueRows = windowByIssue.size === 0 ? [] : await issuesByIds([...windowByIssue.keys()]);
  const names = new Map(projects.map((p) => [p.id, p.name]));
  const candidates = issueRows.map((row): IssueFacts => {
    const firstSeen = new Date(row.first_seen);
    const lastSeen = new Date(row.last_seen);
    const regressedAt = row.regressed_at ? new Date(row.regressed_at) : null;
    const isNew = firstSeen >= since;
    return {
      issueId: row.id,
      projectId: row.project_id,
      projectName: names.get(row.project_id) ?? row.project_id,
      level: row.level,
      title: row.title,
      sampleMessage: row.sample,
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
  const kept = rankTop(candidates, MAX_ISSUES_IN_FACTS, (i) => looksLikeInstructions(i.title) || looksLikeInstructions(i.sampleMessage));
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

async function countsByIssue(projectIds: string[], since: Date, until: Date | null) {
  if (projectIds.length === 0 || (until && until <= since)) return [];
  const rows = await queryRows<{ issue_id: string; project_id: string; level: EventLevel; n: string }>(Prisma.sql`
    SELECT issue_id::text, project_id, level::text AS level, sum(n)::bigint AS n
    FROM ${windowCountsSql({ projectIds, since, until })} AS p
    GROUP BY issue_id, project_id, level`);
  return rows.map((r) => ({ issueId: r.issue_id, projectId: r.project_id, level: r.level, count: Number(r.n) }));
}

function sumByIssue(rows: { issueId: string; count: number }[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const r of rows) out.set(r.issueId, (out.get(r.issueId) ?? 0) + r.count);
  return out;
}

async function issuesByIds(ids: string[]): Promise<IssueRow[]> {
  return queryRows<IssueRow>(Prisma.sql`
    SELECT id::text, project_id, level::text AS level, title, left(sample_message, ${MESSAGE_READ_CHARS}::int) AS sample,
           status::text AS status, first_seen, last_seen, regressed_at
    FROM issues WHERE id = ANY(${ids}::uuid[])`);
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

