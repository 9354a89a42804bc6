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
import { totalOf, type Acceleration, type IssueChanges, type IssueFacts, type LevelCounts, type Lifetime, type ProjectFacts, type ShapeGrid, type Stop, type SummaryFacts } from "@/lib/ai/facts";
import { CHANGE_FOLLOW_MS, chooseLookFirst, findChanges, isSettled, issueTrend, nearestChanges, rankIssues, type Change, type ChangeWithFollowers, type LookFirst } from "@/lib/ai/rank";
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
  const clock = summaryClock(facts.since, facts.now);
  const window = describeWindow(facts.since, facts.now);
  const total = totalOf(facts.totals);
  const activeProjects = facts.projects.filter((p) => totalOf(p.window) > 0);
  const quietProjects = facts.projects.filter((p) => p.quiet);
  const out: string[] = [];

  if (total === 0) {
    out.push(
      `No events in ${window.label} (${window.range}, now) in ${projectsPhrase(facts.projects.length)}.`,
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

  const changes = findChanges(issues, facts.deploys);
  const look = lookFirstLine(chooseLookFirst(issues, facts.projects), clock, window, facts.now, changes);
  if (look) out.push(`**Look first at:** ${look}`);

  const stoppedProjects = facts.projects.filter((p) => p.motion.stopped);
  const stoppedIssues = issues.filter((i) => i.motion.stopped && !isSettled(i) && !stoppedProjects.some((p) => p.projectId === i.projectId));
  if (stoppedProjects.length + stoppedIssues.length > 0) {
    out.push("", "**Stopped** (steady sources silent for longer than their usual gap):");
    const lines = [
      ...stoppedProjects.map((p) => `${codeSpan(p.name, DIGEST_NAME_CHARS)}: ${stopPhrase(p.motion.stopped!, clock)} (${projectCounts(p, window)})`),
      ...stoppedIssues.map((i) => `${issueLabel(i)}: ${stopPhrase(i.motion.stopped!, clock)}`),
    ];
    out.push(...lines.slice(0, DIGEST_LIST_ITEMS).map((l) => `- ${l}`));
    if (lines.length > DIGEST_LIST_ITEMS) out.push(`- and ${count(lines.length - DIGEST_LIST_ITEMS)} more`);
  }

  const shown = issues.slice(0, DIGEST_TOP_ISSUES);
  out.push("", `**Top issues** (${count(shown.length)} of ${count(facts.issueCount)}, worst first):`);
  shown.forEach((issue, i) => {
    out.push(`${i + 1}. ${issueLabel(issue, issue.isNew ? "new" : issue.isRegression ? "regressed" : null)}`);
    out.push(`   ${issueStats(issue, clock, window, facts.now)}`);
    if (issue.shape) out.push(`   ${shapeLine(issue.shape, facts.grid, clock)}`);
    if (issue.changes && issue.changes.shifts.length > 0) out.push(`   ${changedLine(issue.changes, clock, window)}`);
  });

  // Info issues that are new are reported as changes below, not as new problems.
  const fresh = issues.filter((i) => i.isNew && i.level !== "info");
  out.push("", ...shortList("**New issues:**", fresh, (i) => `${issueLabel(i)}, since ${clock(i.firstSeen)}, ${plural(i.windowCount, "event")}, ${ongoingWord(i, clock)}`));

  const regressions = issues.filter((i) => i.isRegression);
  out.push("", ...shortList("**Regressions:**", regressions, (i) => `${issueLabel(i)}, reopened ${clock(i.regressedAt ?? i.windowFirst)}, ${plural(i.windowCount, "event")}, ${ongoingWord(i, clock)}`));

  out.push(...changesSection(changes, clock));

  const quietOnly = quietProjects.filter((p) => !p.motion.stopped);
  out.push(...(quietOnly.length > 0 ? [""] : []), ...quietSection(quietOnly, window, clock));

  if (activeProjects.length > 1) {
    out.push("", "**By project:**");
    for (const p of activeProjects.slice(0, DIGEST_LIST_ITEMS)) {
      const moving = p.motion.accelerating ? `; ${accelerationPhrase(p.motion.accelerating, clock)}` : "";
      const shape = p.shapeCoverage > 0 ? `; ${shapeLine(p.shape, facts.grid, clock)}${p.shapeCoverage < 0.995 ? ` (its busiest issues, ${Math.round(p.shapeCoverage * 100)}% of its events)` : ""}` : "";
      out.push(`- ${codeSpan(p.name, DIGEST_NAME_CHARS)}: ${plural(totalOf(p.window), "event")} (${levelList(p.window)}); ${count(totalOf(p.previous))} in the ${window.previousLabel}${moving}${shape}`);
    }
    if (activeProjects.length > DIGEST_LIST_ITEMS) out.push(`- and ${count(activeProjects.length - DIGEST_LIST_ITEMS)} more`);
  }

  return out.join("\n");
}

/** Changes with followers listed at most (all of them, up to this), then the others up to DIGEST_LIST_ITEMS in all. */
const MAX_FOLLOWED_CHANGES = 10;

/**
 * Deploys and other changes, those followed by new or regressed errors
 * first: every such one is shown (up to MAX_FOLLOWED_CHANGES), never
 * hidden in "and N more" behind routine info lines.
 */
function changesSection(changes: ChangeWithFollowers[], clock: Clock): string[] {
  if (changes.length === 0) return [];
  const followed = changes.filter((c) => c.followers.length > 0).slice(0, MAX_FOLLOWED_CHANGES);
  const shown = [...followed, ...changes.filter((c) => c.followers.length === 0).slice(0, Math.max(0, DIGEST_LIST_ITEMS - followed.length))];
  const out = ["", "**Changes** (deploys: the first event of a new release; info issues new in this window or back after a quiet previous one; those followed by new errors first):"];
  for (const { change, followers } of shown) {
    out.push(`- ${clock(change.at)} in ${codeSpan(change.projectName, DIGEST_NAME_CHARS)}: ${changeText(change, true)}`);
    for (const { issue, afterMs } of followers.slice(0, DIGEST_LIST_ITEMS)) {
      const what = issue.isNew ? "the new error" : "the regressed error";
      out.push(`  - ${what} ${quotedTitle(issue)} in ${codeSpan(issue.projectName, DIGEST_NAME_CHARS)} started ${describeDelay(afterMs)} after ${changeText(change)}`);
    }
    if (followers.length > DIGEST_LIST_ITEMS) out.push(`  - and ${count(followers.length - DIGEST_LIST_ITEMS)} more new errors within ${describeDelay(CHANGE_FOLLOW_MS)}`);
  }
  if (changes.length > shown.length) out.push(`- and ${count(changes.length - shown.length)} more`);
  return out;
}

/** "the deploy of release `2.4.1`" or an info issue's title (with its latest message in the list). */
function changeText(change: Change, withLatest = false): string {
  if (change.kind === "deploy") return `the deploy of release ${codeSpan(change.deploy.release, DIGEST_NAME_CHARS)}${withLatest ? " (its first event)" : ""}`;
  const issue = change.issue;
  const latest = withLatest && issue.sampleMessage !== issue.title ? ` (latest: ${codeSpan(issue.sampleMessage, DIGEST_TEXT_CHARS)})` : "";
  return `${quotedTitle(issue)}${latest}`;
}

/**
 * "changed: `code` = `processing_error` in 140 of 200 events (none of 60
 * before), since 07:58 UTC": the values whose share moved most, each with
 * how it was counted (every event of both windows, the newest ones, or the
 * tag counts since a whole hour or day).
 */
function changedLine(changes: IssueChanges, clock: Clock, window: WindowDescription): string {
  const parts = changes.shifts.map((s) => {
    const counted =
      s.basis === "window"
        ? [`${count(s.count)} of ${count(s.of)} events`, `${s.previousCount === 0 ? "none" : count(s.previousCount)} of ${count(s.previousOf)} before`]
        : s.basis === "newest"
          ? [`${count(s.count)} of its newest ${count(s.of)} events here`, `${s.previousCount === 0 ? "none" : count(s.previousCount)} of the newest ${count(s.previousOf)} in the ${window.previousLabel}`]
          : [`${count(s.count)} of ${count(s.of)} events since ${clock(s.countedFrom!)}`, `${s.previousCount === 0 ? "none" : count(s.previousCount)} of ${count(s.previousOf)} in the ${describeSpan(s.countedFrom!.getTime() - s.previousFrom!.getTime(), true)} before`];
    const since = s.firstAt ? `, since ${clock(s.firstAt)}` : "";
    return `${codeSpan(s.key, DIGEST_NAME_CHARS)} = ${codeSpan(s.value, DIGEST_NAME_CHARS)} in ${counted[0]} (${counted[1]})${since}`;
  });
  return `changed: ${parts.join("; ")}`;
}

/** "; new inside it: `code` = `processing_error` (140 of 200 events) since 07:58 UTC": the value that appeared, when one did. */
function newValuePhrase(issue: IssueFacts, clock: Clock): string {
  const shift = issue.changes?.shifts.find((s) => s.previousCount === 0 && s.firstAt !== null);
  if (!shift) return "";
  return `; new inside it: ${codeSpan(shift.key, DIGEST_NAME_CHARS)} = ${codeSpan(shift.value, DIGEST_NAME_CHARS)} (${count(shift.count)} of ${count(shift.of)} events${shift.basis === "units" ? ` since ${clock(shift.countedFrom!)}` : ""}) since ${clock(shift.firstAt!)}`;
}

/** The "Look first at" line (without its label), or null when there is nothing but info. */
function lookFirstLine(look: LookFirst, clock: Clock, window: WindowDescription, now: Date, changes: ChangeWithFollowers[]): string | null {
  const { lead, alsoTop } = look;
  if (!lead) return look.onlySettled ? "nothing new: every error and warning in this window is in an issue your team ignored or resolved." : null;
  let text: string;
  if (lead.kind === "project") {
    const p = lead.project;
    text = `the project ${codeSpan(p.name, DIGEST_NAME_CHARS)}, which ${stopPhrase(p.motion.stopped!, clock)} (${projectCounts(p, window)}).`;
  } else {
    const issue = lead.issue;
    const why =
      lead.why === "accelerating"
        ? `, ${accelerationPhrase(issue.motion.accelerating!, clock)}`
        : lead.why === "stopped"
          ? `, ${stopPhrase(issue.motion.stopped!, clock)}`
          : lead.why !== "top"
            ? `, ${lead.why}`
            : issue.isNew
              ? ", new"
              : issue.isRegression
                ? ", regressed"
                : `; ${trendPhrase(issue, window, clock, now)}`;
    const after = nearestChanges(changes).get(issue.issueId);
    const following = after ? `, ${describeDelay(after.afterMs)} after ${changeText(after.change)} in ${codeSpan(after.change.projectName, DIGEST_NAME_CHARS)}` : "";
    const when = `${plural(issue.windowCount, "event")} since ${clock(issue.windowFirst)}, ${ongoingWord(issue, clock)}${why}${following}${newValuePhrase(issue, clock)}.`;
    // Text that reads like instructions is never put in the line a reader acts on first.
    text = issue.instructionLike
      ? `the ${LEVEL_WORDS[issue.level].one} in ${codeSpan(issue.projectName, DIGEST_NAME_CHARS)} listed first below (its text reads like instructions to an AI, so it is not quoted here): ${when}`
      : `the ${LEVEL_WORDS[issue.level].one} ${quotedTitle(issue)} in ${codeSpan(issue.projectName, DIGEST_NAME_CHARS)}: ${when}`;
  }
  if (alsoTop) {
    text += ` The top-ranked ${LEVEL_WORDS[alsoTop.level].one}, ${quotedTitle(alsoTop)} in ${codeSpan(alsoTop.projectName, DIGEST_NAME_CHARS)} (${plural(alsoTop.windowCount, "event")}), is not moving: ${trendPhrase(alsoTop, window, clock, now)}.`;
  }
  return text;
}

function issueStats(issue: IssueFacts, clock: Clock, window: WindowDescription, now: Date): string {
  // Seconds only help when the issue's events all fall in one minute.
  const precise = Math.floor(issue.windowFirst.getTime() / MINUTE_MS) === Math.floor(issue.windowLast.getTime() / MINUTE_MS);
  const first = clock(issue.windowFirst, precise);
  const last = clock(issue.windowLast, precise);
  const parts = [`${plural(issue.windowCount, "event")}, first ${first}, ${issue.ongoing ? `ongoing (last ${last})` : `last at ${last}`}`, trendPhrase(issue, window, clock, now)];
  if (issue.isRegression) parts.push(`reopened ${clock(issue.regressedAt ?? issue.windowFirst)}`);
  if (issue.motion.accelerating) parts.push(accelerationPhrase(issue.motion.accelerating, clock));
  // A settled issue's silence is expected (it was fixed, or does not matter to the team).
  if (issue.motion.stopped && !isSettled(issue)) parts.push(stopPhrase(issue.motion.stopped, clock));
  if (issue.status === "ignored") parts.push("ignored by your team (still counted)");
  if (issue.status === "resolved" && issue.resolvedAt) parts.push(resolvedPhrase(issue, clock));
  return parts.join("; ");
}

/**
 * "resolved at 08:20 UTC; 40 of these events are late (dated before it,
 * arrived after it): not a regression". The ingest reopens an issue only
 * for events dated after its resolution.
 */
export function resolvedPhrase(issue: IssueFacts, clock: Clock): string {
  const base = `resolved at ${clock(issue.resolvedAt!)}`;
  if (issue.lateCount === 0) return `${base}, not reopened`;
  const which =
    issue.lateCount === issue.windowCount
      ? issue.windowCount === 1
        ? "this event is"
        : `all ${count(issue.windowCount)} of these events are`
      : `${issue.lateCountAtLeast ? "at least " : ""}${count(issue.lateCount)} of these events are`;
  return `${base}; ${which} late (dated before it, arrived after it): not a regression`;
}

/**
 * Against the previous window, and for a known issue its life: "steady (24
 * before); known since 2026-11-15, seen on 7 of the last 7 days, usually
 * about 3 a day". An old issue absent from the previous window is chronic,
 * not news: its life replaces "none in the previous hour".
 */
function trendPhrase(issue: IssueFacts, window: WindowDescription, clock: Clock, now: Date): string {
  const previous = count(issue.previousCount);
  const life = issue.lifetime && !issue.isNew ? lifetimePhrase(issue.lifetime, clock, now) : null;
  switch (issueTrend(issue)) {
    case "new":
      return "new in this window";
    case "returned":
      return life && issue.lifetime!.daysActive >= 2 ? life : [`none in the ${window.previousLabel}`, life].filter(Boolean).join("; ");
    case "up":
      return [`up from ${previous}`, life].filter(Boolean).join("; ");
    case "down":
      return [`down from ${previous}`, life].filter(Boolean).join("; ");
    case "steady":
      return [`steady (${previous} before)`, life].filter(Boolean).join("; ");
  }
}

/** "known since 2026-11-15, seen on 7 of the last 7 days, usually about 3 a day". */
export function lifetimePhrase(life: Lifetime, clock: Clock, now: Date): string {
  const since = utcDay(life.firstSeen) === utcDay(now) ? clock(life.firstSeen) : utcDay(life.firstSeen);
  const parts = [`known since ${since}`];
  if (life.daysConsidered >= 2) parts.push(`seen on ${life.daysActive} of the last ${plural(life.daysConsidered, "day")}`);
  if (life.usualPerDay !== null) parts.push(`usually ${ratePhrase(life.usualPerDay)}`);
  return parts.join(", ");
}

/** Events per day in words: "about 40 an hour", "about 3 a day", "about 2 a week". */
function ratePhrase(perDay: number): string {
  if (perDay >= 23.5) return `about ${count(Math.round(perDay / 24))} an hour`;
  if (perDay >= 0.95) return `about ${count(Math.round(perDay))} a day`;
  if (perDay * 7 >= 0.95) return `about ${count(Math.round(perDay * 7))} a week`;
  return "less than one a week";
}

/** "accelerating: 126 since 04:00 UTC against 18 in the 18 hours before, doubling every hour since 04:00 UTC". */
export function accelerationPhrase(a: Acceleration, clock: Clock): string {
  const earlierMs = a.recentFrom.getTime() - a.earlierFrom.getTime();
  const base = `accelerating: ${count(a.recentCount)} since ${clock(a.recentFrom)} against ${count(a.earlierCount)} in the ${describeSpan(earlierMs)} before`;
  if (!a.compounding) return base;
  const { factor, everyMs, since } = a.compounding;
  const how = factor < 2.5 ? "doubling" : factor < 3.5 ? "tripling" : `growing about ${factor} times`;
  return `${base}, ${how} every ${describeSpan(everyMs, true)} since ${clock(since)}`;
}

/** "30 events in the previous hour, none since" or "40 events in this window, 118 in the previous hour". */
function projectCounts(p: ProjectFacts, window: WindowDescription): string {
  const now = totalOf(p.window);
  return now === 0
    ? `${plural(totalOf(p.previous), "event")} in the ${window.previousLabel}, none since`
    : `${plural(now, "event")} in this window, ${count(totalOf(p.previous))} in the ${window.previousLabel}`;
}

/** "stopped: silent for 40 minutes since 09:20 UTC, when it usually sent one about every minute". */
export function stopPhrase(stop: Stop, clock: Clock): string {
  return `stopped: silent for ${describeSpan(stop.silentMs)} since ${clock(stop.lastAt)}, when it usually sent one about every ${describeSpan(stop.usualGapMs, true)}`;
}

const SPARKS = ["▁", "▂", "▃", "▄", "▅", "▆", "▇", "█"];

/** "per hour from 10:07 UTC: `··▁▁▂▃▅█` (peak 64 at 09:00 UTC)": the shape at a glance, the peak exact. */
function shapeLine(shape: number[], grid: ShapeGrid, clock: Clock): string {
  const max = Math.max(0, ...shape);
  const spark = shape.map((n) => (n === 0 ? "·" : SPARKS[Math.min(7, Math.ceil((n / max) * 8) - 1)])).join("");
  const peak = shape.indexOf(max);
  return `per ${describeSpan(grid.bucketMs, true)} from ${clock(grid.starts[0]!)}: \`${spark}\`${max > 0 ? ` (peak ${count(max)} at ${clock(grid.starts[peak]!)})` : ""}`;
}

function ongoingWord(issue: IssueFacts, clock: Clock): string {
  return issue.ongoing ? "ongoing" : `last at ${clock(issue.windowLast)}`;
}

/** `**error** in `project` (new): `title``, marked when the text reads like instructions. */
function issueLabel(issue: IssueFacts, tag: "new" | "regressed" | null = null): string {
  const tags = [tag, issue.status !== "open" ? issue.status : null].filter(Boolean);
  return `**${issue.level}** in ${codeSpan(issue.projectName, DIGEST_NAME_CHARS)}${tags.length > 0 ? ` (${tags.join(", ")})` : ""}: ${quotedTitle(issue)}`;
}

function quotedTitle(issue: IssueFacts): string {
  return `${codeSpan(issue.title, DIGEST_TEXT_CHARS)}${issue.instructionLike ? ` ${INSTRUCTION_LIKE_NOTE}` : ""}`;
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
    `${codeSpan(p.name, DIGEST_NAME_CHARS)}: ${plural(totalOf(p.previous), "event")} in the ${window.previousLabel}, none since; last event ${p.lastEventAt ? clock(p.lastEventAt) : "unknown"}`,
  );
}

// --- Text -------------------------------------------------------------------

/** Line breaks, control, bidi and zero-width formatting characters: any of them could break or disguise a line. */
const LAYOUT_BREAKING = /[\u0000-\u001f\u007f-\u009f\u00ad\u061c\u180e\u200b-\u200f\u2028-\u202e\u2060-\u2069\ufeff\s]+/g;

/**
 * Untrusted text on one line: breaks and control characters become single
 * spaces, and text longer than `max` is cut (never inside a surrogate pair)
 * and marked with "…".
 */
export function oneLine(text: string, max: number): string {
  const flat = text.replace(LAYOUT_BREAKING, " ").trim();
  if (flat.length <= max) return flat;
  let cut = max - 1;
  const code = flat.charCodeAt(cut - 1);
  if (code >= 0xd800 && code <= 0xdbff) cut -= 1;
  return `${flat.slice(0, cut).trimEnd()}…`;
}

/** Untrusted text as a Markdown code span: rendered literally, never as a link, emphasis or HTML. */
export function codeSpan(text: string, max: number): string {
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
export type Clock = (date: Date, withSeconds?: boolean) => string;

export function summaryClock(since: Date, now: Date): Clock {
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
  /** "the last hour", "the last 24 hours", "the last 7 days", "the last 90 minutes", "the last 3 h 7 min". */
  label: string;
  /** "previous hour", "previous 24 hours": the window trends compare with. */
  previousLabel: string;
  /** "2026-11-22 09:00 to 10:00 UTC". */
  range: string;
  /** The previous window: "08:00 to 09:00 UTC" when it lies on the day of `now`, else with dates. */
  previousRange: string;
};

/**
 * The window in words. Lengths are read to the whole minute, as the range
 * shows them: the dashboard asks from a whole minute, so its "last 7 days"
 * pressed at 10:00:40 is 7 days and 40 seconds long and reads "the last 7
 * days", never "about 168 hours". Whole hours and days read as asked ("the
 * last hour", "the last 24 hours", "the last 7 days"). Short windows show
 * seconds, where minutes alone would blur the edges.
 */
export function describeWindow(since: Date, now: Date): WindowDescription {
  const ms = Math.max(0, now.getTime() - since.getTime());
  const length = durationWords(ms);
  const withSeconds = ms < 10 * MINUTE_MS;
  const previousStart = new Date(since.getTime() - ms);
  const sameDayAsNow = utcDay(previousStart) === utcDay(now);
  return {
    label: `the last ${length}`,
    previousLabel: `previous ${length}`,
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

/** A window's length after "the last": "hour", "24 hours", "7 days", "90 minutes", "3 h 7 min", "40 seconds". */
function durationWords(ms: number): string {
  if (ms < 10 * MINUTE_MS) {
    const seconds = Math.round(ms / 1000);
    if (seconds < 60) return seconds === 1 ? "second" : plural(seconds, "second");
    if (seconds % 60 === 0) return seconds === 60 ? "minute" : plural(seconds / 60, "minute");
    return `${Math.floor(seconds / 60)} min ${seconds % 60} s`;
  }
  const whole = Math.floor(ms / MINUTE_MS) * MINUTE_MS;
  if (whole >= 2 * DAY_MS && whole % DAY_MS === 0) return plural(whole / DAY_MS, "day");
  if (whole % HOUR_MS === 0) return whole === HOUR_MS ? "hour" : plural(whole / HOUR_MS, "hour");
  if (whole < 2 * HOUR_MS) return plural(whole / MINUTE_MS, "minute");
  return `${Math.floor(whole / HOUR_MS)} h ${Math.round((whole % HOUR_MS) / MINUTE_MS)} min`;
}

/**
 * A span in words: whole days and hours as they are ("6 hours", "1 day"),
 * others rounded to a unit that suits their size ("40 seconds", "45
 * minutes", "18 hours", "3 days"); `alone` drops a leading 1 ("every hour").
 */
export function describeSpan(ms: number, alone = false): string {
  const [n, unit]: [number, string] =
    ms >= DAY_MS && ms % DAY_MS === 0
      ? [ms / DAY_MS, "day"]
      : ms >= HOUR_MS && ms % HOUR_MS === 0
        ? [ms / HOUR_MS, "hour"]
        : ms < 90_000
          ? [Math.max(1, Math.round(ms / 1000)), "second"]
          : ms < 2 * HOUR_MS
            ? [Math.round(ms / MINUTE_MS), "minute"]
            : ms < 2 * DAY_MS
              ? [Math.round(ms / HOUR_MS), "hour"]
              : [Math.round(ms / DAY_MS), "day"];
  return alone && n === 1 ? unit : plural(n, unit);
}
