import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { splitWindow, type Range } from "@/lib/issues/window-counts";

const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;
const at = (iso: string) => new Date(iso);

/** Every range, sorted, as one list (for coverage checks). */
function pieces(split: ReturnType<typeof splitWindow>): (Range & { unit: number })[] {
  return [
    ...split.days.map((r) => ({ ...r, unit: DAY })),
    ...split.hours.map((r) => ({ ...r, unit: HOUR })),
    ...split.minutes.map((r) => ({ ...r, unit: MINUTE })),
    ...split.events.map((r) => ({ ...r, unit: 1 })),
  ].sort((a, b) => a.from - b.from);
}

describe("splitWindow", () => {
  it("cuts a window into whole days, whole hours and minutes at their edges and partial minutes at the very edges", () => {
    expect(splitWindow(at("2026-01-01T10:15:30Z"), at("2026-01-01T13:40:10Z"))).toEqual({
      days: [],
      hours: [{ from: Date.parse("2026-01-01T11:00:00Z"), to: Date.parse("2026-01-01T13:00:00Z") }],
      minutes: [
        { from: Date.parse("2026-01-01T10:16:00Z"), to: Date.parse("2026-01-01T11:00:00Z") },
        { from: Date.parse("2026-01-01T13:00:00Z"), to: Date.parse("2026-01-01T13:40:00Z") },
      ],
      events: [
        { from: Date.parse("2026-01-01T10:15:30Z"), to: Date.parse("2026-01-01T10:16:00Z") },
        { from: Date.parse("2026-01-01T13:40:00Z"), to: Date.parse("2026-01-01T13:40:10Z") },
      ],
    });
    // Seven days and a bit: whole days, then hours, minutes and events at each edge.
    expect(splitWindow(at("2026-01-01T22:59:30Z"), at("2026-01-09T01:01:00Z"))).toEqual({
      days: [{ from: Date.parse("2026-01-02T00:00:00Z"), to: Date.parse("2026-01-09T00:00:00Z") }],
      hours: [
        { from: Date.parse("2026-01-01T23:00:00Z"), to: Date.parse("2026-01-02T00:00:00Z") },
        { from: Date.parse("2026-01-09T00:00:00Z"), to: Date.parse("2026-01-09T01:00:00Z") },
      ],
      minutes: [{ from: Date.parse("2026-01-09T01:00:00Z"), to: Date.parse("2026-01-09T01:01:00Z") }],
      events: [{ from: Date.parse("2026-01-01T22:59:30Z"), to: Date.parse("2026-01-01T23:00:00Z") }],
    });
    // No upper bound: hours to the next midnight, then days to infinity.
    expect(splitWindow(at("2026-01-01T10:00:00Z"), null)).toEqual({
      days: [{ from: Date.parse("2026-01-02T00:00:00Z"), to: Infinity }],
      hours: [{ from: Date.parse("2026-01-01T10:00:00Z"), to: Date.parse("2026-01-02T00:00:00Z") }],
      minutes: [],
      events: [],
    });
    // Inside one minute.
    expect(splitWindow(at("2026-01-01T10:00:05Z"), at("2026-01-01T10:00:20Z")).events).toHaveLength(1);
    // Empty or inverted.
    expect(splitWindow(at("2026-01-01T10:00:00Z"), at("2026-01-01T10:00:00Z"))).toEqual({ days: [], hours: [], minutes: [], events: [] });
  });

  it("covers every window exactly once, each piece aligned to its table's unit (property)", () => {
    const base = Date.parse("2026-01-01T00:00:00Z");
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 3 * DAY }), fc.integer({ min: 1, max: 20 * DAY }), fc.boolean(), (offset, length, open) => {
        const since = base + offset;
        const until = open ? Infinity : since + length;
        const parts = pieces(splitWindow(new Date(since), open ? null : new Date(until)));
        expect(parts[0]!.from).toBe(since);
        expect(parts.at(-1)!.to).toBe(until);
        for (let i = 1; i < parts.length; i++) expect(parts[i]!.from).toBe(parts[i - 1]!.to);
        for (const p of parts) {
          expect(p.from < p.to).toBe(true);
          expect(p.from % p.unit).toBe(0);
          if (Number.isFinite(p.to)) expect(p.to % p.unit).toBe(0);
        }
        // The slow pieces stay small: at most two partial minutes of events.
        expect(parts.filter((p) => p.unit === 1).every((p) => p.to - p.from < MINUTE)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
});
