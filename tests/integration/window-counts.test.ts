/**
 * Window totals come from days, hours and minutes of counts plus the events
 * of two partial minutes (lib/issues/window-counts.ts): for any window, they
 * equal the events stored in it, per issue and level.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { prisma } from "@/lib/db/client";
import { windowCountsByIssue } from "@/lib/issues/window-counts";
import { seedEvents } from "@/tests/helpers/events";
import { makeProject } from "@/tests/helpers/ingest";

const DAY = 86_400_000;
// Twenty days in 1972, where no other test file stores events.
const START = Date.parse("1972-03-01T00:00:00.000Z");
const SPAN = 20 * DAY;

describe("windowCountsByIssue", () => {
  it("equals the events stored in any window, over days, hours, minutes and their edges (property)", async () => {
    const project = await makeProject("window-counts");
    // Events in bursts on some days and spread thin on others, at any millisecond.
    const times = fc.sample(fc.integer({ min: 0, max: SPAN - 1 }), { numRuns: 1_500, seed: 7 }).map((t) => START + t);
    const levels = ["error", "warn", "info"] as const;
    await seedEvents(
      project.id,
      times.map((t, i) => ({ at: new Date(t), level: levels[i % 3], message: `Job ${i} failed in worker-${i % 5}` })),
    );

    await fc.assert(
      fc.asyncProperty(fc.integer({ min: -DAY, max: SPAN }), fc.integer({ min: 1, max: SPAN }), fc.boolean(), fc.boolean(), async (offset, length, open, whole) => {
        const since = new Date(START + offset);
        const until = open ? null : new Date(since.getTime() + length);
        // whole: every unit intact (no retention here), so edges that fill
        // most of a unit are read as the unit less the rest; else the
        // default, where units this old count as touched by retention.
        const split = whole ? { intactSince: -Infinity } : undefined;
        const counted = await windowCountsByIssue({ projectIds: [project.id], since, until, split });
        const stored = await prisma.event.groupBy({
          by: ["issueId", "level"],
          where: { projectId: project.id, occurredAt: { gte: since, ...(until ? { lt: until } : {}) } },
          _count: { _all: true },
        });
        const key = (issueId: string | null, level: string) => `${issueId}/${level}`;
        expect(new Map(counted.map((c) => [key(c.issueId, c.level), c.count]))).toEqual(new Map(stored.map((s) => [key(s.issueId, s.level), s._count._all])));
      }),
      { numRuns: 60 },
    );
  });
});
