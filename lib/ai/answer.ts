/**
 * The model's answer: a structured form (a zod schema the AI SDK turns into
 * the provider's JSON-schema response format), checked against the facts
 * before it is served, then rendered to the summary's Markdown.
 *
 * The checks (checkAnswer), each a reason to serve the built-in digest
 * instead (X-Summary-Fallback: ai_inconsistent):
 * - every item cites an issue by its rank, with that issue's exact count in
 *   the window and its start (its first event here, or when it reopened);
 * - when there are errors, the top error (the first error in the ranking
 *   that the team did not ignore) is among the items;
 * - no "no errors" / "all clear" claim while the window has errors;
 * - every number written anywhere in the answer is one the facts given to
 *   the model contain (counts, times, dates, ranks...): nothing invented;
 * - no item calls an issue regressed or reopened unless it is a regression
 *   (a resolved issue's late events, dated before the fix, are not one).
 *
 * The rendered text takes each item's issue (level, title, project), count
 * and start from the facts, and the model's words only as commentary.
 */
import { z } from "zod";
import type { IssueFacts, SummaryFacts } from "@/lib/ai/facts";
import { codeSpan, oneLine, summaryClock, DIGEST_NAME_CHARS, DIGEST_TEXT_CHARS } from "@/lib/ai/digest";
import { plural } from "@/lib/text/plural";

/** The answer's shape, sent to the provider as a JSON schema (every field required: OpenAI's strict mode). */
export const summaryAnswerSchema = z.object({
  headline: z.string().describe("One short sentence: the most important thing in this window, for the engineer on call."),
  items: z
    .array(
      z.object({
        rank: z.number().int().describe('The "rank" of the issue this item is about, from its issue line.'),
        count: z.number().int().describe('That issue\'s "count", exactly as in its issue line.'),
        start: z.string().describe('When it started in this window: its "first" (or "regressedAt"), copied as given.'),
        text: z
          .string()
          .describe("One or two short sentences on what it is and how it moves (trend, accelerating, stopped, ongoing). The count and start are shown next to it: do not repeat them."),
      }),
    )
    .describe("The issues worth reading, worst first, at most 6. When there are errors, the first error issue of the ranking that is not ignored must be among them."),
  notes: z.array(z.string()).describe("At most 4 other facts: deploys and changes, projects that stopped or went quiet, data left out. Empty when there are none."),
  lookFirst: z.string().describe("One sentence: what to look at first."),
});

export type SummaryAnswer = z.infer<typeof summaryAnswerSchema>;

/** Items and notes rendered at most; text cut at these lengths (a longer answer is not wrong, only long). */
const MAX_ITEMS = 8;
const MAX_NOTES = 6;
const HEADLINE_CHARS = 300;
const ITEM_CHARS = 600;

export type AnswerCheck = { ok: true } | { ok: false; reasons: string[] };

/** "all clear", "no errors", "everything is fine": claims a window with errors must not make. */
const ALL_CLEAR =
  /\b(?:all[ -]clear|no (?:new )?errors?\b|zero errors|error[- ]free|without (?:any )?errors|(?:there (?:are|were) )?no (?:problems|issues|incidents|failures)\b|nothing (?:to report|wrong|broke|failed|is wrong|went wrong)|all (?:systems|services) (?:are |were )?(?:operational|healthy|normal|green|fine|ok|up)|everything (?:is |was |looks |seems )?(?:fine|ok|okay|healthy|normal|good|green|operational))/i;

/** "regressed", "a regression", "reopened", "came back": said of an issue that is not a regression, false. */
const REGRESSION_CLAIM = /\b(?:regress(?:ed|ion|ing)?|re-?opened|came back)\b/i;
/** "not a regression", "never reopened", "no regression": the truthful thing to say of late events. */
const NEGATED_REGRESSION = /\b(?:not|no|never|nor|without)\s+(?:\w+\s+){0,2}?(?:regress(?:ed|ion|ing)?|re-?opened|came back)\b|\b\w+n't\s+(?:\w+\s+){0,2}?(?:regress(?:ed|ion|ing)?|re-?opened|came back)\b/gi;

function claimsRegression(text: string): boolean {
  return REGRESSION_CLAIM.test(text.replace(NEGATED_REGRESSION, " "));
}

/**
 * Checks an answer against the facts the model was given. `allowedNumbers`
 * is numbersIn(the prompt the model read): a number the answer writes that
 * is not among them is invented.
 */
export function checkAnswer(answer: SummaryAnswer, facts: SummaryFacts, ranked: IssueFacts[], allowedNumbers: Set<string>): AnswerCheck {
  const reasons: string[] = [];
  for (const [i, item] of answer.items.entries()) {
    const issue = ranked[item.rank - 1];
    if (!issue) {
      reasons.push(`item ${i + 1} cites rank ${item.rank}, which is not an issue of the facts`);
      continue;
    }
    if (item.count !== issue.windowCount) reasons.push(`item ${i + 1} gives rank ${item.rank} a count of ${item.count}, not ${issue.windowCount}`);
    if (!issue.isRegression && claimsRegression(item.text)) reasons.push(`item ${i + 1} calls rank ${item.rank} regressed or reopened, which it is not`);
    if (!startMatches(item.start, issue, facts)) reasons.push(`item ${i + 1} gives rank ${item.rank} the start "${oneLine(item.start, 40)}", not its first event or reopening`);
  }
  if (facts.totals.error > 0) {
    const topError = ranked.find((i) => i.level === "error" && i.status !== "ignored" && !i.instructionLike);
    if (topError && !answer.items.some((item) => ranked[item.rank - 1] === topError)) reasons.push(`the top error (rank ${ranked.indexOf(topError) + 1}) is not among the items`);
    const texts = [answer.headline, answer.lookFirst, ...answer.notes, ...answer.items.map((i) => i.text)];
    const claim = texts.map((t) => ALL_CLEAR.exec(t)).find(Boolean);
    if (claim) reasons.push(`it claims "${claim[0]}" while the window has ${plural(facts.totals.error, "error")}`);
  }
  const written = [answer.headline, answer.lookFirst, ...answer.notes, ...answer.items.map((i) => i.text)].join("\n");
  const invented = [...numbersIn(written)].filter((n) => !allowedNumbers.has(n));
  if (invented.length > 0) reasons.push(`it writes numbers the facts do not hold: ${invented.slice(0, 5).join(", ")}`);
  return reasons.length === 0 ? { ok: true } : { ok: false, reasons };
}

/**
 * The numbers in a text, normalised: "1,024" is "1024"; a time is "HH:MM"
 * (a time with seconds gives both forms, so "09:12" matches
 * "09:12:05"), "9:05" is "09:05"; decimals and versions ("2.14.0") stay as
 * written. Dates split into their parts ("2026", "11", "22").
 */
export function numbersIn(text: string): Set<string> {
  const out = new Set<string>();
  for (const match of text.matchAll(/\d+(?:[.,:]\d+)*/g)) {
    const token = match[0];
    if (/^\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?$/.test(token)) {
      const [h, m] = token.split(":");
      out.add(`${h!.padStart(2, "0")}:${m}`);
      continue;
    }
    // Thousands separators: "1,024" and "12,345,678" (not "3,4", a list).
    const number = /^\d{1,3}(?:,\d{3})+(?:\.\d+)?$/.test(token) ? token.replace(/,/g, "") : token;
    if (/[,]/.test(number)) {
      for (const part of number.split(",")) out.add(part);
      continue;
    }
    out.add(number);
  }
  return out;
}

/** A cited start ("2026-11-22T09:12:05Z", "2026-11-22 09:12 UTC", "09:12") names the minute of the issue's first event here, or of its reopening. */
function startMatches(start: string, issue: IssueFacts, facts: SummaryFacts): boolean {
  const candidates = [issue.windowFirst, ...(issue.isRegression && issue.regressedAt ? [issue.regressedAt] : [])].map((d) => d.toISOString().slice(0, 16));
  const trimmed = start.trim();
  const full = /^(\d{4}-\d{2}-\d{2})[ T](\d{2}):(\d{2})/.exec(trimmed);
  if (full) return candidates.includes(`${full[1]}T${full[2]}:${full[3]}`);
  // A time of day alone: it says which minute only when the window lies within a day.
  const time = /^(\d{1,2}):(\d{2})(?::\d{2})?(?:\s*UTC)?$/i.exec(trimmed);
  if (!time || facts.now.getTime() - facts.since.getTime() > 86_400_000) return false;
  const hhmm = `${time[1]!.padStart(2, "0")}:${time[2]}`;
  return candidates.some((c) => c.slice(11) === hhmm);
}

/**
 * The checked answer as the summary's Markdown: the headline in bold, each
 * item as its issue (level, project and title from the facts, as code spans)
 * with its count and start from the facts and the model's words after, the
 * notes, and the line on what to look at first. Model text is put on one
 * line each and cut; it is rendered as safe Markdown (no HTML, no links).
 */
export function renderAnswer(answer: SummaryAnswer, facts: SummaryFacts, ranked: IssueFacts[]): string {
  const clock = summaryClock(facts.since, facts.now);
  const out = [`**${oneLine(answer.headline, HEADLINE_CHARS).replace(/\*\*/g, "")}**`, ""];
  for (const item of answer.items.slice(0, MAX_ITEMS)) {
    const issue = ranked[item.rank - 1]!;
    const start = `since ${clock(issue.windowFirst)}${issue.isRegression && issue.regressedAt ? `, reopened ${clock(issue.regressedAt)}` : ""}`;
    const label = `**${issue.level}** ${codeSpan(issue.title, DIGEST_TEXT_CHARS)} in ${codeSpan(issue.projectName, DIGEST_NAME_CHARS)}${issue.status !== "open" ? ` (${issue.status})` : ""}`;
    out.push(`- ${label}: ${plural(issue.windowCount, "event")} ${start}. ${oneLine(item.text, ITEM_CHARS)}`);
  }
  const notes = answer.notes.map((n) => oneLine(n, ITEM_CHARS)).filter((n) => n !== "").slice(0, MAX_NOTES);
  if (notes.length > 0) out.push("", ...notes.map((n) => `- ${n}`));
  out.push("", `**Look first at:** ${oneLine(answer.lookFirst, HEADLINE_CHARS)}`);
  return out.join("\n");
}
