import { canShift, CHANGE_READ_CAP, changeCandidates, eventInputs, readWhole, shiftsOf, SKIPPED_TAG_KEYS, tagInputs, toShift, valueFloors, type ShiftInput } from "@/lib/ai/changes";
import {
  CONTEXT_READ_CHARS,
  MAX_DEPLOYS_IN_FACTS,
  MAX_ISSUES_IN_FACTS,
  MESSAGE_READ_CHARS,
  ONGOING_MS,
  type ExaminedEvent,
  type IssueFacts,
  type LevelCounts,
  type Deploy,
  type Motion,
  type ProjectFacts,
  type ShapeGrid,
  type SummaryFacts,
  type ValueShift,
} from "@/lib/ai/facts";
import { lifetimeFrom, lifetimeOf, motionOf, shapeGrid } from "@/lib/ai/motion";
import { LEVEL_ORDER, looksLikeInstructions, rankIssues, rankTop } from "@/lib/ai/rank";
import { firstEventsSince, firstEventsWithTag, lateEventCounts, newestEventsOfIssues, valueCountsOfIssues } from "@/lib/events/samples";
import { latestEventTimes } from "@/lib/issues/last-event";
import type { EventLevel } from "@/lib/events/schema";
import { issueTexts, windowIssueRows, type WindowIssueRow } from "@/lib/issues/reads";
import { firstTagHours, tagValueCounts } from "@/lib/issues/tag-counts";
import { releasesFirstSeenSince } from "@/lib/releases/reads";
import { bucketCountsQuery, dailyCountsByIssue, windowCountsByIssue } from "@/lib/issues/window-counts";

const zero = (): LevelCounts => ({ error: 0, warn: 0, info: 0 });
const MINUTE_MS = 60_000;
const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
const still = (): Motion => ({ accelerating: null, stopped: null });

/**
 * Issues whose shape is read (before the final ranking, which uses it): the
 * first of each level in rank order (by novelty, growth and count), and each
 * project's busiest, whose sum is the project's shape. Bounded by the rows
 * the shapes read (a 7-day window reads 168 hourly rows per issue, an hour
 * 60 minute rows), so a 7-day summary of 20 busy projects shapes about 24
 * issues, a 24-hour one 100.
 */
const SHAPE_ROW_BUDGET = 4_000;
const MAX_SHAPED = 100;
const MIN_SHAPED = 12;
/** The order issues are chosen in: the top few of each level, each project's busiest, then more of each. */
const SHAPE_PHASES: { perLevel: Record<EventLevel, number>; perProject: number }[] = [
  { perLevel: { error: 5, warn: 3, info: 2 }, perProject: 1 },
  { perLevel: { error: 20, warn: 15, info: 10 }, perProject: 3 },
];

/**
 * The facts of a summary for `projects` over [since, now] (no upper bound:
 * events a client dated slightly ahead count too), and the previous window
 * of the same length: exact totals from the issue aggregates, the shape of
 * the top issues and of each project inside the window, the life of the
 * known ones, issues ranked, and at most `limit` events examined in detail,
 * chosen by rank.
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
  const grid = shapeGrid(since, now);

  const names = new Map(projects.map((p) => [p.id, p.name]));
  // Needs no ranking: read from the start, awaited with the last reads.
  const deploys = readDeploys(projectIds, names, since);
  deploys.catch(() => {});
  const [current, previous, lastEvents] = await Promise.all([
    windowIssueRows(projectIds, since),
    countsByIssue(projectIds, previousSince, since),
    latestEventTimes(projectIds),
  ]);

  const projectFacts = new Map<string, ProjectFacts>(
    projects.map((p) => [
      p.id,
      { projectId: p.id, name: p.name, window: zero(), previous: zero(), lastEventAt: null, quiet: false, shape: new Array<number>(grid.starts.length).fill(0), shapeCoverage: 1, motion: still() },
    ]),
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
  for (const [id, last] of lastEvents) projectFacts.get(id)!.lastEventAt = last;
  for (const p of projectFacts.values()) {
    p.quiet = p.previous.error + p.previous.warn + p.previous.info > 0 && p.window.error + p.window.warn + p.window.info === 0;
  }

  const previousByIssue = sumByIssue(previous);
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
      shape: null,
      motion: still(),
      lifetime: null,
      resolvedAt: row.resolved_at === null ? null : new Date(row.resolved_at),
      lateCount: 0,
      lateCountAtLeast: false,
      changes: null,
    };
  });

  // Shapes first: "accelerating" and "stopped" take part in the ranking.
  const ranked = rankIssues(candidates);
  const shaped = issuesToShape(ranked, grid);
  // The texts ranking judges first, read beside the shapes: motion only
  // moves shaped issues up, so the first of the final order are among the
  // first of this one and the shaped.
  const shapesAndTexts = Promise.all([
    fillShapes(shaped, grid, projectIds),
    readTexts(new Set([...ranked.slice(0, FIRST_TEXTS), ...shaped].map((i) => i.issueId)), projectIds),
  ]);
  // What changed inside the likely top issues is read meanwhile (the
  // changed values are a summary's longest reads): motion and the texts
  // seldom change which issues those are; one that joins them later is read then.
  const changes = changeReads(projectIds, since, previousSince, now);
  changes.start(changeCandidates(ranked));
  const [, firstTexts] = await shapesAndTexts;
  for (const issue of shaped) {
    issue.motion = motionOf({
      shape: issue.shape,
      grid,
      now,
      lastAt: issue.lastSeen,
      activeFrom: issue.isNew ? issue.firstSeen : since,
      windowCount: issue.windowCount,
      previousCount: issue.previousCount,
    });
  }
  for (const issue of shaped) {
    const project = projectFacts.get(issue.projectId)!;
    issue.shape!.forEach((n, i) => (project.shape[i]! += n));
  }
  for (const p of projectFacts.values()) {
    const windowTotal = total(p.window);
    const shapedTotal = p.shape.reduce((a, b) => a + b, 0);
    p.shapeCoverage = windowTotal === 0 ? 1 : shapedTotal / windowTotal;
    p.motion = motionOf({ shape: p.shape, grid, now, lastAt: p.lastEventAt, activeFrom: since, windowCount: windowTotal, previousCount: total(p.previous) });
  }

  const kept = await rankKept(candidates, projectIds, firstTexts);
  const [examined] = await Promise.all([
    examineEvents(kept, since, limit),
    fillWindowFirst(kept, since),
    fillLifetimes(kept, projectIds, now),
    fillLateCounts(kept, since),
    fillChanges(kept, changes),
  ]);
  // Reads started for issues that did not stay at the top end here too: nothing runs on after the summary.
  await changes.settled();

  return {
    now,
    since,
    totals,
    projects: [...projectFacts.values()].sort(
      (a, b) => b.window.error - a.window.error || total(b.window) - total(a.window) || a.name.localeCompare(b.name),
    ),
    issues: kept,
    issueCount: candidates.length,
    examined,
    grid,
    deploys: await deploys,
  };
}

function total(c: LevelCounts): number {
  return c.error + c.warn + c.info;
}

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
 * time the judge reaches past what was read: reading every candidate's text
 * was a large part of a summary's time (docs/performance.md#reads). Texts in
 * `readBefore` are not read again.
 */
async function rankKept(candidates: IssueFacts[], projectIds: string[], readBefore: Texts): Promise<IssueFacts[]> {
  const order = rankIssues(candidates);
  let read = 0;
  for (let want = FIRST_TEXTS; ; want *= 4) {
    const next = order.slice(read, want);
    read += next.length;
    if (next.length > 0) {
      const missing = new Set(next.filter((i) => !readBefore.has(i.issueId)).map((i) => i.issueId));
      const more = missing.size > 0 ? await readTexts(missing, projectIds) : readBefore;
      const texts = { get: (id: string) => readBefore.get(id) ?? more.get(id) };
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

type Texts = Map<string, { title: string; sample: string }>;

/** Titles and sample messages (their first MESSAGE_READ_CHARS) of the given issues. */
async function readTexts(ids: Set<string>, projectIds: string[]): Promise<Texts> {
  if (ids.size === 0) return new Map();
  return new Map((await issueTexts([...ids], projectIds, MESSAGE_READ_CHARS)).map((t) => [t.id, t]));
}

/** The first event of each kept issue in the window, exactly (one index probe each). */
async function fillWindowFirst(issues: IssueFacts[], since: Date): Promise<void> {
  const unknown = issues.filter((i) => !i.isNew);
  const first = await firstEventsSince(unknown.map((i) => i.issueId), since);
  for (const issue of unknown) {
    const at = first.get(issue.issueId);
    if (at) issue.windowFirst = at;
  }
}

/** The issues whose shape is read, in SHAPE_PHASES order, as many as SHAPE_ROW_BUDGET allows for the grid; `ranked`: the candidates in rankIssues order. */
function issuesToShape(ranked: IssueFacts[], grid: ShapeGrid): IssueFacts[] {
  // The whole buckets the tables are read for (from the second bucket's start to the end of the last).
  const span = grid.starts.length > 1 ? grid.starts.at(-1)!.getTime() - grid.starts[1]!.getTime() + grid.bucketMs : grid.bucketMs;
  const rowsPerIssue = Math.max(1, Math.ceil(span / (grid.bucketMs % HOUR_MS === 0 ? HOUR_MS : MINUTE_MS)));
  const limit = Math.min(MAX_SHAPED, Math.max(MIN_SHAPED, Math.floor(SHAPE_ROW_BUDGET / rowsPerIssue)));
  const byLevel = (level: EventLevel) => ranked.filter((i) => i.level === level);
  const levels = { error: byLevel("error"), warn: byLevel("warn"), info: byLevel("info") };
  const byProject = new Map<string, IssueFacts[]>();
  for (const issue of ranked) {
    const issues = byProject.get(issue.projectId);
    if (issues) issues.push(issue);
    else byProject.set(issue.projectId, [issue]);
  }
  const busiest = (a: IssueFacts, b: IssueFacts) => b.windowCount - a.windowCount || LEVEL_ORDER[a.level] - LEVEL_ORDER[b.level] || (a.issueId < b.issueId ? -1 : 1);
  for (const issues of byProject.values()) issues.sort(busiest);
  // Projects by their busiest issue: when the budget runs out among them,
  // the busiest projects are shaped, whatever order the rows came in.
  const projectsInOrder = [...byProject.values()].sort((a, b) => busiest(a[0]!, b[0]!));
  const chosen = new Set<IssueFacts>();
  for (const phase of SHAPE_PHASES) {
    const wanted = [
      ...(Object.keys(levels) as EventLevel[]).flatMap((level) => levels[level].slice(0, phase.perLevel[level])),
      ...projectsInOrder.flatMap((issues) => issues.slice(0, phase.perProject)),
    ];
    for (const issue of wanted) {
      if (chosen.size >= limit) return [...chosen];
      chosen.add(issue);
    }
  }
  return [...chosen];
}

/**
 * Each issue's events per bucket of the grid: every bucket after the first
 * from the hourly or minute counts (whole units, through the tables' primary
 * keys, one range per issue), the first (from `since`, which need not fall
 * on a unit) as the exact window count less the rest.
 */
async function fillShapes(issues: IssueFacts[], grid: ShapeGrid, projectIds: string[]): Promise<void> {
  const n = grid.starts.length;
  for (const issue of issues) issue.shape = new Array<number>(n).fill(0);
  if (issues.length > 0 && n > 1) {
    const start = grid.starts[1]!;
    const rows = await bucketCountsQuery({ projectIds, issueIds: issues.map((i) => i.issueId), start, end: null, bucketMs: grid.bucketMs }).execute();
    const byId = new Map(issues.map((i) => [i.issueId, i]));
    for (const row of rows) {
      const shape = byId.get(row.issue_id)?.shape;
      // Events a client dated slightly ahead fall past the last bucket: counted in it.
      if (shape && row.b >= 0) shape[Math.min(n - 1, row.b + 1)]! += Number(row.n);
    }
  }
  for (const issue of issues) {
    const rest = issue.shape!.slice(1).reduce((a, b) => a + b, 0);
    issue.shape![0] = Math.max(0, issue.windowCount - rest);
  }
}

/** Deploy markers: the releases first seen in the window. */
async function readDeploys(projectIds: string[], names: Map<string, string>, since: Date): Promise<Deploy[]> {
  const releases = await releasesFirstSeenSince(projectIds, since, MAX_DEPLOYS_IN_FACTS);
  return releases.map((r) => ({ projectId: r.projectId, projectName: names.get(r.projectId) ?? r.projectId, release: r.version, at: r.firstSeen }));
}

/** Late events of the kept issues that are resolved: dated before the resolution, arrived after it. */
async function fillLateCounts(issues: IssueFacts[], since: Date): Promise<void> {
  const resolved = issues.filter((i) => i.status === "resolved" && i.resolvedAt !== null);
  const late = await lateEventCounts(resolved.map((i) => ({ issueId: i.issueId, resolvedAt: i.resolvedAt! })), since);
  for (const issue of resolved) {
    issue.lateCount = late.get(issue.issueId)?.count ?? 0;
    issue.lateCountAtLeast = late.get(issue.issueId)?.atLeast ?? false;
  }
}

type ChangeReads = { start: (issues: IssueFacts[]) => void; shifts: (issue: IssueFacts) => Promise<ValueShift[]>; settled: () => Promise<unknown> };

/**
 * What changed inside issues (lib/ai/changes.ts), read at most once per
 * issue and summary, from the first `start` that names it: the values of
 * its events in this window and the previous one, every event when it has
 * at most CHANGE_READ_CAP in each; an issue with more gets its tags
 * exactly from the tag counts kept at ingest (whole hours, or days for
 * windows of two days and more, from the one the window starts in) and its
 * context values from its newest events. A value new in the window is
 * dated by its first event, looked up in the hour or day the counts name.
 */
function changeReads(projectIds: string[], since: Date, previousSince: Date, now: Date): ChangeReads {
  const reads = new Map<string, Promise<ValueShift[]>>();
  const read = async (issues: IssueFacts[]): Promise<Map<string, ValueShift[]>> => {
    // The tag counts and their look-ups run while the events' values are counted, not after them.
    const [eventCounts, tags] = await Promise.all([
      // An issue past the cap gets its tags from the tag counts: its events' tags are not read.
      valueCountsOfIssues(issues.map((i) => ({ issueId: i.issueId, cap: CHANGE_READ_CAP, tags: readWhole(i), atLeast: valueFloors(i) })), since, previousSince),
      countedTagInputs(issues.filter((i) => !readWhole(i)), projectIds, since, now),
    ]);
    return new Map(issues.map((issue) => [issue.issueId, shiftsOf([...eventInputs(issue, eventCounts), ...(tags.get(issue) ?? [])]).map(toShift)]));
  };
  const start = (issues: IssueFacts[]) => {
    const fresh = issues.filter((i) => !reads.has(i.issueId));
    if (fresh.length === 0) return;
    const batch = read(fresh);
    for (const issue of fresh) {
      const shifts = batch.then((byIssue) => byIssue.get(issue.issueId)!);
      // Awaited by fillChanges if the issue stays a candidate; otherwise only settled.
      shifts.catch(() => {});
      reads.set(issue.issueId, shifts);
    }
  };
  return {
    start,
    shifts(issue) {
      start([issue]);
      return reads.get(issue.issueId)!;
    },
    settled: () => Promise.allSettled(reads.values()),
  };
}

/** The changes of the top issues of the final ranking (changeCandidates); those not read yet are read together. */
async function fillChanges(kept: IssueFacts[], changes: ChangeReads): Promise<void> {
  const candidates = changeCandidates(kept);
  changes.start(candidates);
  const shifts = await Promise.all(candidates.map((issue) => changes.shifts(issue)));
  candidates.forEach((issue, i) => (issue.changes = { shifts: shifts[i]! }));
}

/**
 * The tag inputs of the issues past the read cap, from the tag counts; a
 * value new in the window that shiftsOf may tell (canShift) is dated by its
 * first event, looked up in the hour or day the counts name: every such
 * value, since which of them are told depends on the events' values too.
 */
async function countedTagInputs(large: IssueFacts[], projectIds: string[], since: Date, now: Date): Promise<Map<IssueFacts, ShiftInput[]>> {
  const out = new Map<IssueFacts, ShiftInput[]>();
  if (large.length === 0) return out;
  const unitMs = now.getTime() - since.getTime() >= 2 * DAY_MS ? DAY_MS : HOUR_MS;
  const countedFrom = new Date(Math.floor(since.getTime() / unitMs) * unitMs);
  const units = Math.max(1, Math.ceil((now.getTime() - countedFrom.getTime()) / unitMs));
  const unitsFrom = new Date(countedFrom.getTime() - units * unitMs);
  const issueIds = large.map((i) => i.issueId);
  const [tagCounts, unitTotals, previousTotals] = await Promise.all([
    tagValueCounts({ projectIds, issueIds, unit: unitMs === DAY_MS ? "day" : "hour", from: unitsFrom, split: countedFrom, skipKeys: SKIPPED_TAG_KEYS }),
    windowCountsByIssue({ projectIds, issueIds, since: countedFrom, until: null }),
    windowCountsByIssue({ projectIds, issueIds, since: unitsFrom, until: countedFrom }),
  ]);
  const [unitCount, unitPrevious] = [sumByIssue(unitTotals), sumByIssue(previousTotals)];
  for (const issue of large) {
    out.set(issue, tagInputs(issue, tagCounts, { count: unitCount.get(issue.issueId) ?? 0, previous: unitPrevious.get(issue.issueId) ?? 0 }, countedFrom, unitsFrom));
  }
  const probes = [...out].flatMap(([issue, inputs]) => inputs.filter((s) => s.firstUnit !== null && canShift(s)).map((s) => ({ issueId: issue.issueId, s })));
  const within = (p: { issueId: string; s: ShiftInput }, from: Date, ms: number) => ({ issueId: p.issueId, key: p.s.key, value: p.s.value, from: new Date(Math.max(from.getTime(), since.getTime())), to: new Date(from.getTime() + ms) });
  // A day named by the daily counts is narrowed to its first hour with the value first.
  const hours = unitMs === DAY_MS ? await firstTagHours(probes.map((p) => within(p, p.s.firstUnit!, DAY_MS))) : probes.map((p) => p.s.firstUnit);
  const located = probes.flatMap((p, i) => (hours[i] ? [{ p, hour: hours[i]! }] : []));
  const firsts = await firstEventsWithTag(located.map(({ p, hour }) => within(p, hour, HOUR_MS)));
  located.forEach(({ p }, i) => (p.s.firstAt = firsts[i] ?? null));
  return out;
}

/** First seen, days active in the last 14 and the usual rate of the kept issues that are not new (at most 14 daily rows each). */
async function fillLifetimes(issues: IssueFacts[], projectIds: string[], now: Date): Promise<void> {
  const known = issues.filter((i) => !i.isNew);
  const rows = await dailyCountsByIssue({ projectIds, issueIds: known.map((i) => i.issueId), from: lifetimeFrom(now) });
  const days = new Map<string, { day: Date; count: number }[]>();
  for (const row of rows) {
    const list = days.get(row.issueId);
    if (list) list.push(row);
    else days.set(row.issueId, [row]);
  }
  for (const issue of known) issue.lifetime = lifetimeOf(issue.firstSeen, days.get(issue.issueId) ?? [], now);
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
  const rows = await newestEventsOfIssues(
    [...quota].map(([issueId, count]) => ({ issueId, count })),
    since,
    { messageChars: MESSAGE_READ_CHARS, contextChars: CONTEXT_READ_CHARS },
  );
  const rank = new Map(issues.map((issue, i) => [issue.issueId, i]));
  const seenPerIssue = new Map<string, number>();
  // Order: the newest of each issue by rank first, then the extra samples.
  const ordered = rows
    .map((row) => {
      const nth = seenPerIssue.get(row.issueId) ?? 0;
      seenPerIssue.set(row.issueId, nth + 1);
      return { row, nth };
    })
    .sort((a, b) => a.nth - b.nth || rank.get(a.row.issueId)! - rank.get(b.row.issueId)!);
  return ordered.map(({ row }) => ({ ...row, contextText: compactContext(row.contextText, row.contextLength) }));
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
    facts.deploys.map((d) => [d.projectId, d.release]),
  ]);
}

