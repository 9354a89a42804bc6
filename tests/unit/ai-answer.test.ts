import { describe, expect, it } from "vitest";
import { checkAnswer, numbersIn, renderAnswer, type SummaryAnswer } from "@/lib/ai/answer";
import { buildSummaryPrompt } from "@/lib/ai/prompt";
import { rankIssues } from "@/lib/ai/rank";
import { incidentFacts, issueFacts, summaryFacts } from "@/tests/helpers/ai-facts";

/** The incident hour (tests/helpers/ai-facts.ts): rank 1 is the new Stripe error, 1,024 events since 09:12:05. */
function setup() {
  const { facts } = incidentFacts();
  const ranked = rankIssues(facts.issues);
  const prompt = buildSummaryPrompt(facts, { budgetChars: 24_000, scrub: true });
  const check = (answer: SummaryAnswer) => checkAnswer(answer, facts, ranked, numbersIn(prompt.prompt));
  return { facts, ranked, check };
}

const good: SummaryAnswer = {
  headline: "Checkout payments are failing since a deploy at 09:10 UTC.",
  items: [
    { rank: 1, count: 1_024, start: "2026-11-22T09:12:05Z", text: "Stripe timeouts, new in this window, still going on; they started 2 minutes after the deploy." },
    { rank: 3, count: 312, start: "09:13 UTC", text: "The DB pool runs out, up from 40." },
  ],
  notes: ["The project billing-worker went quiet: 120 events in the previous hour, none since."],
  lookFirst: "The Stripe timeouts in checkout.",
};

describe("checkAnswer", () => {
  it("accepts an answer whose every cited rank, count, start and number is a fact", () => {
    expect(setup().check(good)).toEqual({ ok: true });
  });

  it("refuses a wrong count, a wrong start, an unknown rank", () => {
    const { check } = setup();
    expect(check({ ...good, items: [{ ...good.items[0]!, count: 1_000 }] })).toMatchObject({ ok: false, reasons: [expect.stringContaining("count of 1000, not 1024")] });
    expect(check({ ...good, items: [{ ...good.items[0]!, start: "2026-11-22T09:30:00Z" }] })).toMatchObject({ ok: false, reasons: [expect.stringContaining("the start")] });
    expect(check({ ...good, items: [good.items[0]!, { ...good.items[1]!, rank: 99 }] })).toMatchObject({ ok: false, reasons: [expect.stringContaining("rank 99")] });
  });

  it("refuses an answer that leaves out the top error", () => {
    const result = setup().check({ ...good, items: [good.items[1]!] });
    expect(result).toMatchObject({ ok: false, reasons: [expect.stringContaining("the top error (rank 1) is not among the items")] });
  });

  it("refuses 'all clear' and 'no errors' while there are errors", () => {
    const { check } = setup();
    for (const claim of ["All clear. No errors in this window", "Everything is fine.", "All systems operational", "There were no errors."]) {
      expect(check({ ...good, headline: claim }), claim).toMatchObject({ ok: false });
    }
    // Without errors in the window, saying so is true.
    const quiet = summaryFacts({ issues: [issueFacts({ level: "warn", title: "Slow request", windowCount: 5, previousCount: 5 })] });
    const ranked = rankIssues(quiet.issues);
    const numbers = numbersIn(buildSummaryPrompt(quiet, { budgetChars: 24_000, scrub: true }).prompt);
    expect(checkAnswer({ headline: "No errors; a steady slow request.", items: [{ rank: 1, count: 5, start: "09:10", text: "Steady." }], notes: [], lookFirst: "Nothing urgent." }, quiet, ranked, numbers)).toEqual({ ok: true });
  });

  it("takes no number from the prompt's random fence (a model could otherwise cite one)", () => {
    const { facts } = incidentFacts();
    const fixed = [...numbersIn(buildSummaryPrompt(facts, { budgetChars: 24_000, scrub: true, boundary: "fence" }).prompt)].sort();
    for (let i = 0; i < 50; i++) {
      expect([...numbersIn(buildSummaryPrompt(facts, { budgetChars: 24_000, scrub: true }).prompt)].sort()).toEqual(fixed);
    }
  });

  it("refuses numbers the facts do not hold, anywhere in the answer", () => {
    const { check } = setup();
    expect(check({ ...good, notes: ["Errors are up 37% on yesterday."] })).toMatchObject({ ok: false, reasons: [expect.stringContaining("37")] });
    expect(check({ ...good, lookFirst: "The 2,048 Stripe timeouts." })).toMatchObject({ ok: false, reasons: [expect.stringContaining("2048")] });
    expect(check({ ...good, headline: "Payments failing since 08:55 UTC." })).toMatchObject({ ok: false, reasons: [expect.stringContaining("08:55")] });
  });
});

describe("numbersIn", () => {
  it("normalises thousands, times and leading zeros; keeps versions", () => {
    expect([...numbersIn("1,024 events since 9:12 UTC (2026-11-22T09:12:05Z), v2.14.0, [3,4]")]).toEqual(["1024", "09:12", "2026", "11", "22", "2.14.0", "3", "4"]);
  });
});

describe("renderAnswer", () => {
  it("writes the headline, each item as its issue from the facts with its count and start, the notes and what to look at first", () => {
    const { facts, ranked } = setup();
    expect(renderAnswer(good, facts, ranked).split("\n")).toEqual([
      "**Checkout payments are failing since a deploy at 09:10 UTC.**",
      "",
      "- **error** `Stripe API timeout after <n>ms while charging order <id>` in `checkout`: 1,024 events since 09:12 UTC. Stripe timeouts, new in this window, still going on; they started 2 minutes after the deploy.",
      "- **error** `DB pool exhausted` in `api`: 312 events since 09:13 UTC. The DB pool runs out, up from 40.",
      "",
      "- The project billing-worker went quiet: 120 events in the previous hour, none since.",
      "",
      "**Look first at:** The Stripe timeouts in checkout.",
    ]);
  });

  it("keeps model text on one line each, so it cannot add headings or break the list", () => {
    const { facts, ranked } = setup();
    const text = renderAnswer({ ...good, headline: "Bad\n# Heading", items: [{ ...good.items[0]!, text: "a\n\n## b\n- c" }] }, facts, ranked);
    expect(text.split("\n").filter((l) => l.startsWith("#"))).toEqual([]);
    expect(text).toContain("**Bad # Heading**");
  });
});
