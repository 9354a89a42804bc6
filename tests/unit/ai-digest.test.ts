import { describe, expect, it } from "vitest";
import { buildDigest, type DigestInput } from "@/lib/ai/digest";
import { groupEvents } from "@/lib/ai/group-events";
import type { SelectedEvent } from "@/lib/events/recent";
import { selectedEvent as event, T0 } from "@/tests/helpers/ai-events";

function digestOf(events: SelectedEvent[], opts: { newMessages?: string[]; since?: Date | null } = {}): string {
  const groups = groupEvents(events);
  for (const g of groups) g.isNew = opts.newMessages?.includes(g.message) ?? false;
  const times = events.map((e) => e.receivedAt.getTime());
  const input: DigestInput = {
    groups,
    eventCount: events.length,
    since: opts.since === undefined ? new Date(T0) : opts.since,
    oldest: new Date(Math.min(...times)),
    newest: new Date(Math.max(...times)),
    newnessKnown: true,
  };
  return buildDigest(input);
}

const sample = () => [
  ...Array.from({ length: 5 }, (_, i) => event("error", "DB timeout", { project: "api", at: 60 + i * 60 })),
  ...Array.from({ length: 2 }, (_, i) => event("error", "Payment declined", { project: "billing", at: 100 + i })),
  ...Array.from({ length: 7 }, (_, i) => event("warn", "Slow request", { project: "api", at: i })),
  ...Array.from({ length: 3 }, (_, i) => event("info", "Deploy done", { project: "web", at: i })),
];

describe("buildDigest", () => {
  it("counts events by level and by project", () => {
    const text = digestOf(sample());
    expect(text).toContain("17 events from 3 projects (since 2025-03-01 10:00:00 UTC).");
    expect(text).toContain("By level: 7 errors, 7 warnings, 3 info.");
    expect(text).toContain("  api: 12 (5 errors, 7 warnings, 0 info)");
    expect(text).toContain("  billing: 2 (2 errors, 0 warnings, 0 info)");
    expect(text).toContain("  web: 3 (0 errors, 0 warnings, 3 info)");
    // Projects with the most errors first.
    expect(text.indexOf("  api:")).toBeLessThan(text.indexOf("  billing:"));
    expect(text.indexOf("  billing:")).toBeLessThan(text.indexOf("  web:"));
  });

  it("lists the most frequent messages with counts and first/last seen, and what to look at first", () => {
    const text = digestOf(sample());
    expect(text).toContain('Look first at: [error] api: "DB timeout" (5 times, last 2025-03-01 10:05:00 UTC).');
    const lines = text.split("\n");
    const top = lines.findIndex((l) => l.startsWith("Most frequent messages (4 of 4 distinct messages)"));
    expect(lines.slice(top + 1, top + 9)).toEqual([
      '  1. [warn] api: "Slow request"',
      "     7 times, first 2025-03-01 10:00:00 UTC, last 2025-03-01 10:00:06 UTC",
      '  2. [error] api: "DB timeout"',
      "     5 times, first 2025-03-01 10:01:00 UTC, last 2025-03-01 10:05:00 UTC",
      '  3. [info] web: "Deploy done"',
      "     3 times, first 2025-03-01 10:00:00 UTC, last 2025-03-01 10:00:02 UTC",
      '  4. [error] billing: "Payment declined"',
      "     2 times, first 2025-03-01 10:01:40 UTC, last 2025-03-01 10:01:41 UTC",
    ]);
  });

  it("shows what is new in the window", () => {
    const text = digestOf(sample(), { newMessages: ["Payment declined"] });
    expect(text).toContain('  4. [error] billing: "Payment declined" (new)');
    expect(text).toMatch(/New in this window \(not seen in the 1,000 events of its project just before it\):\n {2}- \[error\] billing: "Payment declined", 2 times since 2025-03-01 10:01:40 UTC/);
    expect(digestOf(sample())).toContain("just before it): nothing.");
  });

  it("is deterministic and keeps to the top ten messages", () => {
    const events = Array.from({ length: 30 }, (_, i) => event("error", `failure ${i}`, { at: i }));
    const a = digestOf(events);
    expect(digestOf(events)).toBe(a);
    expect(a).toContain("Most frequent messages (10 of 30 distinct messages):");
    expect(a.match(/^ {2}\d+\. /gm)).toHaveLength(10);
  });

  it("describes a window without since by its oldest and newest event", () => {
    const text = digestOf([event("info", "hello", { at: 0 }), event("info", "hello", { at: 90 })], { since: null });
    expect(text).toContain("2 events from 1 project (the newest 2, 2025-03-01 10:00:00 UTC to 2025-03-01 10:01:30 UTC).");
    expect(text).not.toContain("Look first at"); // nothing worse than info
  });

  it("keeps each message on one line and cuts long ones", () => {
    const text = digestOf([event("error", `line one\nline two\r\n\tthree ${"x".repeat(500)}`)]);
    expect(text).toContain('"line one line two three xxx');
    expect(text).toMatch(/more characters\]"/);
    expect(text).not.toContain("line one\n");
  });
});
