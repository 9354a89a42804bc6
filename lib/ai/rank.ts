/**
 * The order and classification of issues in a summary: which to look at
 * first, which are growing, which changes (deploys) came just before new
 * errors, and which texts read like instructions to an AI. Pure functions of
 * the facts, shared by the built-in digest and the model prompt so that both
 * state the same facts in the same order.
 */
import type { Deploy, IssueFacts, ProjectFacts } from "@/lib/ai/facts";
import type { EventLevel } from "@/lib/events/schema";

export const LEVEL_ORDER: Record<EventLevel, number> = { error: 0, warn: 1, info: 2 };

/**
 * "Growing" is coarse on purpose so that a reader can check it: at least
 * twice the previous window and at least this many more events. A 3-event
 * blip (0 to 3) is not growth; 40 to 1,000 is.
 */
export const GROWTH_FACTOR = 2;
export const GROWTH_MIN_EXTRA_EVENTS = 5;

/** A new error that starts this soon after a change (a new info issue) is reported as following it. */
export const CHANGE_FOLLOW_MS = 15 * 60_000;

export function isGrowing(issue: Pick<IssueFacts, "windowCount" | "previousCount">): boolean {
  return (
    issue.windowCount >= GROWTH_FACTOR * issue.previousCount &&
    issue.windowCount - issue.previousCount >= GROWTH_MIN_EXTRA_EVENTS
  );
}

/** The mirror of isGrowing: at most half the previous window and at least 5 fewer events. */
export function isShrinking(issue: Pick<IssueFacts, "windowCount" | "previousCount">): boolean {
  return (
    issue.previousCount >= GROWTH_FACTOR * issue.windowCount &&
    issue.previousCount - issue.windowCount >= GROWTH_MIN_EXTRA_EVENTS
  );
}

/**
 * The trend against the previous window of the same length:
 * - "new": first seen in this window;
 * - "returned": seen before, but not in the previous window;
 * - "up" / "down": isGrowing / isShrinking;
 * - "steady": anything in between (the exact previous count is always stated next to it).
 */
export type IssueTrend = "new" | "returned" | "up" | "down" | "steady";

export function issueTrend(issue: Pick<IssueFacts, "isNew" | "windowCount" | "previousCount">): IssueTrend {
  if (issue.isNew) return "new";
  if (issue.previousCount === 0) return "returned";
  if (isGrowing(issue)) return "up";
  if (isShrinking(issue)) return "down";
  return "steady";
}

/**
 * Issues worst first. Errors, then warnings, then info: a level is never
 * outranked by a lower one, whatever its size or novelty. Within a level:
 * 1. issues whose text reads like instructions go last (no boost from being
 *    new or growing, so injected text cannot promote itself), and before
 *    them issues the team settled: ignored (marked, never leading) or
 *    resolved (their events here are late ones, dated before the fix);
 * 2. then by signal: new issues and regressions first, then accelerating
 *    now, then growing against the previous window, then a steady source
 *    that stopped, then the steady ones;
 * 3. more events in the window first;
 * 4. ties: latest lastSeen first, then issueId, so the order never depends
 *    on the input order.
 * Returns a new array; the input is left as it is.
 */
export function rankIssues(issues: IssueFacts[]): IssueFacts[] {
  // compareIssues' order, with each issue's keys computed once rather than
  // in every comparison: a 7-day summary of 20 projects sorts thousands.
  const keyed = issues.map((issue) => {
    const group = (issue.instructionLike ? 2 : 0) + (isSettled(issue) ? 1 : 0);
    return { issue, level: LEVEL_ORDER[issue.level], group, signal: group === 0 ? signalStrength(issue) : 0, last: issue.lastSeen.getTime() };
  });
  keyed.sort(
    (a, b) =>
      a.level - b.level ||
      a.group - b.group ||
      b.signal - a.signal ||
      b.issue.windowCount - a.issue.windowCount ||
      b.last - a.last ||
      (a.issue.issueId < b.issue.issueId ? -1 : a.issue.issueId > b.issue.issueId ? 1 : 0),
  );
  return keyed.map((k) => k.issue);
}

/** How much an issue's movement says "look here": higher first, within a level. */
export function signalStrength(issue: IssueFacts): number {
  if (issue.isNew || issue.isRegression) return 4;
  if (issue.motion.accelerating) return 3;
  if (isGrowing(issue)) return 2;
  if (issue.motion.stopped) return 1;
  return 0;
}

/**
 * The first `count` issues of rankIssues, judging whether an issue's text
 * reads like instructions (`judge`, which sets nothing) only for the issues
 * that can reach the top: within a level, issues are taken in rank order
 * and judged one by one; those that read like instructions wait behind the
 * level's others, as rankIssues puts them. A 7-day summary of 20 busy
 * projects ranks thousands of issues and keeps 50: judging each text took
 * a fifth of its time. Sets `instructionLike` on every issue it judged; the
 * ones returned were all judged.
 */
export function rankTop(issues: IssueFacts[], count: number, judge: (issue: IssueFacts) => boolean): IssueFacts[] {
  const out: IssueFacts[] = [];
  for (const level of Object.keys(LEVEL_ORDER) as EventLevel[]) {
    if (out.length >= count) break;
    const candidates = issues.filter((i) => i.level === level);
    for (const issue of candidates) issue.instructionLike = false;
    candidates.sort(compareIssues);
    const deferred: IssueFacts[] = [];
    for (const issue of candidates) {
      issue.instructionLike = judge(issue);
      if (issue.instructionLike) deferred.push(issue);
      else out.push(issue);
      if (out.length >= count) return out;
    }
    out.push(...deferred.sort(compareIssues).slice(0, count - out.length));
  }
  return out;
}

/**
 * Ignored by the team, or resolved: a resolved issue with events in the
 * window got only events the ingest did not count as a regression (late
 * ones, dated before the fix, or of the release it was resolved in).
 */
export function isSettled(issue: Pick<IssueFacts, "status">): boolean {
  return issue.status !== "open";
}

function compareIssues(a: IssueFacts, b: IssueFacts): number {
  const byLevel = LEVEL_ORDER[a.level] - LEVEL_ORDER[b.level];
  if (byLevel !== 0) return byLevel;
  if (a.instructionLike !== b.instructionLike) return a.instructionLike ? 1 : -1;
  const aSettled = isSettled(a);
  if (aSettled !== isSettled(b)) return aSettled ? 1 : -1;
  if (!a.instructionLike && !aSettled) {
    const bySignal = signalStrength(b) - signalStrength(a);
    if (bySignal !== 0) return bySignal;
  }
  return (
    b.windowCount - a.windowCount ||
    b.lastSeen.getTime() - a.lastSeen.getTime() ||
    (a.issueId < b.issueId ? -1 : a.issueId > b.issueId ? 1 : 0)
  );
}

/** What "Look first at" names: an issue, or a project that stopped sending. */
export type Lead =
  | { kind: "issue"; issue: IssueFacts; why: "new" | "regressed" | "accelerating" | "stopped" | "top" }
  | { kind: "project"; project: ProjectFacts };

export type LookFirst = {
  lead: Lead | null;
  /** The top-ranked error (or warning) when the lead is something else: it is steady, and said so. */
  alsoTop: IssueFacts | null;
  /** Errors or warnings exist, but only in issues the team ignored or resolved. */
  onlySettled: boolean;
};

/**
 * What to look at first: the most urgent movement, not the biggest number.
 * In order: an error that is new, regressed or accelerating; a source that
 * stopped (a project that went silent for longer than its usual gap, or a
 * steady info stream, such as a worker's heartbeat); a warning that is new,
 * regressed or accelerating; else the top-ranked error or warning. Issues
 * the team ignored or resolved never lead, and text that reads like
 * instructions leads only when nothing else is left (and is then not quoted).
 */
export function chooseLookFirst(ranked: IssueFacts[], projects: ProjectFacts[]): LookFirst {
  const open = ranked.filter((i) => !isSettled(i) && i.level !== "info");
  const eligible = open.filter((i) => !i.instructionLike);
  const moving = (level: EventLevel) =>
    eligible.find((i) => i.level === level && (i.isNew || i.isRegression || i.motion.accelerating !== null));
  const stoppedProject = projects
    .filter((p) => p.motion.stopped)
    .sort((a, b) => totalOfCounts(b.window) + totalOfCounts(b.previous) - (totalOfCounts(a.window) + totalOfCounts(a.previous)))[0];
  const stoppedStream = ranked.find(
    (i) => i.level === "info" && i.motion.stopped && !isSettled(i) && !i.instructionLike && !projects.some((p) => p.projectId === i.projectId && p.motion.stopped),
  );
  const top = open[0] ?? null;

  let lead: Lead | null = null;
  const error = moving("error");
  const warning = moving("warn");
  if (error) lead = { kind: "issue", issue: error, why: whyMoving(error) };
  else if (stoppedProject) lead = { kind: "project", project: stoppedProject };
  else if (stoppedStream) lead = { kind: "issue", issue: stoppedStream, why: "stopped" };
  else if (warning) lead = { kind: "issue", issue: warning, why: whyMoving(warning) };
  else if (top) lead = { kind: "issue", issue: top, why: "top" };

  const leadIssue = lead?.kind === "issue" ? lead.issue : null;
  const alsoTop = top && lead && leadIssue !== top && !top.instructionLike ? top : null;
  return { lead, alsoTop, onlySettled: !lead && ranked.some((i) => i.level !== "info" && isSettled(i)) };
}

function whyMoving(issue: IssueFacts): "new" | "regressed" | "accelerating" {
  return issue.isNew ? "new" : issue.isRegression ? "regressed" : "accelerating";
}

function totalOfCounts(c: { error: number; warn: number; info: number }): number {
  return c.error + c.warn + c.info;
}

/**
 * A change in the window: a deploy marker (the first event of a new
 * release, exact) or a weaker sign of one, an info issue new in the window
 * or back after a quiet previous one.
 */
export type Change =
  | { kind: "deploy"; at: Date; projectId: string; projectName: string; deploy: Deploy }
  | { kind: "info"; at: Date; projectId: string; projectName: string; issue: IssueFacts };

/** A change and the new or regressed errors that started soon after it. */
export type ChangeWithFollowers = {
  change: Change;
  /** New or regressed error issues that started within CHANGE_FOLLOW_MS after the change, earliest first. */
  followers: { issue: IssueFacts; afterMs: number }[];
};

/**
 * Changes in the window, each with the new or regressed errors that started
 * within CHANGE_FOLLOW_MS after it: those followed by such errors first (a
 * deploy a minute before an outage is never behind routine info lines),
 * then the rest; earliest first within each, a deploy before an info
 * issue at the same time. Timing is all this says; it does not claim a cause.
 */
export function findChanges(issues: IssueFacts[], deploys: Deploy[] = []): ChangeWithFollowers[] {
  // A deploy message groups with every earlier deploy ("Deploy <num> finished"),
  // so after the first one it is no longer new: an info issue that had no
  // event in the previous window is a change too, dated by its first event here.
  // Text that reads like instructions is never a change: listed as one, an
  // injected line would stand right before an outage, as its apparent cause.
  const infoChanges: Change[] = issues
    .filter((i) => i.level === "info" && !i.instructionLike && (i.isNew || i.previousCount === 0))
    .map((issue) => ({ kind: "info", at: changeTime(issue), projectId: issue.projectId, projectName: issue.projectName, issue }));
  const deployChanges: Change[] = deploys.map((deploy) => ({ kind: "deploy", at: deploy.at, projectId: deploy.projectId, projectName: deploy.projectName, deploy }));
  const broke = issues.filter((i) => i.level === "error" && (i.isNew || i.isRegression)).sort(byChangeTime);
  const changes = [...deployChanges, ...infoChanges].map((change) => ({
    change,
    followers: broke
      .map((issue) => ({ issue, afterMs: changeTime(issue).getTime() - change.at.getTime() }))
      .filter(({ afterMs }) => afterMs >= 0 && afterMs <= CHANGE_FOLLOW_MS),
  }));
  return changes.sort(
    (a, b) =>
      Number(b.followers.length > 0) - Number(a.followers.length > 0) ||
      a.change.at.getTime() - b.change.at.getTime() ||
      (a.change.kind === b.change.kind ? 0 : a.change.kind === "deploy" ? -1 : 1) ||
      changeKey(a.change).localeCompare(changeKey(b.change)),
  );
}

function changeKey(change: Change): string {
  return change.kind === "deploy" ? `${change.projectId}\u0001${change.deploy.release}` : change.issue.issueId;
}

/** The change nearest before each new or regressed error that started within CHANGE_FOLLOW_MS after one. */
export function nearestChanges(changes: ChangeWithFollowers[]): Map<string, { change: Change; afterMs: number }> {
  const nearest = new Map<string, { change: Change; afterMs: number }>();
  for (const { change, followers } of changes) {
    for (const { issue, afterMs } of followers) {
      const known = nearest.get(issue.issueId);
      if (!known || afterMs < known.afterMs || (afterMs === known.afterMs && change.kind === "deploy" && known.change.kind !== "deploy")) {
        nearest.set(issue.issueId, { change, afterMs });
      }
    }
  }
  return nearest;
}

/** When an issue started mattering in the window: first seen, reopened, or its first event here. */
export function changeTime(issue: IssueFacts): Date {
  if (issue.isNew) return issue.firstSeen;
  if (issue.isRegression && issue.regressedAt) return issue.regressedAt;
  return issue.windowFirst;
}

function byChangeTime(a: IssueFacts, b: IssueFacts): number {
  return changeTime(a).getTime() - changeTime(b).getTime() || (a.issueId < b.issueId ? -1 : a.issueId > b.issueId ? 1 : 0);
}

// ---------------------------------------------------------------------------
// Text that reads like instructions to an AI (prompt injection in events).
//
// The text is normalised first (Unicode compatibility forms, so full-width
// letters read as ASCII; zero-width characters removed; lower case), then
// matched three ways:
// - `words`: every run of non-alphanumerics becomes one space, so extra
//   spaces and punctuation between words do not hide a phrase;
// - clauses (split at . ! ? ; : and line breaks): imperatives that are only
//   suspicious at the start of a clause ("act as …", "respond only …");
// - raw lines: role tags and instruction headers at the start of a line,
//   chat-template tokens.
// Every pattern is a fixed sequence of words with bounded alternatives and
// no nested unbounded repetition, so matching is linear in the text length.
// Ordinary log wording ("Ignoring invalid header", "Retrying: system error
// 5", "User act as admin denied", "You are now logged in") does not match.
// ---------------------------------------------------------------------------

/** Longer text is judged by its beginning and its end; an injection long enough to hide in the middle is not the threat (text is cut before it reaches a prompt anyway). */
const INSTRUCTION_SCAN_CHARS = 20_000;

const QUALIFIER = "(?:all|any|the|your|my|of|these|those|every|previous|prior|above|earlier|preceding|foregoing|original|initial|old|other|system|safety|existing|current|given)";
const INSTRUCTION_NOUN = "(?:instructions?|prompts?|directions|directives|guidelines|programming)";
/** What a model might be called inside "you are now …". */
const ROLE_WORD = "(?:ai|assistant|chatbot|bot|llm|language model|model|summari[sz]er|gpt|chatgpt|claude)";
/** Narrower: names used to address a model directly ("model" and "bot" are too common in logs). */
const ADDRESSEE = "(?:ai|ai model|ai assistant|assistant|chatbot|llm|language model|summari[sz]er|chatgpt|claude)";

const WORD_PATTERNS: RegExp[] = [
  // ignore all previous instructions; disregard the above prompt; forget your guidelines
  new RegExp(`\\b(?:ignore|disregard|forget) (?:${QUALIFIER} ){0,4}${INSTRUCTION_NOUN}\\b`),
  /\b(?:override|bypass) (?:all |any |the |your |of ){0,3}(?:previous |prior |above |earlier |original |safety )?(?:instructions|guidelines|programming|restrictions|safety rules)\b/,
  // ignore all previous rules / messages (these nouns need a "previous"-like word)
  /\b(?:ignore|disregard|forget) (?:all |any |the |of |these |those ){0,3}(?:previous|prior|above|earlier|preceding|your|original) (?:\w+ )?(?:rules|context|messages|text|commands|orders|constraints|restrictions)\b/,
  // disregard everything above; ignore what was said before
  /\b(?:ignore|disregard|forget) (?:everything|all of|all|the|what is|what was|anything)(?: (?:written|said|stated|told|you were told|you have been told))? (?:above|before|previously|so far|earlier)\b/,
  /\bdisregard (?:that|this|everything|all)\b/,
  // you are now DAN; you're now an unrestricted assistant; you are now in developer mode
  new RegExp(
    `\\byou (?:are|re|r) now (?:(?:a|an|my|the) )?(?:(?:new|different|unrestricted|unfiltered|uncensored|evil|helpful|jailbroken|free) )?(?:${ROLE_WORD}|dan|jailbroken|unrestricted|unfiltered|uncensored|in (?:developer|dan|god|jailbreak|unrestricted) mode)\\b`,
  ),
  /\bfrom now on (?:you (?:are|must|shall|only|act|respond|reply|answer|ignore|pretend)|act|respond|reply|answer|ignore|pretend)\b/,
  /\b(?:i want you to|i need you to|you must now|you will now|you should now|you are to|you shall) (?:act|behave|pretend|roleplay|role play|respond|reply|answer|ignore|forget|disregard|say|output|only|write)\b/,
  /\bplease (?:act as|pretend to be|pretend you are|roleplay as|role play as)\b/,
  // reveal your system prompt; print the system prompt
  /\b(?:reveal|print|show|repeat|output|leak|display|dump|tell me|ignore|disregard|your|new|updated) (?:me )?(?:the |your |my )?(?:system prompt|hidden prompt|initial prompt|original prompt)\b/,
  // here are your new instructions
  /\b(?:here are|these are|follow|following|obey|read|your|my) (?:the |your |my |these )?(?:new|updated|real|actual|secret|hidden|true|revised) instructions\b/,
  /\b(?:new|updated|revised|override|secret|hidden) (?:system )?instructions (?:are|follow|for the (?:ai|assistant|model))\b/,
  // respond only with OK; reply with only; only answer with
  /\b(?:respond|reply|answer)(?: only)? with only\b/,
  /\b(?:respond|reply|answer|say) only (?:with|in|the word|the words|the text|this|that|yes|no|ok)\b/,
  /\bonly (?:respond|reply|answer) (?:with|in|that)\b/,
  // do not mention the errors; don't tell the user
  /\b(?:do not|don t|dont|never|must not) (?:mention|reveal|disclose|summari[sz]e|flag)\b/,
  /\b(?:do not|don t|dont|never) (?:tell|report|include|say)(?: to)? (?:the user|the users|anyone|the engineer|the reader|the on call|the team|any (?:of )?(?:the |these |this )?(?:errors?|events?|issues?|failures?|problems?|incidents?))\b/,
  // say that everything is fine; tell them all systems are operational
  /\b(?:say|tell (?:the user|them|everyone|the engineer|the reader)|report|state|claim|write|reply|respond|answer|summari[sz]e|conclude)(?: that)? (?:everything|all systems|all services|all|the system|the service|the site|nothing) (?:is|are|was|were|looks|look|seems|seem) (?:fine|ok|okay|good|normal|healthy|wrong|operational|green|working|stable|under control)\b/,
  // the summary must say ...
  /\b(?:the|your|this|any) (?:summary|summaries|report|answer) (?:should|must|shall|needs to|has to|will) (?:say|state|claim|mention|omit|read|conclude|not mention)\b/,
  // addressing the model directly
  new RegExp(`\\b(?:dear|hey|hello|hi|attention|note to|message to) (?:the |any |all )?${ADDRESSEE}s?\\b(?! (?:service|server|api|gateway|provider|request|call|response|timeout|error|endpoint|worker|job|quota|key|rate|model|feature)\\b)`),
  new RegExp(`\\b${ADDRESSEE} (?:that is |who is )?(?:reading|summari[sz]ing|processing|parsing|analy[sz]ing) (?:this|these)\\b`),
  new RegExp(`\\bif you are an? ${ADDRESSEE}\\b`),
  /\bas an ai(?: language model)?\b/,
  /\b(?:enter|enable|activate|switch to|unlock) (?:dan|jailbreak|god|unrestricted) mode\b/,
];

const CLAUSE_START_PATTERNS: RegExp[] = [
  /^(?:please |then |so |ok |okay )?(?:act as|act like|behave as|behave like|pretend to be|pretend you are|pretend that|roleplay as|role play as|impersonate)\b/,
  /^(?:please |now |then )?(?:respond|reply|answer|say) (?:only|just|exactly|nothing but)\b/,
  /^(?:please |now |then )?(?:output|print|write) (?:only|nothing but) (?:the word|yes|no|ok|one word)\b/,
  /^(?:important |urgent |attention )?(?:new|updated|revised|override|secret|hidden|real) (?:system )?instructions?$/,
  /^system override$/,
  /^(?:instructions|system prompt) for (?:the )?(?:ai|assistant|model|llm|summari[sz]er)$/,
];

/** An imperative or address that makes a "system:"-style tag on a later line a role tag, not a key in a multi-line dump. */
const IMPERATIVE_START =
  "(?:you (?:are|must|will|should|shall|now)|ignore|disregard|forget|from now on|(?:reply|respond|answer) (?:only|with|that)|say (?:only|that)|always (?:say|reply|respond|answer)|never (?:mention|say|reveal)|do not|don't|the assistant|the ai|new instructions|override (?:the|your|all|previous)|act as|pretend|summari[sz]e (?:this|the|as|it|everything))\\b";

// Matched against trimmed lines; no two unbounded runs of the same character class are adjacent, so a long line of spaces or '#' cannot make them backtrack.
const LINE_PATTERNS: RegExp[] = [
  // A chat role tag opening a line: "assistant:" anywhere ("system:" only below, a first-line "System: disk full" is a log prefix).
  /^(?:[[<]\s*)?(?:assistant|human|chatgpt|claude)(?:\s*[\]>])?\s*:/,
  // Instruction headers on a line of their own: "### Instructions", "## SYSTEM ##", "=== NEW INSTRUCTIONS ===".
  /^(?:#{2,}|\*{2,}|={2,}|-{3,}|\[)\s*(?:(?:new|system|updated|important|secret|hidden|override|ai|assistant) )?(?:instructions?|system prompt|prompt|system|assistant|directives?|rules for (?:the )?(?:ai|assistant|model)|task for (?:the )?(?:ai|assistant|model)|override)(?:\s*(?:#{2,}|\*{2,}|={2,}|-{3,}|\]|:))?$/,
  // Chat-template tokens.
  /<\|\s*(?:im_start|im_end|system|assistant|user|endoftext|eot_id|start_header_id|end_header_id)\s*\|>/,
  /\[\/?inst\]|<<\/?sys>>|<\/?(?:system|instructions?|assistant|system_prompt)>/,
];

/** Role tags that only count on a line after the first, followed by an imperative. */
const LATER_LINE_ROLE_TAG = new RegExp(`^(?:[[<]\\s*)?(?:system|developer|ai|instructions?)(?:\\s*[\\]>])?\\s*:\\s*${IMPERATIVE_START}`);

/** Zero-width and bidi formatting characters, which can split a phrase without showing. */
const INVISIBLE = /[\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;

/**
 * Whether text reads like instructions to an AI (a heuristic for prompt
 * injection in event messages). It errs towards ordinary log lines being
 * false: a false positive only means an issue gets no ranking boost and is
 * marked in the summary, but a real incident should not be demoted by it.
 */
export function looksLikeInstructions(text: string): boolean {
  const scanned =
    text.length <= INSTRUCTION_SCAN_CHARS
      ? text
      : `${text.slice(0, INSTRUCTION_SCAN_CHARS / 2)}\n${text.slice(-INSTRUCTION_SCAN_CHARS / 2)}`;
  const normal = scanned.normalize("NFKC").replace(INVISIBLE, "").toLowerCase();

  const words = toWords(normal);
  if (WORD_PATTERNS.some((p) => p.test(words))) return true;

  for (const clause of normal.split(/[.!?;:\n\r\u2028\u2029]+/)) {
    const clauseWords = toWords(clause);
    if (clauseWords !== "" && CLAUSE_START_PATTERNS.some((p) => p.test(clauseWords))) return true;
  }

  const lines = normal.split(/\r\n|[\n\r\u2028\u2029]/).map((line) => line.trim());
  return lines.some(
    (line, index) => LINE_PATTERNS.some((p) => p.test(line)) || (index > 0 && LATER_LINE_ROLE_TAG.test(line)),
  );
}

/** Lower-case words separated by single spaces ("Ignore,  ALL previous-instructions!" -> "ignore all previous instructions"). */
function toWords(text: string): string {
  return text.replace(/[^\p{L}\p{N}]+/gu, " ").trim();
}
