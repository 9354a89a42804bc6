/**
 * SummaryFacts for the AI unit tests, on a fixed clock: the facts are read at
 * NOW (2026-11-22 10:00 UTC) for the window since SINCE (09:00 UTC), so
 * every time a test states is exact. Defaults describe an ordinary, old,
 * open error issue; tests override what they are about.
 */
import { ONGOING_MS, totalOf, type Deploy, type ExaminedEvent, type IssueFacts, type LevelCounts, type ProjectFacts, type SummaryFacts } from "@/lib/ai/facts";
import { shapeGrid } from "@/lib/ai/motion";
import { rankIssues } from "@/lib/ai/rank";

export const NOW = new Date("2026-11-22T10:00:00.000Z");
export const SINCE = new Date("2026-11-22T09:00:00.000Z");
/** Long before the window: the default first sighting of an issue. */
export const LONG_AGO = new Date("2026-11-01T00:00:00.000Z");

/** A time on the test day (or another day): at("09:14"), at("09:14:30"), at("23:50", "2026-11-21"). */
export function at(time: string, day = "2026-11-22"): Date {
  return new Date(`${day}T${time.length === 5 ? `${time}:00` : time}.000Z`);
}

let seq = 0;
function nextSeq(): string {
  seq += 1;
  return String(seq).padStart(4, "0");
}

export function zeroCounts(): LevelCounts {
  return { error: 0, warn: 0, info: 0 };
}

/**
 * An issue in the window. Derived unless given: `isNew` from firstSeen
 * (a test that passes `isNew: true` alone gets firstSeen = windowFirst),
 * `isRegression` from regressedAt, `ongoing` from windowLast and ONGOING_MS,
 * lastSeen = windowLast, projectId from the project name.
 */
export function issueFacts(overrides: Partial<IssueFacts> = {}): IssueFacts {
  const id = nextSeq();
  const projectName = overrides.projectName ?? "api";
  const windowFirst = overrides.windowFirst ?? at("09:10");
  const windowLast = overrides.windowLast ?? at("09:55");
  const firstSeen = overrides.firstSeen ?? (overrides.isNew ? windowFirst : LONG_AGO);
  const regressedAt = overrides.regressedAt ?? null;
  const isNew = overrides.isNew ?? firstSeen >= SINCE;
  const title = overrides.title ?? `Issue ${id} failed`;
  return {
    issueId: `iss_${id}`,
    projectId: `p_${projectName}`,
    projectName,
    level: "error",
    title,
    sampleMessage: title,
    status: "open",
    firstSeen,
    lastSeen: windowLast,
    regressedAt,
    windowCount: 10,
    previousCount: 10,
    windowFirst,
    windowLast,
    isNew,
    isRegression: !isNew && regressedAt !== null && regressedAt >= SINCE,
    ongoing: NOW.getTime() - windowLast.getTime() <= ONGOING_MS,
    instructionLike: false,
    shape: null,
    motion: { accelerating: null, stopped: null },
    lifetime: null,
    resolvedAt: null,
    lateCount: 0,
    lateCountAtLeast: false,
    changes: null,
    ...overrides,
  };
}

/** A project; `quiet` derived from its counts unless given. */
export function projectFacts(overrides: Partial<ProjectFacts> & { name: string }): ProjectFacts {
  const window = overrides.window ?? zeroCounts();
  const previous = overrides.previous ?? zeroCounts();
  return {
    projectId: `p_${overrides.name}`,
    window,
    previous,
    lastEventAt: null,
    quiet: totalOf(previous) > 0 && totalOf(window) === 0,
    shape: [],
    shapeCoverage: 1,
    motion: { accelerating: null, stopped: null },
    ...overrides,
  };
}

/** An examined event of `issue`, at its last event in the window, with its sample message. */
export function examinedEvent(issue: IssueFacts, overrides: Partial<ExaminedEvent> & { context?: unknown } = {}): ExaminedEvent {
  const { context, ...rest } = overrides;
  const message = rest.message ?? issue.sampleMessage;
  const contextText = rest.contextText ?? (context === undefined ? null : JSON.stringify(context));
  return {
    id: `00000000-0000-7000-8000-${nextSeq().padStart(12, "0")}`,
    issueId: issue.issueId,
    projectId: issue.projectId,
    level: issue.level,
    occurredAt: issue.windowLast,
    message,
    messageLength: message.length,
    contextText,
    contextLength: contextText?.length ?? 0,
    ...rest,
  };
}

/**
 * Facts as lib/ai/facts would read them: issues ranked, totals and projects
 * summed from the issues unless given (projects most errors first), extra
 * projects (quiet or empty) appended.
 */
export function summaryFacts(input: {
  issues: IssueFacts[];
  examined?: ExaminedEvent[];
  projects?: ProjectFacts[];
  extraProjects?: ProjectFacts[];
  totals?: LevelCounts;
  issueCount?: number;
  now?: Date;
  since?: Date;
  deploys?: Deploy[];
}): SummaryFacts {
  const totals = input.totals ?? zeroCounts();
  const byProject = new Map<string, ProjectFacts>();
  for (const issue of input.issues) {
    if (!input.totals) totals[issue.level] += issue.windowCount;
    const project =
      byProject.get(issue.projectId) ??
      projectFacts({ name: issue.projectName, projectId: issue.projectId, window: zeroCounts(), previous: zeroCounts(), quiet: false });
    project.window[issue.level] += issue.windowCount;
    project.previous[issue.level] += issue.previousCount;
    if (!project.lastEventAt || issue.lastSeen > project.lastEventAt) project.lastEventAt = issue.lastSeen;
    byProject.set(issue.projectId, project);
  }
  const derived = [...byProject.values()].sort(
    (a, b) => b.window.error - a.window.error || totalOf(b.window) - totalOf(a.window) || (a.name < b.name ? -1 : 1),
  );
  const now = input.now ?? NOW;
  const since = input.since ?? SINCE;
  const grid = shapeGrid(since, now);
  for (const project of derived) {
    project.shape = new Array<number>(grid.starts.length).fill(0);
    for (const issue of input.issues) if (issue.projectId === project.projectId && issue.shape) issue.shape.forEach((n, i) => (project.shape[i]! += n));
  }
  return {
    now,
    since,
    grid,
    totals,
    projects: [...(input.projects ?? derived), ...(input.extraProjects ?? [])],
    issues: rankIssues(input.issues),
    issueCount: input.issueCount ?? input.issues.length,
    examined: input.examined ?? [],
    deploys: input.deploys ?? [],
  };
}

/**
 * A realistic hour: a deploy in `checkout` at 09:10:20, a new Stripe error
 * two minutes later, a growing DB error, a regression, a shrinking cron
 * failure, a steady warning and steady sign-ins in `web`, a worker project
 * gone quiet and one project with no events at all.
 */
export function incidentFacts() {
  const deploy = issueFacts({
    projectName: "checkout",
    level: "info",
    title: "Deploy <*> finished",
    sampleMessage: "Deploy v2.14.0 finished",
    isNew: true,
    windowFirst: at("09:10:20"),
    windowLast: at("09:10:20"),
    windowCount: 1,
    previousCount: 0,
  });
  const stripe = issueFacts({
    projectName: "checkout",
    title: "Stripe API timeout after <n>ms while charging order <id>",
    sampleMessage: "Stripe API timeout after 30000ms while charging order ord_8f3k2a1c",
    isNew: true,
    windowFirst: at("09:12:05"),
    windowLast: at("09:59:41"),
    windowCount: 1_024,
    previousCount: 0,
  });
  const pool = issueFacts({ projectName: "api", title: "DB pool exhausted", windowCount: 312, previousCount: 40, windowFirst: at("09:13"), windowLast: at("09:58") });
  const webhook = issueFacts({
    projectName: "api",
    title: "Webhook signature mismatch",
    windowCount: 17,
    previousCount: 0,
    regressedAt: at("09:21"),
    windowFirst: at("09:21"),
    windowLast: at("09:41"),
  });
  const cron = issueFacts({ projectName: "api", title: "Nightly export failed", windowCount: 20, previousCount: 300, windowFirst: at("09:02"), windowLast: at("09:07") });
  const slow = issueFacts({ projectName: "api", level: "warn", title: "Slow request took <n>ms", windowCount: 230, previousCount: 210 });
  const signIn = issueFacts({ projectName: "web", level: "info", title: "User signed in", windowCount: 47, previousCount: 52 });
  const issues = { deploy, stripe, pool, webhook, cron, slow, signIn };
  const facts = summaryFacts({
    issues: Object.values(issues),
    examined: [
      examinedEvent(stripe, { context: { order: "ord_8f3k2a1c", attempt: 3 } }),
      examinedEvent(pool, { occurredAt: at("09:58:12") }),
      examinedEvent(stripe, { message: "Stripe API timeout after 30000ms while charging order ord_x1", occurredAt: at("09:40:00") }),
    ],
    extraProjects: [
      projectFacts({ name: "billing-worker", previous: { error: 0, warn: 2, info: 118 }, lastEventAt: at("08:52") }),
      projectFacts({ name: "sleepy", lastEventAt: at("10:00", "2026-10-01") }),
    ],
  });
  return { facts, issues };
}
