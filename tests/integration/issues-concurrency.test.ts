/**
 * Properties of grouping under concurrent ingestion: whatever the mix of
 * templates, ids and request shapes, and however the requests share group
 * commits, every message of one template lands in one issue, and each
 * issue's total and per-minute counts equal the events stored in it.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { prisma } from "@/lib/db/client";
import { issueGroupingKey } from "@/lib/grouping/key";
import { seedEvents } from "@/tests/helpers/events";
import { makeProject, sendBatch, sendEvent } from "@/tests/helpers/ingest";

const TEMPLATES = [
  (id: string, n: number) => `Payment ${id} failed after ${n}ms`,
  (id: string, n: number) => `User ${n} not found in tenant ${id}`,
  (id: string, n: number) => `GET /api/orders/${n}?trace=${id} returned 502`,
  (id: string) => `Cannot read properties of undefined (reading '${id}')`,
  (_id: string, n: number) => `Cache miss ratio ${n}% above threshold`,
  (id: string, n: number) => `Worker ${id} restarted ${n} times`,
];

const eventArb = fc.record({
  template: fc.integer({ min: 0, max: TEMPLATES.length - 1 }),
  id: fc.stringMatching(/^(ord|cus|req)_[a-z0-9]{4,10}$/),
  n: fc.integer({ min: 1, max: 99_999 }),
  level: fc.constantFrom("error", "warn", "info"),
  minutesAgo: fc.integer({ min: 0, max: 90 }),
});

// A request: one event, or a small batch.
const requestArb = fc.oneof(fc.tuple(eventArb), fc.array(eventArb, { minLength: 2, maxLength: 6 }));

describe("grouping under concurrent ingestion (property)", () => {
  it("one issue per (template, level); totals and per-minute counts equal the events stored", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(requestArb, { minLength: 5, maxLength: 30 }), async (requests) => {
        const project = await makeProject("prop");
        const now = Date.now();
        const toEvent = (e: (typeof requests)[number][number]) => ({
          level: e.level,
          message: TEMPLATES[e.template]!(e.id, e.n),
          projectId: project.id,
          timestamp: new Date(now - e.minutesAgo * 60_000).toISOString(),
        });
        // All at once: the writer folds them into a few group commits.
        const answers = await Promise.all(
          requests.map((r) => (r.length === 1 ? sendEvent(project.apiKey, toEvent(r[0]!)) : sendBatch(project.apiKey, { events: r.map(toEvent) }))),
        );
        expect(answers.map((a) => a.status)).toEqual(answers.map(() => 201));

        const sent = requests.flat().map(toEvent);
        const expected = new Map<string, number>();
        for (const e of sent) {
          const { hash } = issueGroupingKey({ level: e.level, message: e.message, fingerprint: null });
          expected.set(hash, (expected.get(hash) ?? 0) + 1);
        }
        const rows = await prisma.$queryRaw<{ hash: string; total: bigint; events: bigint; minutes: bigint; hours: bigint; days: bigint }[]>`
          SELECT i.fingerprint_hash AS hash, i.count::bigint AS total,
                 (SELECT count(*) FROM events e WHERE e.issue_id = i.id)::bigint AS events,
                 (SELECT coalesce(sum(c.count), 0) FROM issue_counts c WHERE c.issue_id = i.id)::bigint AS minutes,
                 (SELECT coalesce(sum(h.count), 0) FROM issue_hours h WHERE h.issue_id = i.id)::bigint AS hours,
                 (SELECT coalesce(sum(d.count), 0) FROM issue_days d WHERE d.issue_id = i.id)::bigint AS days
          FROM issues i WHERE i.project_id = ${project.id}`;
        expect(new Map(rows.map((r) => [r.hash, Number(r.total)]))).toEqual(expected);
        for (const row of rows) expect([row.events, row.minutes, row.hours, row.days]).toEqual([row.total, row.total, row.total, row.total]);
      }),
      { numRuns: 12 },
    );
  });

  // One process mostly writes one statement at a time (lib/ingest/statement.ts);
  // several instances, or a backlog of big batches, write side by side. Each
  // statement here holds the same issues and minutes in its own order: a
  // lock taken out of order would deadlock one of them (seedEvents does not
  // retry), and a lost update would break the totals.
  it("statements side by side on the same issues and minutes never deadlock, and lose no count", async () => {
    const project = await makeProject("side-by-side");
    const now = Date.now();
    const seeds = fc.sample(
      fc.shuffledSubarray(
        Array.from({ length: 120 }, (_, i) => ({
          level: (["error", "warn", "info"] as const)[i % 3],
          message: TEMPLATES[Math.floor(i / 3) % TEMPLATES.length]!(`ord_${i}x`, i),
          at: new Date(now - (i % 4) * 60_000),
        })),
        { minLength: 120, maxLength: 120 },
      ),
      { numRuns: 8, seed: 7 },
    );
    await Promise.all(seeds.map((events) => seedEvents(project.id, events)));

    const [row] = await prisma.$queryRaw<{ issues: bigint; total: bigint; minutes: bigint; hours: bigint }[]>`
      SELECT count(*)::bigint AS issues, sum(i.count)::bigint AS total,
             (SELECT sum(count) FROM issue_counts WHERE project_id = ${project.id})::bigint AS minutes,
             (SELECT sum(count) FROM issue_hours WHERE project_id = ${project.id})::bigint AS hours
      FROM issues i WHERE i.project_id = ${project.id}`;
    expect(row).toEqual({ issues: 18n, total: 960n, minutes: 960n, hours: 960n });
  });
});
