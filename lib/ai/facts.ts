/**
 * What a summary knows: exact totals for the whole window from the issue
 * aggregates, per project and per issue, and a bounded set of events
 * examined in detail. The built-in digest and the model prompt are both
 * written from one SummaryFacts value, so they state the same facts.
 */
import type { SampledEvent } from "@/lib/events/samples";
import type { EventLevel } from "@/lib/events/schema";
import type { IssueStatus } from "@/lib/issues/filters";

export type LevelCounts = { error: number; warn: number; info: number };


/** One issue with events in the window. Counts are exact. */
export type IssueFacts = {
  issueId: string;
  projectId: string;
  projectName: string;
  /** The issue's level: the most severe it has seen. */
  level: EventLevel;
  /** The message template (what the issue is). */
  title: string;
  /** The latest message, in full up to the read limit. */
  sampleMessage: string;
  status: IssueStatus;
  /** Over the issue's whole life. */
  firstSeen: Date;
  lastSeen: Date;
  /** occurredAt of the first event after it was last resolved; null if never reopened. */
  regressedAt: Date | null;
  /** Events in [since, now], and in the same length of time just before `since`. */
  windowCount: number;
  previousCount: number;
  /** First and last event in the window. */
  windowFirst: Date;
  windowLast: Date;
  /** First seen in the window (firstSeen >= since). */
  isNew: boolean;
  /** Reopened in the window (regressedAt >= since) and not new. */
  isRegression: boolean;
  /** Its last event is recent (see ONGOING_MS): still happening. */
  ongoing: boolean;
  /** Its text reads like instructions to an AI: data, never promoted (see looksLikeInstructions). */
  instructionLike: boolean;
  /** Events per bucket of SummaryFacts.grid, exact; null for issues outside the shaped few (see load-facts). */
  shape: number[] | null;
  /** Accelerating now, or a steady source that stopped; from the shape (see lib/ai/motion.ts). */
  motion: Motion;
  /** For a known issue (not new): its life before this window, from the daily counts; null when not read. */
  lifetime: Lifetime | null;
  /** When it was last resolved (null when never); with status "resolved", events dated before it are late, not a regression. */
  resolvedAt: Date | null;
  /** Of its events in the window, those dated before resolvedAt that arrived after it (late events); 0 when not resolved or not read. */
  lateCount: number;
  /** lateCount is a lower bound (the issue had too many events before its resolution to look at all). */
  lateCountAtLeast: boolean;
  /** What changed inside it against the previous window (tag and context values); null for the issues not read (see lib/ai/changes.ts). */
  changes: IssueChanges | null;
};

/** A tag or context value whose share of an issue's events moved against the previous window. */
export type ValueShift = {
  key: string;
  value: string;
  /** "tag": a tag of the event (its own tags, release, environment, the SDK's contexts); "context": a top-level value of its context. */
  source: "tag" | "context";
  /** Events with this value of `of` counted now, and of `previousOf` before. */
  count: number;
  of: number;
  previousCount: number;
  previousOf: number;
  /**
   * How they were counted: "window", every event of the window and of the
   * previous one; "newest", the newest `of` events of each (an issue with
   * more); "units", exactly, from the tag counts kept at ingest, since
   * `countedFrom` (the whole hour or day the window starts in) against the
   * same length before (from `previousFrom`).
   */
  basis: "window" | "newest" | "units";
  countedFrom: Date | null;
  previousFrom: Date | null;
  /** Its first event in the window, when the previous window had none with it (exact; null when unknown). */
  firstAt: Date | null;
};

/** What changed inside an issue: the values whose share moved most, largest move first. */
export type IssueChanges = { shifts: ValueShift[] };

/** The first event of a new release in a project: a deploy marker. */
export type Deploy = {
  projectId: string;
  projectName: string;
  release: string;
  /** Its first event (occurredAt). */
  at: Date;
};

/** The last part of the window against the rest (lib/ai/motion.ts). */
export type Acceleration = {
  /** The last part: from here to now. */
  recentFrom: Date;
  recentCount: number;
  /** The rest: from the window's start (or the issue's first event) to recentFrom. */
  earlierFrom: Date;
  earlierCount: number;
  /** The last whole buckets each grew by about `factor` over the one before, since `since`. */
  compounding: { factor: number; everyMs: number; since: Date } | null;
};

/** A source that sent at a regular rate and has been silent for longer than its usual gap. */
export type Stop = {
  lastAt: Date;
  /** The usual time between its events, before it stopped. */
  usualGapMs: number;
  silentMs: number;
};

export type Motion = { accelerating: Acceleration | null; stopped: Stop | null };

/** A known issue's life, from the daily counts: what an on-call engineer asks of an old error. */
export type Lifetime = {
  firstSeen: Date;
  /** UTC days with events among the last `daysConsidered` (up to 14, today included; fewer when it is younger). */
  daysActive: number;
  daysConsidered: number;
  /** Events per day on the whole days considered before today; null when it has none (first seen today). */
  usualPerDay: number | null;
};

/** The buckets every shape in a summary shares: the first starts at `since`, the others on whole multiples of bucketMs (UTC), the last ends now. */
export type ShapeGrid = { bucketMs: number; starts: Date[] };

/** One project the summary covers. */
export type ProjectFacts = {
  projectId: string;
  name: string;
  window: LevelCounts;
  previous: LevelCounts;
  /** Its latest event ever (occurredAt), null when it has none. */
  lastEventAt: Date | null;
  /** Events in the previous window and none in this one. */
  quiet: boolean;
  /** Events per bucket of the grid, summed over its shaped issues (its busiest ones and its top-ranked). */
  shape: number[];
  /** The share of its window events that `shape` holds (1: all of them). */
  shapeCoverage: number;
  motion: Motion;
};

/** An event examined in detail (its text is untrusted data; cut in SQL, see lib/events/samples.ts). */
export type ExaminedEvent = SampledEvent;

export type SummaryFacts = {
  /** The server's time when the facts were read: the window's end. */
  now: Date;
  /** The window's start (inclusive). */
  since: Date;
  /** Totals of the window, exact. */
  totals: LevelCounts;
  /** Every project covered (all the user's, or the one asked for), most errors first. */
  projects: ProjectFacts[];
  /** Issues with events in the window, ranked (rankIssues), at most MAX_ISSUES_IN_FACTS. */
  issues: IssueFacts[];
  /** How many distinct issues had events in the window (may exceed issues.length). */
  issueCount: number;
  /** At most `limit` events, chosen by rank: the newest of each issue in rank order, then more of the top issues. */
  examined: ExaminedEvent[];
  /** The buckets of every shape. */
  grid: ShapeGrid;
  /** Releases first seen in the window, earliest first (at most MAX_DEPLOYS_IN_FACTS). */
  deploys: Deploy[];
};

/** An issue whose last event is at most this old is "ongoing". */
export const ONGOING_MS = 10 * 60_000;
/** Issues carried in the facts (ranked first); the totals count all of them. */
export const MAX_ISSUES_IN_FACTS = 50;
/** Deploy markers carried in the facts. */
export const MAX_DEPLOYS_IN_FACTS = 20;
export const MESSAGE_READ_CHARS = 1_000;
export const CONTEXT_READ_CHARS = 1_000;

export function totalOf(counts: LevelCounts): number {
  return counts.error + counts.warn + counts.info;
}
