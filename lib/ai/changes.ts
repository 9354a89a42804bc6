/**
 * What changed inside an issue: of its tag and context values, those whose
 * share of its events moved most against the previous window ("code =
 * processing_error: 140 of 200 events, none of 60 before, since 07:58").
 * A surge caused by a new failure mode reads as that mode, not only as
 * "up from 60". Pure; lib/ai/load-facts.ts reads the counts
 * (lib/events/samples.ts valueCountsOfIssues).
 */
import type { IssueChanges, IssueFacts, ValueShift } from "@/lib/ai/facts";
import type { IssueValueCount } from "@/lib/events/samples";

/** Issues whose values are read: the top ones (see changeCandidates). */
export const CHANGE_ISSUES = 3;
/** Events read per issue and window at most; counts are exact when the issue has no more. */
export const CHANGE_READ_CAP = 1_000;
/** A shift worth telling: its share moved by at least this (0.25: a quarter of the events)... */
export const MIN_SHARE_MOVE = 0.25;
/** ...and at least this many events hold it in the window (or, for a value that went away, held it before). */
export const MIN_SHIFT_EVENTS = 5;
/** Shifts told per issue. */
export const MAX_SHIFTS = 3;

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

/**
 * The shifts of one issue from its value counts: values whose share of the
 * events read moved by MIN_SHARE_MOVE or more, those that grew first (the
 * largest move first), then, when none grew, those that fell. The first
 * event of a value the previous window did not have is its start.
 */
export function shiftsOf(counts: IssueValueCount[], read: number, previousRead: number): ValueShift[] {
  if (read === 0 || previousRead === 0) return [];
  const moves = counts
    .map((c) => ({ c, move: c.count / read - c.previousCount / previousRead }))
    .filter(({ c, move }) => Math.abs(move) >= MIN_SHARE_MOVE && (move > 0 ? c.count : c.previousCount) >= MIN_SHIFT_EVENTS);
  const grew = moves.filter((m) => m.move > 0).sort(byMove);
  const chosen = grew.length > 0 ? grew : moves.sort(byMove);
  return chosen.slice(0, MAX_SHIFTS).map(({ c }) => ({
    key: c.key,
    value: c.value,
    source: c.source,
    count: c.count,
    previousCount: c.previousCount,
    firstAt: c.previousCount === 0 ? c.firstAt : null,
  }));
}

function byMove(a: { c: IssueValueCount; move: number }, b: { c: IssueValueCount; move: number }): number {
  return Math.abs(b.move) - Math.abs(a.move) || (a.c.key < b.c.key ? -1 : a.c.key > b.c.key ? 1 : a.c.value < b.c.value ? -1 : 1);
}

/** The changes of each candidate from the counts read for them (`cap` events per window at most). */
export function changesOf(candidates: IssueFacts[], counts: IssueValueCount[], cap: number): Map<string, IssueChanges> {
  const byIssue = new Map<string, IssueValueCount[]>();
  for (const c of counts) byIssue.set(c.issueId, [...(byIssue.get(c.issueId) ?? []), c]);
  const out = new Map<string, IssueChanges>();
  for (const issue of candidates) {
    // The events read: all of the window's, or the newest `cap` (the counts are exact, so this is what the reads returned).
    const read = Math.min(cap, issue.windowCount);
    const previousRead = Math.min(cap, issue.previousCount);
    const exact = issue.windowCount <= cap && issue.previousCount <= cap;
    const shifts = shiftsOf(byIssue.get(issue.issueId) ?? [], read, previousRead);
    out.set(issue.issueId, { read, previousRead, exact, shifts: exact ? shifts : shifts.map((s) => ({ ...s, firstAt: null })) });
  }
  return out;
}
