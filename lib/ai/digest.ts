/**
 * The built-in summary, used when no model is configured or the model is
 * unavailable: deterministic text (same facts, same text) written from
 * SummaryFacts, the same facts the model prompt carries. Times are absolute
 * UTC so a cached digest never goes stale.
 *
 * The text is Markdown of a safe subset: `**bold**` labels, `-` and `1.`
 * lists, and `code spans` around every piece of untrusted text (project
 * names, issue titles), so that text can form no link, emphasis or HTML and,
 * cut to one line, cannot break the layout.
 */
import { totalOf, type IssueFacts, type LevelCounts, type ProjectFacts, type SummaryFacts } from "@/lib/ai/facts";
import { CHANGE_FOLLOW_MS, changeTime, findChanges, issueTrend, rankIssues } from "@/lib/ai/rank";
import type { EventLevel } from "@/lib/events/schema";
import { formatUtc } from "@/lib/text/format-utc";
import { plural } from "@/lib/text/plural";

/** Issues listed in full, worst first. */
export const DIGEST_TOP_ISSUES = 8;
/** Items in each short list (new, regressions, changes, quiet projects, projects). */
export const DIGEST_LIST_ITEMS = 5;
export const DIGEST_TEXT_CHARS = 160;
export const DIGEST_NAME_CHARS = 60;
/** Printed after the text of an issue whose text reads like instructions to an AI. */
export const INSTRUCTION_LIKE_NOTE = "(its text reads like instructions to an AI; shown as data)";

const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;
const DAY_MS = 24 * HOUR_MS;

const LEVEL_WORDS: Record<EventLevel, { one: string; many: string }> = {
  error: { one: "error", many: "errors" },
  warn: { one: "warning", many: "warnings" },
  info: { one: "info", many: "info" },
};

export type DigestOptions = {
  /** The `limit` asked for: the most events that could have been examined. */
  limitExamined?: number;
};

export function buildDigest(facts: SummaryFacts, options: DigestOptions = {}): string {
  const clock = utcClock(facts.since, facts.now);
  const window = describeWindow(facts.since, facts.now);
  const total = totalOf(facts.totals);
  const activeProjects = facts.projects.filter((p) => totalOf(p.window) > 0);
  const quietProjects = facts.projects.filter((p) => p.quiet);
  const out: string[] = [];

  if (total === 0) {
    out.push(
      `No events in the ${window.label} (${window.range}, now) in ${projectsPhrase(facts.projects.length)}.`,
      ...(quietProjects.length > 0 ? [""] : []),
      ...quietSection(quietProjects, window, clock),
    );
    return out.join("\n");
  }

  const issues = rankIssues(facts.issues);
  const examined = facts.examined.length;
  const limit = options.limitExamined === undefined ? "" : ` (limit ${count(options.limitExamined)})`;
  out.push(
    `**Window:** ${window.label}, ${window.range} (now). Trends compare with the ${window.previousLabel} (${window.previousRange}).`,
    `**Totals:** ${plural(total, "event")} (${levelList(facts.totals)}) across ${activeProjects.length === facts.projects.length ? projectsPhrase(activeProjects.length) : `${count(activeProjects.length)} of ${projectsPhrase(facts.projects.length)}`}, in ${plural(facts.issueCount, "distinct issue")}; ${count(examined)} examined in detail${limit}.`,
  );

  const top = issues[0];
  if (top && top.level !== "info") out.push(`**Look first at:** ${lookFirst(top, clock)}`);

  const shown = issues.slice(0, DIGEST_TOP_ISSUES);
  out.push("", `**Top issues** (${count(shown.length)} of ${count(facts.issueCount)}, worst first):`);
  shown.forEach((issue, i) => {
    out.push(`${i + 1}. ${issueLabel(issue, issue.isNew ? "new" : issue.isRegression ? "regressed" : null)}`);
    out.push(`   ${issueStats(issue, clock, window)}`);
  });

  // Info issues that are new are reported as changes below, not as new problems.
  const fresh = issues.filter((i) => i.isNew && i.level !== "info");
  out.push("", ...shortList("**New issues:**", fresh, (i) => `${issueLabel(i)}, since ${clock(i.firstSeen)}, ${plural(i.windowCount, "event")}, ${ongoingWord(i, clock)}`));

  const regressions = issues.filter((i) => i.isRegression);
  out.push("", ...shortList("**Regressions:**", regressions, (i) => `${issueLabel(i)}, reopened ${clock(i.regressedAt ?? i.windowFirst)}, ${plural(i.windowCount, "event")}, ${ongoingWord(i, clock)}`));

  const changes = findChanges(issues);
  if (changes.length > 0) {
    out.push("", "**Changes** (info issues new in this window, or back after a quiet previous one, such as deploys):");
    for (const { change, followers } of changes.slice(0, DIGEST_LIST_ITEMS)) {
      const latest = change.sampleMessage !== change.title ? ` (latest: ${quote(change.sampleMessage, DIGEST_TEXT_CHARS)})` : "";
      out.push(`- ${clock(changeTime(change))} in ${quote(change.projectName, DIGEST_NAME_CHARS)}: ${quotedTitle(change)}${latest}`);
      for (const { issue, afterMs } of followers.slice(0, DIGEST_LIST_ITEMS)) {
        const what = issue.isNew ? "the new error" : "the regressed error";
        out.push(`  - ${what} ${quotedTitle(issue)} in ${quote(issue.projectName, DIGEST_NAME_CHARS)} started ${describeDelay(afterMs)} after ${quotedTitle(change)}`);
      }
      if (followers.length > DIGEST_LIST_ITEMS) out.push(`  - and ${count(followers.length - DIGEST_LIST_ITEMS)} more new errors within ${describeDelay(CHANGE_FOLLOW_MS)}`);
    }
    if (changes.length > DIGEST_LIST_ITEMS) out.push(`- and ${count(changes.length - DIGEST_LIST_ITEMS)} more`);
  }

  out.push(...(quietProjects.length > 0 ? [""] : []), ...quietSection(quietProjects, window, clock));

  if (activeProjects.length > 1) {
    out.push("", "**By project:**");
    for (const p of activeProjects.slice(0, DIGEST_LIST_ITEMS)) {
      out.push(`- ${quote(p.name, DIGEST_NAME_CHARS)}: ${plural(totalOf(p.window), "event")} (${levelList(p.window)}); ${count(totalOf(p.previous))} in the ${window.previousLabel}`);
    }
    if (activeProjects.length > DIGEST_LIST_ITEMS) out.push(`- and ${count(activeProjects.length - DIGEST_LIST_ITEMS)} more`);
  }

  return out.join("\n");
}

function lookFirst(issue: IssueFacts, clock: Clock): string {
  const when = `${plural(issue.windowCount, "event")} since ${clock(issue.windowFirst)}, ${ongoingWord(issue, clock)}${issue.isNew ? ", new" : issue.isRegression ? ", regressed" : ""}.`;
  // Text that reads like instructions is never put in the line a reader acts on first.
  if (issue.instructionLike) {
    return `the ${LEVEL_WORDS[issue.level].one} in ${quote(issue.projectName, DIGEST_NAME_CHARS)} listed first below (its text reads like instructions to an AI, so it is not quoted here): ${when}`;
  }
  return `the ${LEVEL_WORDS[issue.level].one} ${quotedTitle(issue)} in ${quote(issue.projectName, DIGEST_NAME_CHARS)}: ${when}`;
}

function issueStats(issue: IssueFacts, clock: Clock, window: WindowDescription): string {
  // Seconds only help when the issue's events all fall in one minute.
  const precise = Math.floor(issue.windowFirst.getTime() / MINUTE_MS) === Math.floor(issue.windowLast.getTime() / MINUTE_MS);
  const first = clock(issue.windowFirst, precise);
  const last = clock(issue.windowLast, precise);
  const parts = [
    `${plural(issue.windowCount, "event")}, first ${first}, ${issue.ongoing ? `ongoing (last ${last})` : `stopped (last at ${last})`}`,
    trendPhrase(issue, window),
  ];
  if (issue.isRegression) parts.push(`reopened ${clock(issue.regressedAt ?? issue.windowFirst)}`);
  return parts.join("; ");
}

function trendPhrase(issue: IssueFacts, window: WindowDescription): string {
  const previous = count(issue.previousCount);
  switch (issueTrend(issue)) {
    case "new":
      return "new in this window";
    case "returned":
      return `none in the ${window.previousLabel}`;
    case "up":
      return `up from ${previous}`;
    case "down":
      return `down from ${previous}`;
    case "steady":
      return `steady (${previous} before)`;
  }
}

function ongoingWord(issue: IssueFacts, clock: Clock): string {
  return issue.ongoing ? "ongoing" : `last at ${clock(issue.windowLast)}`;
}

/** `**error** in `project` (new): `title``, marked when the text reads like instructions. */
function issueLabel(issue: IssueFacts, tag: "new" | "regressed" | null = null): string {
  return `**${issue.level}** in ${quote(issue.projectName, DIGEST_NAME_CHARS)}${tag ? ` (${tag})` : ""}: ${quotedTitle(issue)}`;
}

function quotedTitle(issue: IssueFacts): string {
  return `${quote(issue.title, DIGEST_TEXT_CHARS)}${issue.instructionLike ? ` ${INSTRUCTION_LIKE_NOTE}` : ""}`;
}

function shortList<T>(label: string, items: T[], render: (item: T) => string): string[] {
  if (items.length === 0) return [`${label} none.`];
  const lines = [label, ...items.slice(0, DIGEST_LIST_ITEMS).map((item) => `- ${render(item)}`)];
  if (items.length > DIGEST_LIST_ITEMS) lines.push(`- and ${count(items.length - DIGEST_LIST_ITEMS)} more`);
  return lines;
}

function quietSection(quiet: ProjectFacts[], window: WindowDescription, clock: Clock): string[] {
  if (quiet.length === 0) return [];
  return shortList("**Went quiet** (events in the previous window, none in this one):", quiet, (p) =>
    `${quote(p.name, DIGEST_NAME_CHARS)}: ${plural(totalOf(p.previous), "event")} in the ${window.previousLabel}, none since; last event ${p.lastEventAt ? clock(p.lastEventAt) : "unknown"}`,
  );
}

// --- Text -------------------------------------------------------------------

/** Line breaks, control, bidi and zero-width formatting characters: any of them could break or disguise a line. */
// eslint-disable-next-line no-control-regex
const LAYOUT_BREAKING = /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\s]+/g;

/**
 * Untrusted text on one line: breaks and control characters become single
 * spaces, and text longer than `max` is cut (never inside a surrogate pair)
 * and marked with "…".
 */
function oneLine(text: string, max: number): string {
  const flat = text.replace(LAYOUT_BREAKING, " ").trim();
  if (flat.length <= max) return flat;
  let cut = max - 1;
  const code = flat.charCodeAt(cut - 1);
  if (code >= 0xd800 && code <= 0xdbff) cut -= 1;
  return `${flat.slice(0, cut).trimEnd()}…`;
}

/** Untrusted text as a Markdown code span: rendered literally, never as a link, emphasis or HTML. */
function quote(text: string, max: number): string {
  const flat = oneLine(text, max).replace(/`/g, "'");
  return flat === "" ? "(no text)" : `\`${flat}\``;
}

function count(n: number): string {
  return n.toLocaleString("en-US");
}

function projectsPhrase(n: number): string {
  return plural(n, "project");
}

function levelList(counts: LevelCounts): string {
  return (Object.keys(LEVEL_WORDS) as EventLevel[])
    .map((level) => `${count(counts[level])} ${counts[level] === 1 ? LEVEL_WORDS[level].one : LEVEL_WORDS[level].many}`)
    .join(", ");
}

/** "40 seconds", "2 minutes": how long after a change something started. */
export function describeDelay(ms: number): string {
  if (ms < MINUTE_MS) return plural(Math.round(ms / 1000), "second");
  return plural(Math.round(ms / MINUTE_MS), "minute");
}

// --- Time -------------------------------------------------------------------

/** `2026-11-22 09:14 UTC`, or `09:14 UTC` when the whole window and the time fall on one UTC day. */
type Clock = (date: Date, withSeconds?: boolean) => string;

function utcClock(since: Date, now: Date): Clock {
  const day = utcDay(now);
  const oneDay = utcDay(since) === day;
  return (date, withSeconds = false) => {
    const iso = date.toISOString();
    const time = iso.slice(11, withSeconds ? 19 : 16);
    return oneDay && utcDay(date) === day ? `${time} UTC` : `${iso.slice(0, 10)} ${time} UTC`;
  };
}

function utcDay(date: Date): string {
  return date.toISOString().slice(0, 10);
}

export type WindowDescription = {
  /** "last 1 hour", "last 90 minutes", "last about 3 h 7 min". */
  label: string;
  /** "previous hour", "previous 24 hours": the window trends compare with. */
  previousLabel: string;
  /** "2026-11-22 09:00 to 10:00 UTC". */
  range: string;
  /** The previous window: "08:00 to 09:00 UTC" when it lies on the day of `now`, else with dates. */
  previousRange: string;
};

/**
 * The window in words. Whole lengths read as they were asked ("last 24
 * hours", "last 2 days"); others are cut to the whole minute and say "about".
 * Short windows show seconds, where minutes alone would blur the edges.
 */
export function describeWindow(since: Date, now: Date): WindowDescription {
  const ms = Math.max(0, now.getTime() - since.getTime());
  const length = durationWords(ms);
  const withSeconds = ms < 10 * MINUTE_MS;
  const previousStart = new Date(since.getTime() - ms);
  const sameDayAsNow = utcDay(previousStart) === utcDay(now);
  return {
    label: `last ${length}`,
    // "previous hour" rather than "previous 1 hour"; "about" is said once, in the label.
    previousLabel: `previous ${length.replace(/^about /, "").replace(/^1 (?=(?:second|minute|hour|day)$)/, "")}`,
    range: formatRange(since, now, withSeconds),
    previousRange: sameDayAsNow
      ? `${formatUtc(previousStart, withSeconds).slice(11, -4)} to ${formatUtc(since, withSeconds).slice(11)}`
      : formatRange(previousStart, since, withSeconds),
  };
}

function formatRange(start: Date, end: Date, withSeconds: boolean): string {
  const from = formatUtc(start, withSeconds);
  const to = formatUtc(end, withSeconds);
  return utcDay(start) === utcDay(end) ? `${from.slice(0, -4)} to ${to.slice(11)}` : `${from} to ${to}`;
}

function durationWords(ms: number): string {
  if (ms >= 2 * DAY_MS && ms % DAY_MS === 0) return plural(ms / DAY_MS, "day");
  if (ms >= HOUR_MS && ms % HOUR_MS === 0) return plural(ms / HOUR_MS, "hour");
  if (ms % MINUTE_MS === 0 && ms >= MINUTE_MS) return minutesOrHours(ms);
  if (ms < MINUTE_MS) return plural(Math.round(ms / 1000), "second");
  // Short windows are shown to the second, so their length is too.
  if (ms < 10 * MINUTE_MS) {
    const seconds = Math.round(ms / 1000);
    return seconds % 60 === 0 ? plural(seconds / 60, "minute") : `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
  }
  // Whole minutes, as the range shows them: the dashboard asks from a whole
  // minute, so its "last hour" at 10:00:40 reads "about 1 hour, 09:00 to 10:00".
  return `about ${minutesOrHours(Math.floor(ms / MINUTE_MS) * MINUTE_MS)}`;
}

/** Whole hours as hours, else "90 minutes" under two hours and "3 h 7 min" above. */
function minutesOrHours(ms: number): string {
  if (ms % HOUR_MS === 0) return plural(ms / HOUR_MS, "hour");
  return ms < 2 * HOUR_MS ? plural(ms / MINUTE_MS, "minute") : hoursAndMinutes(ms);
}

function hoursAndMinutes(ms: number): string {
  const hours = Math.floor(ms / HOUR_MS);
  const minutes = Math.round((ms % HOUR_MS) / MINUTE_MS);
  return minutes === 0 ? plural(hours, "hour") : `${hours} h ${minutes} min`;
}
