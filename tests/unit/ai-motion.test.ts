import { describe, expect, it } from "vitest";
import { accelerationOf, bucketOf, lifetimeOf, shapeGrid, stopOf } from "@/lib/ai/motion";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
const at = (iso: string) => new Date(iso);

describe("shapeGrid", () => {
  it("cuts the dashboard's windows into 12 to 30 buckets on whole UTC units, the first from `since`", () => {
    const now = at("2026-11-22T10:00:40Z");
    for (const [since, bucketMs, count] of [
      [at("2026-11-22T09:00:00Z"), 5 * MINUTE, 13],
      [at("2026-11-21T10:00:00Z"), HOUR, 25],
      [at("2026-11-15T10:00:00Z"), 6 * HOUR, 29],
      [at("2026-11-15T10:07:00Z"), 6 * HOUR, 29],
    ] as const) {
      const grid = shapeGrid(since, now);
      expect(grid.bucketMs).toBe(bucketMs);
      expect(grid.starts).toHaveLength(count);
      expect(grid.starts[0]).toEqual(since);
      for (const start of grid.starts.slice(1)) expect(start.getTime() % bucketMs).toBe(0);
      expect(grid.starts.at(-1)!.getTime()).toBeLessThan(now.getTime());
    }
    // An aligned `since` starts the first whole bucket itself.
    const aligned = shapeGrid(at("2026-11-22T09:00:00Z"), at("2026-11-22T10:00:00Z"));
    expect(aligned.starts).toHaveLength(12);
    expect(bucketOf(aligned, at("2026-11-22T09:07:00Z").getTime())).toBe(1);
  });
});

describe("accelerationOf", () => {
  const grid = shapeGrid(at("2026-11-21T10:00:00Z"), at("2026-11-22T10:00:00Z"));
  const activeFrom = grid.starts[0]!;
  const now = at("2026-11-22T10:00:00Z");

  it("finds the last quarter far above the rest's rate, and a doubling run of whole hours", () => {
    const shape = [...new Array<number>(18).fill(1), 2, 4, 8, 16, 32, 64];
    const a = accelerationOf(shape, grid, now, activeFrom)!;
    expect(a).toMatchObject({ recentFrom: at("2026-11-22T04:00:00Z"), recentCount: 126, earlierCount: 18 });
    expect(a.compounding).toEqual({ factor: 2, everyMs: HOUR, since: at("2026-11-22T03:00:00Z") });
  });

  it("is silent for a steady source, a blip of a few events, and a source that only started in the last part (new)", () => {
    expect(accelerationOf(new Array<number>(24).fill(10), grid, now, activeFrom)).toBeNull();
    expect(accelerationOf([...new Array<number>(23).fill(0), 3], grid, now, activeFrom)).toBeNull();
    expect(accelerationOf([...new Array<number>(22).fill(0), 50, 90], grid, now, at("2026-11-22T08:10:00Z"))).toBeNull();
  });
});

describe("stopOf", () => {
  const grid = shapeGrid(at("2026-11-22T09:00:00Z"), at("2026-11-22T10:00:00Z"));
  const now = at("2026-11-22T10:00:00Z");
  const base = { grid, now, activeFrom: grid.starts[0]! };

  it("a source that sent every minute and has been silent for 25 minutes stopped", () => {
    const shape = [5, 5, 5, 5, 5, 5, 5, 0, 0, 0, 0, 0];
    const stop = stopOf({ ...base, shape, lastAt: at("2026-11-22T09:35:00Z"), windowCount: 35, previousCount: 60 })!;
    expect(stop.silentMs).toBe(25 * MINUTE);
    expect(stop.usualGapMs).toBeGreaterThan(50_000);
    expect(stop.usualGapMs).toBeLessThan(70_000);
  });

  it("a burst that ended, a source silent for less than its usual gaps, and a rare one are not 'stopped'", () => {
    // 400 events in ten minutes, then nothing: a burst, not a steady source.
    expect(stopOf({ ...base, shape: [0, 0, 0, 0, 0, 200, 200, 0, 0, 0, 0, 0], lastAt: at("2026-11-22T09:34:00Z"), windowCount: 400, previousCount: 0 })).toBeNull();
    // Every 10 minutes, quiet for 12: within four usual gaps.
    expect(stopOf({ ...base, shape: [1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 0, 0], lastAt: at("2026-11-22T09:48:00Z"), windowCount: 5, previousCount: 6 })).toBeNull();
    expect(stopOf({ ...base, shape: [1, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0], lastAt: at("2026-11-22T09:16:00Z"), windowCount: 2, previousCount: 1 })).toBeNull();
  });

  it("a source quiet for the whole window stopped when the previous window had a rate", () => {
    const quiet = { ...base, shape: new Array<number>(12).fill(0), windowCount: 0 };
    expect(stopOf({ ...quiet, lastAt: at("2026-11-22T08:58:00Z"), previousCount: 30 })).toMatchObject({ silentMs: 62 * MINUTE, usualGapMs: 2 * MINUTE });
    expect(stopOf({ ...quiet, lastAt: at("2026-11-22T08:58:00Z"), previousCount: 3 })).toBeNull();
  });
});

describe("lifetimeOf", () => {
  it("counts days active among the last 14 (fewer for a young issue) and the usual rate before today", () => {
    const now = at("2026-11-22T14:30:00Z");
    const days = [15, 16, 17, 18, 19, 20, 21, 22].map((d) => ({ day: at(`2026-11-${d}T00:00:00Z`), count: d === 15 ? 1 : d === 22 ? 2 : 3 }));
    expect(lifetimeOf(at("2026-11-15T22:10:00Z"), days, now)).toEqual({
      firstSeen: at("2026-11-15T22:10:00Z"),
      daysActive: 8,
      daysConsidered: 8,
      // 19 events from 22:10 on the 15th to midnight on the 22nd.
      usualPerDay: (19 * DAY) / (at("2026-11-22T00:00:00Z").getTime() - at("2026-11-15T22:10:00Z").getTime()),
    });
    const old = lifetimeOf(at("2026-09-01T00:00:00Z"), days.slice(3), now);
    expect(old).toMatchObject({ daysActive: 5, daysConsidered: 14 });
    expect(lifetimeOf(at("2026-11-22T14:00:00Z"), [], now).usualPerDay).toBeNull();
  });
});
