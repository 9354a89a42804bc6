import { describe, expect, it } from "vitest";
import { CHANGE_READ_CAP, changeCandidates, eventInputs, shiftsOf, tagInputs, toShift, valueFloors } from "@/lib/ai/changes";
import { checkAnswer, numbersIn } from "@/lib/ai/answer";
import { buildDigest } from "@/lib/ai/digest";
import { buildSummaryPrompt } from "@/lib/ai/prompt";
import { chooseLookFirst, findChanges, rankIssues } from "@/lib/ai/rank";
import type { IssueValueCount } from "@/lib/events/samples";
import { at, issueFacts, summaryFacts } from "@/tests/helpers/ai-facts";

const count = (key: string, value: string, n: number, previous: number, firstAt: string | null = null): IssueValueCount => ({
  issueId: "iss",
  source: "context",
  key,
  value,
  count: n,
  previousCount: previous,
  firstAt: firstAt ? at(firstAt) : null,
});

/** The prompt's issue lines as objects. */
function issueLines(prompt: string, boundary: string) {
  const inside = prompt.slice(prompt.indexOf(`<events-${boundary}>`) + boundary.length + 9, prompt.indexOf(`</events-${boundary}>`));
  return inside
    .split("\n")
    .filter(Boolean)
    .map((l) => JSON.parse(l) as Record<string, unknown>)
    .filter((l) => l.type === "issue");
}

describe("what changed inside an issue (eventInputs, tagInputs, shiftsOf)", () => {
  const declines = issueFacts({ title: "Card declined", windowCount: 200, previousCount: 60 });
  const judge = (issue: typeof declines, counts: IssueValueCount[]) => shiftsOf(eventInputs(issue, counts.map((c) => ({ ...c, issueId: issue.issueId })))).map(toShift);

  it("names the new value that took over, with the minute it appeared, before the one it displaced", () => {
    // 60 card declines before, all "card_declined"; now 200, 140 of them "processing_error" since 09:58.
    const shifts = judge(declines, [count("code", "card_declined", 60, 60), count("code", "processing_error", 140, 0, "09:58:12"), count("gateway", "stripe", 200, 60), count("attempt", "1", 100, 31)]);
    expect(shifts).toEqual([
      { key: "code", value: "processing_error", source: "context", count: 140, of: 200, previousCount: 0, previousOf: 60, basis: "window", countedFrom: null, previousFrom: null, firstAt: at("09:58:12") },
    ]);
  });

  it("tells a value that went away when nothing grew, and nothing for noise or a handful of events", () => {
    const even = issueFacts({ windowCount: 100, previousCount: 100 });
    expect(judge(even, [count("region", "eu-west-1", 2, 40), count("region", "us-east-1", 98, 60)]).map((s) => s.value)).toEqual(["us-east-1"]);
    expect(judge(even, [count("region", "eu-west-1", 10, 60)]).map((s) => [s.value, s.count, s.previousCount])).toEqual([["eu-west-1", 10, 60]]);
    // Shares within 25 points, or fewer than 5 events with the value: not told.
    expect(judge(even, [count("attempt", "1", 45, 30), count("attempt", "2", 55, 70)])).toEqual([]);
    expect(judge(issueFacts({ windowCount: 8, previousCount: 100 }), [count("code", "timeout", 4, 0, "09:30")])).toEqual([]);
  });

  it("never leaves out a value shiftsOf could tell (valueFloors, the floors the values are read with)", () => {
    for (const [windowCount, previousCount] of [[8, 100], [200, 60], [1_000, 999], [5_000, 700], [3, 3], [1_001, 4], [37, 1_000_000]]) {
      const issue = issueFacts({ windowCount, previousCount });
      const floors = valueFloors(issue);
      const near = (floor: number, of: number) => [...new Set([0, 1, 4, 5, 6, floor - 2, floor - 1, floor, floor + 1, of - 1, of])].filter((n) => n >= 0 && n <= of);
      const counts = near(floors.count, Math.min(CHANGE_READ_CAP, windowCount));
      const previous = near(floors.previous, Math.min(CHANGE_READ_CAP, previousCount));
      const told = counts.flatMap((n) => previous.filter((p) => judge(issue, [count("code", "x", n, p)]).length > 0).map((p) => [n, p]));
      // Under both floors: never told. At a floor: told for some other count (the floors are not higher than they need be).
      expect(told.filter(([n, p]) => n! < floors.count && p! < floors.previous)).toEqual([]);
      if (floors.count <= Math.min(CHANGE_READ_CAP, windowCount)) expect(told.some(([n]) => n === floors.count)).toBe(true);
    }
  });

  it("reads the top open errors and warnings that are known and were seen before", () => {
    const fresh = issueFacts({ title: "New thing", isNew: true, windowCount: 50, previousCount: 0 });
    const ignored = issueFacts({ title: "Ignored", status: "ignored", windowCount: 500, previousCount: 400 });
    const info = issueFacts({ title: "Info", level: "info", windowCount: 900, previousCount: 100 });
    const huge = issueFacts({ title: "Huge", windowCount: 5_000, previousCount: 700 });
    expect(changeCandidates(rankIssues([declines, fresh, ignored, info, huge])).map((i) => i.title)).toEqual(["Huge", "Card declined"]);
  });

  it("an issue past the read cap: context values from its newest events (no start minute), tags exactly from the tag counts", () => {
    const huge = issueFacts({ title: "Huge", windowCount: 5_000, previousCount: 700 });
    const events = eventInputs(huge, [
      { ...count("code", "processing_error", 0.8 * CHANGE_READ_CAP, 0, "09:40"), issueId: huge.issueId },
      { ...count("release", "2.4.1", 0.9 * CHANGE_READ_CAP, 0, "09:41"), source: "tag", issueId: huge.issueId },
    ]);
    expect(events.map((e) => [e.key, e.basis, e.of, e.previousOf, e.firstAt])).toEqual([["code", "newest", CHANGE_READ_CAP, Math.min(CHANGE_READ_CAP, 700), null]]);
    const tags = tagInputs(huge, [{ issueId: huge.issueId, key: "release", value: "2.4.1", count: 4_100, previousCount: 0, firstUnit: at("09:00") }], { count: 5_300, previous: 1_400 }, at("09:00"), at("07:00"));
    expect(shiftsOf([...events, ...tags]).map((s) => [s.key, s.value, s.count, s.of, s.basis, s.firstUnit])).toEqual([
      ["code", "processing_error", 0.8 * CHANGE_READ_CAP, CHANGE_READ_CAP, "newest", null],
      ["release", "2.4.1", 4_100, 5_300, "units", at("09:00")],
    ]);
  });

  it("shows the change under the issue in the digest and in its prompt line, and a model may cite its numbers", () => {
    const declines = issueFacts({
      title: "Card declined for order <id>",
      windowCount: 200,
      previousCount: 60,
      windowFirst: at("09:00:40"),
      changes: { shifts: [{ key: "code", value: "processing_error", source: "context", count: 140, of: 200, previousCount: 0, previousOf: 60, basis: "window", countedFrom: null, previousFrom: null, firstAt: at("09:58:12") }] },
    });
    const facts = summaryFacts({ issues: [declines] });
    const text = buildDigest(facts);
    expect(text.split("\n")).toContain("   changed: `code` = `processing_error` in 140 of 200 events (none of 60 before), since 09:58 UTC");
    expect(text.split("\n").find((l) => l.startsWith("**Look first at:**"))).toMatch(/; new inside it: `code` = `processing_error` \(140 of 200 events\) since 09:58 UTC\.$/);
    const prompt = buildSummaryPrompt(facts, { budgetChars: 24_000, scrub: true, boundary: "b0" });
    expect(issueLines(prompt.prompt, "b0")[0]!.changed).toEqual([{ context: "code", value: "processing_error", count: 140, of: 200, previousCount: 0, previousOf: 60, since: "2026-11-22T09:58:12Z" }]);
    const answer = {
      headline: "Card declines tripled: 140 of 200 now carry code processing_error, since 09:58 UTC.",
      items: [{ rank: 1, count: 200, start: "09:00", text: "Up from 60; the new code processing_error is in 140 of them." }],
      notes: [],
      lookFirst: "The processing_error declines.",
    };
    expect(checkAnswer(answer, facts, rankIssues(facts.issues), numbersIn(prompt.prompt))).toEqual({ ok: true });
    expect(checkAnswer({ ...answer, headline: "150 of 200 carry processing_error." }, facts, rankIssues(facts.issues), numbersIn(prompt.prompt))).toMatchObject({ ok: false });
  });
});

describe("late events and settled issues", () => {
  // Resolved at 09:20; a late upload at 09:40 of 30 events dated 09:05 to 09:15.
  const late = issueFacts({ title: "Export failed", windowCount: 30, previousCount: 0, status: "resolved", resolvedAt: at("09:20"), lateCount: 30, windowFirst: at("09:05"), windowLast: at("09:15") });
  const warn = issueFacts({ title: "Slow query", level: "warn", windowCount: 12, previousCount: 11 });

  it("a resolved issue's late events are marked as such, never listed as a regression, never lead", () => {
    const facts = summaryFacts({ issues: [late, warn] });
    const text = buildDigest(facts);
    expect(text).toContain("**Regressions:** none.");
    const lines = text.split("\n");
    const i = lines.findIndex((l) => l.includes("`Export failed`"));
    expect(lines[i]).toMatch(/\(resolved\): `Export failed`$/);
    expect(lines[i + 1]).toContain("resolved at 09:20 UTC; all 30 of these events are late (dated before it, arrived after it): not a regression");
    expect(lines.find((l) => l.startsWith("**Look first at:**"))).toContain("the warning `Slow query`");
    expect(chooseLookFirst(rankIssues(facts.issues), facts.projects).lead).toMatchObject({ kind: "issue", issue: { title: "Slow query" } });
    // With nothing open, nothing leads, and the line says why.
    expect(buildDigest(summaryFacts({ issues: [late] }))).toContain("**Look first at:** nothing new: every error and warning in this window is in an issue your team ignored or resolved.");
  });

  it("a lower bound says so: an issue with more events before its fix than are looked at", () => {
    const busy = { ...late, windowCount: 90_000, lateCount: 1_200, lateCountAtLeast: true };
    expect(buildDigest(summaryFacts({ issues: [busy] }))).toContain("resolved at 09:20 UTC; at least 1,200 of these events are late (dated before it, arrived after it): not a regression");
  });

  it("a model that calls late events a regression is refused; one that says they are not is served", () => {
    const facts = summaryFacts({ issues: [late, warn] });
    const prompt = buildSummaryPrompt(facts, { budgetChars: 24_000, scrub: true, boundary: "b1" });
    expect(issueLines(prompt.prompt, "b1")[0]).toMatchObject({ status: "resolved", resolvedAt: "2026-11-22T09:20:00Z", resolved: expect.stringContaining("not a regression") });
    const ranked = rankIssues(facts.issues);
    const item = { rank: 1, count: 30, start: "09:05", text: "" };
    const ask = (text: string) => checkAnswer({ headline: "Export failures.", items: [{ ...item, text }], notes: [], lookFirst: "Slow query." }, facts, ranked, numbersIn(prompt.prompt));
    expect(ask("It regressed after the fix.")).toMatchObject({ ok: false, reasons: [expect.stringContaining("regressed or reopened")] });
    expect(ask("The export failure reopened.")).toMatchObject({ ok: false });
    expect(ask("Late events dated before the fix; not a regression, it was never reopened.")).toEqual({ ok: true });
  });
});

describe("deploy markers", () => {
  it("a deploy one minute before an outage is listed first, ahead of routine new info lines, and named where to look first", () => {
    const routine = ["Cache warmed", "User signed in", "Feature flags loaded", "Cron scheduled", "Mailer ready", "Webhook registered"].map((title, i) =>
      issueFacts({ projectName: "shop", level: "info", title, isNew: true, windowFirst: at(`09:0${i}`), windowCount: 20 }),
    );
    const outage = issueFacts({ projectName: "shop", title: "Checkout failed: connection refused", isNew: true, windowFirst: at("09:41:30"), windowCount: 312 });
    const deploys = [{ projectId: "p_shop", projectName: "shop", release: "shop@1.8.0", at: at("09:40:30") }];
    const facts = summaryFacts({ issues: [...routine, outage], deploys });
    const changes = findChanges(rankIssues(facts.issues), deploys);
    expect(changes[0]).toMatchObject({ change: { kind: "deploy", deploy: { release: "shop@1.8.0" } }, followers: [{ issue: { title: "Checkout failed: connection refused" }, afterMs: 60_000 }] });

    const text = buildDigest(facts);
    const lines = text.split("\n");
    const start = lines.findIndex((l) => l.startsWith("**Changes**"));
    expect(lines.slice(start + 1, start + 3)).toEqual([
      "- 09:40 UTC in `shop`: the deploy of release `shop@1.8.0` (its first event)",
      "  - the new error `Checkout failed: connection refused` in `shop` started 1 minute after the deploy of release `shop@1.8.0`",
    ]);
    expect(lines.slice(start).find((l) => l.startsWith("- and"))).toBe("- and 2 more");
    expect(lines.find((l) => l.startsWith("**Look first at:**"))).toBe(
      "**Look first at:** the error `Checkout failed: connection refused` in `shop`: 312 events since 09:41 UTC, ongoing, new, 1 minute after the deploy of release `shop@1.8.0` in `shop`.",
    );

    // The model gets the deploy as a fenced line and the error points at it.
    const prompt = buildSummaryPrompt(facts, { budgetChars: 24_000, scrub: true, boundary: "b2" });
    expect(prompt.prompt).toContain('{"type":"deploy","deploy":1,"project":"shop","release":"shop@1.8.0","at":"2026-11-22T09:40:30Z"}');
    expect(issueLines(prompt.prompt, "b2")[0]).toMatchObject({ title: "Checkout failed: connection refused", startedAfterChange: { deploy: 1, after: "1 minute" } });
  });
});
