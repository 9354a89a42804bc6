/**
 * What changed inside an issue: of its tag and context values, those whose
 * share of its events moved most against the previous window ("code =
 * processing_error: 140 of 200 events, none of 60 before, since 07:58").
 * A surge caused by a new failure mode reads as that mode, not only as
 * "up from 60". Pure; lib/ai/load-facts.ts reads the counts: the issue's
 * events (lib/events/samples.ts valueCountsOfIssues, every event of both
 * windows up to CHANGE_READ_CAP) and, for an issue with more, the tag counts
 * kept at ingest (lib/issues/tag-counts.ts) for its tags.
 */
import type { IssueFacts, ValueShift } from "@/lib/ai/facts";
import type { IssueValueCount } from "@/lib/events/samples";
import type { TagValueCount } from "@/lib/issues/tag-counts";

/** Issues whose values are read: the top ones (see changeCandidates). */
export const CHANGE_ISSUES = 3;
/** Events read per issue and window at most; counts are exact when the issue has no more. */
export const CHANGE_READ_CAP = 500;
/** A shift worth telling: its share moved by at least this (0.25: a quarter of the events)... */
export const MIN_SHARE_MOVE = 0.25;
/** ...and at least this many events hold it in the window (or, for a value that went away, held it before). */
export const MIN_SHIFT_EVENTS = 5;
/** Shifts told per issue. */
export const MAX_SHIFTS = 3;
/** Tag keys whose shares are not told: one value per person, and personal data. */
export const SKIPPED_TAG_KEYS = ["user"];

/** A value's counts before it is judged; `firstUnit`: the hour or day it first appears in (units basis), for the minute to be looked up. */
export type ShiftInput = ValueShift & { firstUnit: Date | null };

/**
 * The issues whose values are read: the first CHANGE_ISSUES errors and
 * warnings of the ranking that are open, known (a new issue has no
 * "before"), had events in the previous window and have enough in this one.
 */
export function changeCandidates(ranked: IssueFacts[]): IssueFacts[] {
  return ranked
    .filter((i) => i.level !== "info" && i.status === "open" && !i.instructionLike && !i.isNew && i.previousCount > 0 && i.windowCount >= MIN_SHIFT_EVENTS)
    .slice(0, CHANGE_ISSUES);
}

/** Whether every event of both windows was read (else the newest CHANGE_READ_CAP of each). */
export function readWhole(issue: Pick<IssueFacts, "windowCount" | "previousCount">, cap = CHANGE_READ_CAP): boolean {
  return issue.windowCount <= cap && issue.previousCount <= cap;
}

/**
 * The fewest events a value must hold in the window (`count`) or in the
 * previous one (`previous`) to be a shift at all: shiftsOf wants
 * MIN_SHIFT_EVENTS and a share of MIN_SHARE_MOVE on the side it grew or
 * fell on. Values under both are left in the database (a 7-day summary's
 * top issues hold thousands of one-off values: request ids, timestamps).
 * Rounded down, so no value shiftsOf could choose is left out.
 */
export function valueFloors(issue: Pick<IssueFacts, "windowCount" | "previousCount">, cap = CHANGE_READ_CAP): { count: number; previous: number } {
  const floor = (of: number) => Math.max(MIN_SHIFT_EVENTS, Math.floor(MIN_SHARE_MOVE * of));
  return { count: floor(Math.min(cap, issue.windowCount)), previous: floor(Math.min(cap, issue.previousCount)) };
}

/**
 * The inputs from an issue's events read: every value when the reads were
 * whole ("window"); else the context values only ("newest"), its tags
 * coming exactly from the tag counts (tagInputs).
 */
export function eventInputs(issue: IssueFacts, counts: IssueValueCount[], cap = CHANGE_READ_CAP): ShiftInput[] {
  const whole = readWhole(issue, cap);
  const of = Math.min(cap, issue.windowCount);
  const previousOf = Math.min(cap, issue.previousCount);
  return counts
    .filter((c) => c.issueId === issue.issueId && (whole || c.source === "context"))
    .map((c) => ({
      key: c.key,
      value: c.value,
      source: c.source,
      count: c.count,
      of,
      previousCount: c.previousCount,
      previousOf,
      basis: whole ? "window" : "newest",
      countedFrom: null,
      previousFrom: null,
      firstAt: whole && c.previousCount === 0 ? c.firstAt : null,
      firstUnit: null,
    }));
}

/** The inputs from the tag counts of an issue: exact since `countedFrom` and in [previousFrom, countedFrom), against `totals` (its events in the same units). */
export function tagInputs(issue: IssueFacts, counts: TagValueCount[], totals: { count: number; previous: number }, countedFrom: Date, previousFrom: Date): ShiftInput[] {
  return counts
    .filter((c) => c.issueId === issue.issueId)
    .map((c) => ({
      key: c.key,
      value: c.value,
      source: "tag",
      count: c.count,
      of: totals.count,
      previousCount: c.previousCount,
      previousOf: totals.previous,
      basis: "units",
      countedFrom,
      previousFrom,
      firstAt: null,
      firstUnit: c.previousCount === 0 ? c.firstUnit : null,
    }));
}

/**
 * The shifts worth telling: values whose share moved by MIN_SHARE_MOVE or
 * more, those that grew first (the largest move first), then, when none
 * grew, those that fell; at most MAX_SHIFTS.
 */
export function shiftsOf(inputs: ShiftInput[]): ShiftInput[] {
  const moves = inputs.filter(canShift).map((c) => ({ c, move: shareMove(c) }));
  const grew = moves.filter((m) => m.move > 0).sort(byMove);
  const chosen = grew.length > 0 ? grew : moves.sort(byMove);
  return chosen.slice(0, MAX_SHIFTS).map(({ c }) => c);
}

/** Whether shiftsOf may tell this value (whether it does depends on the others). */
export function canShift(c: ShiftInput): boolean {
  if (!(c.of > 0 && c.previousOf > 0)) return false;
  const move = shareMove(c);
  return Math.abs(move) >= MIN_SHARE_MOVE && (move > 0 ? c.count : c.previousCount) >= MIN_SHIFT_EVENTS;
}

const shareMove = (c: ShiftInput) => c.count / c.of - c.previousCount / c.previousOf;

function byMove(a: { c: ShiftInput; move: number }, b: { c: ShiftInput; move: number }): number {
  return Math.abs(b.move) - Math.abs(a.move) || (a.c.key < b.c.key ? -1 : a.c.key > b.c.key ? 1 : a.c.value < b.c.value ? -1 : a.c.value > b.c.value ? 1 : 0);
}

/** A ValueShift without the look-up hint. */
export function toShift({ firstUnit: _unused, ...shift }: ShiftInput): ValueShift {
  return shift;
}
