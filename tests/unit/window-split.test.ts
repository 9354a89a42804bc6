import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { splitWindow, type Piece, type SplitOptions, type WindowSplit } from "@/lib/issues/window-counts";

const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;
const at = (iso: string) => new Date(iso);
const ms = (iso: string) => Date.parse(iso);
const plus = (from: string, to: string): Piece => ({ from: ms(from), to: ms(to), sign: 1 });
const minus = (from: string, to: string): Piece => ({ from: ms(from), to: ms(to), sign: -1 });

// Every unit intact, and nothing in the future: the split is free to read whole units.
const FREE: SplitOptions = { intactSince: -Infinity, dataUntil: Infinity };
// No unit read whole: each edge cut inside the window only.
const INSIDE: SplitOptions = { intactSince: Infinity };

/** Every piece with the unit of its table. */
function pieces(split: WindowSplit): (Piece & { unit: number })[] {
  return [
    ...split.days.map((r) => ({ ...r, unit: DAY })),
    ...split.hours.map((r) => ({ ...r, unit: HOUR })),
    ...split.minutes.map((r) => ({ ...r, unit: MINUTE })),
    ...split.events.map((r) => ({ ...r, unit: 1 })),
  ];
}

/** How many times the pieces count the instant t (signs summed). */
function coverage(parts: Piece[], t: number): number {
  return parts.reduce((sum, p) => sum + (p.from <= t && t < p.to ? p.sign : 0), 0);
}

describe("splitWindow", () => {
  it("cuts a window into whole days, whole hours and minutes at their edges and partial minutes at the very edges", () => {
    expect(splitWindow(at("2026-01-01T10:15:30Z"), at("2026-01-01T13:40:10Z"), INSIDE)).toEqual({
      days: [],
      hours: [plus("2026-01-01T11:00:00Z", "2026-01-01T13:00:00Z")],
      minutes: [plus("2026-01-01T10:16:00Z", "2026-01-01T11:00:00Z"), plus("2026-01-01T13:00:00Z", "2026-01-01T13:40:00Z")],
      events: [plus("2026-01-01T10:15:30Z", "2026-01-01T10:16:00Z"), plus("2026-01-01T13:40:00Z", "2026-01-01T13:40:10Z")],
    });
    // No upper bound: hours to the next midnight, then days to infinity.
    expect(splitWindow(at("2026-01-01T10:00:00Z"), null, INSIDE)).toEqual({
      days: [{ from: ms("2026-01-02T00:00:00Z"), to: Infinity, sign: 1 }],
      hours: [plus("2026-01-01T10:00:00Z", "2026-01-02T00:00:00Z")],
      minutes: [],
      events: [],
    });
    // Inside one minute.
    expect(splitWindow(at("2026-01-01T10:00:05Z"), at("2026-01-01T10:00:20Z"), INSIDE).events).toHaveLength(1);
    // Empty or inverted.
    expect(splitWindow(at("2026-01-01T10:00:00Z"), at("2026-01-01T10:00:00Z"), FREE)).toEqual({ days: [], hours: [], minutes: [], events: [] });
  });

  it("reads an edge that fills most of its unit as the whole unit less the rest", () => {
    // The 24 hours before 15:50: 8 hours and 10 minutes on the first day, then
    // 15 h 50 min on the second, read as that day less its last 8 h 10 min.
    expect(splitWindow(at("2026-11-24T15:50:00Z"), at("2026-11-25T15:50:00Z"), FREE)).toEqual({
      days: [plus("2026-11-25T00:00:00Z", "2026-11-26T00:00:00Z")],
      hours: [plus("2026-11-24T16:00:00Z", "2026-11-25T00:00:00Z"), minus("2026-11-25T16:00:00Z", "2026-11-26T00:00:00Z")],
      minutes: [plus("2026-11-24T15:50:00Z", "2026-11-24T16:00:00Z"), minus("2026-11-25T15:50:00Z", "2026-11-25T16:00:00Z")],
      events: [],
    });
    // An hour from 13:50: 10 minutes of one hour and the next hour less its last 10 minutes.
    expect(splitWindow(at("2026-11-26T13:50:00Z"), at("2026-11-26T14:50:00Z"), FREE)).toEqual({
      days: [],
      hours: [plus("2026-11-26T14:00:00Z", "2026-11-26T15:00:00Z")],
      minutes: [plus("2026-11-26T13:50:00Z", "2026-11-26T14:00:00Z"), minus("2026-11-26T14:50:00Z", "2026-11-26T15:00:00Z")],
      events: [],
    });
    // A unit before intactSince is never read whole; nor is one still filling.
    const cut = splitWindow(at("2026-11-26T13:50:00Z"), at("2026-11-26T14:50:00Z"), { intactSince: ms("2026-11-26T14:30:00Z"), dataUntil: Infinity });
    expect(cut.hours).toEqual([]);
    expect(cut.minutes).toEqual([plus("2026-11-26T13:50:00Z", "2026-11-26T14:00:00Z"), plus("2026-11-26T14:00:00Z", "2026-11-26T14:50:00Z")]);
    const filling = splitWindow(at("2026-11-26T13:50:00Z"), at("2026-11-26T14:50:00Z"), { intactSince: -Infinity, dataUntil: ms("2026-11-26T14:55:00Z") });
    expect(filling.hours).toEqual([]);
  });

  it("counts every instant of any window once and nothing outside it, each piece aligned to its unit (property)", () => {
    const base = ms("2026-01-01T00:00:00Z");
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 3 * DAY }),
        fc.integer({ min: 1, max: 20 * DAY }),
        fc.boolean(),
        fc.option(fc.integer({ min: -DAY, max: 25 * DAY }), { nil: undefined }),
        (offset, length, open, intactOffset) => {
          const since = base + offset;
          const until = open ? Infinity : since + length;
          const intactSince = intactOffset === undefined ? -Infinity : base + intactOffset;
          const parts = pieces(splitWindow(new Date(since), open ? null : new Date(until), { intactSince, dataUntil: Infinity }));
          // Coverage is constant between boundaries: check at each one and just before it.
          const points = new Set([since - 1, since, Number.isFinite(until) ? until - 1 : since + 30 * DAY, Number.isFinite(until) ? until : since - 2]);
          for (const p of parts) for (const t of [p.from - 1, p.from, p.to - 1, p.to]) if (Number.isFinite(t)) points.add(t);
          for (const t of points) expect(coverage(parts, t)).toBe(t >= since && t < until ? 1 : 0);
          for (const p of parts) {
            expect(p.from < p.to).toBe(true);
            expect(p.from % p.unit).toBe(0);
            if (Number.isFinite(p.to)) expect(p.to % p.unit).toBe(0);
            // Read beyond the window only in units retention has not touched.
            if (p.sign === -1 || p.from < since || p.to > until) expect(p.from).toBeGreaterThanOrEqual(intactSince);
          }
          // The slow pieces stay small: partial minutes of events.
          expect(parts.filter((p) => p.unit === 1).every((p) => p.to - p.from < MINUTE)).toBe(true);
        },
      ),
      { numRuns: 1_000 },
    );
  });

  it("reads fewer rows than cutting inside the window only (property)", () => {
    const base = ms("2026-01-01T00:00:00Z");
    // Rows per issue, roughly: one per day, hour or minute; a minute of events as 4.
    const rows = (s: WindowSplit) =>
      [
        ...s.days.map((p) => (p.to - p.from) / DAY),
        ...s.hours.map((p) => (p.to - p.from) / HOUR),
        ...s.minutes.map((p) => (p.to - p.from) / MINUTE),
        ...s.events.map((p) => ((p.to - p.from) / MINUTE) * 4),
      ].reduce((a, b) => a + b, 0);
    let fewer = 0;
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 3 * DAY }), fc.integer({ min: MINUTE, max: 8 * DAY }), (offset, length) => {
        const since = new Date(base + offset);
        const until = new Date(base + offset + length);
        const free = rows(splitWindow(since, until, FREE));
        const inside = rows(splitWindow(since, until, INSIDE));
        expect(free).toBeLessThanOrEqual(inside + 1e-9);
        if (free < inside) fewer++;
      }),
      { numRuns: 500 },
    );
    expect(fewer).toBeGreaterThan(250);
  });
});
