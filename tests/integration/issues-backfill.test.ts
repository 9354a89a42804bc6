/**
 * Events stored before issues existed (issue_id and occurred_at null) are
 * assigned by `npm run db:migrate`, in bounded steps, with the same grouping
 * and counts as ingestion.
 */
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { prisma } from "@/lib/db/client";
import { issueGroupingKey } from "@/lib/grouping/key";
import { makeProject } from "@/tests/helpers/ingest";
import { backfillIssues, countUnassignedEvents } from "@/tools/db/backfill-issues";
import { withMigrationLock } from "@/tools/db/migrate";

/** Rows as the first version of the schema stored them: no issue, no event time. */
async function insertLegacyEvents(projectId: string, events: { level: "error" | "warn" | "info"; message: string; receivedAt: Date; timestamp?: Date }[]) {
  for (const e of events) {
    await prisma.$executeRaw`
      INSERT INTO events (id, project_id, level, message, "timestamp", received_at)
      VALUES (${randomUUID()}::uuid, ${projectId}, ${e.level}::event_level, ${e.message}, ${e.timestamp ?? null}, ${e.receivedAt})`;
  }
}

describe("backfill of events stored before issues", () => {
  it("assigns every event to its issue in bounded steps, with event times, totals and per-minute counts; running again does nothing", async () => {
    const project = await makeProject("backfill");
    const base = Date.UTC(2026, 9, 1, 8, 0);
    const legacy = Array.from({ length: 23 }, (_, i) => ({
      level: (i % 3 === 0 ? "warn" : "error") as "warn" | "error",
      message: i % 3 === 0 ? `Slow query took ${100 + i}ms` : `Order ord_${i}x${i} could not be charged`,
      receivedAt: new Date(base + i * 45_000),
      // Some carry a client time within 14 days: it becomes the event's time.
      ...(i % 4 === 0 ? { timestamp: new Date(base + i * 45_000 - 30_000) } : {}),
    }));
    const url = process.env.DATABASE_URL!;
    // Every migration run (a CLI test in another file, say) backfills too: it
    // waits for this lock, so it cannot assign these events first.
    const { steps, assigned } = await withMigrationLock(url, undefined, async () => {
      await insertLegacyEvents(project.id, legacy);
      expect(await countUnassignedEvents(url)).toBeGreaterThanOrEqual(23);
      const steps: number[] = [];
      const assigned = await backfillIssues(url, { batch: 5, onProgress: (done) => steps.push(done) });
      return { steps, assigned };
    });
    expect(assigned).toBeGreaterThanOrEqual(23);
    expect(steps.length).toBeGreaterThanOrEqual(5); // bounded steps, not one statement
    expect(steps.every((done, i) => i === 0 || done - steps[i - 1]! <= 5)).toBe(true);
    expect(await prisma.event.count({ where: { projectId: project.id, OR: [{ issueId: null }, { occurredAt: null }] } })).toBe(0);

    const issues = await prisma.issue.findMany({ where: { projectId: project.id }, orderBy: { count: "desc" } });
    expect(issues.map((i) => [i.title, Number(i.count)])).toEqual([
      ["Order <id> could not be charged", 15],
      ["Slow query took <duration>", 8],
    ]);
    const charged = issues[0]!;
    expect(charged.fingerprintHash).toBe(issueGroupingKey({ level: "error", message: "Order ord_1x1 could not be charged", fingerprint: null }).hash);
    expect(charged.firstSeen.getTime()).toBe(base + 45_000);
    expect(charged.sampleMessage).toBe("Order ord_22x22 could not be charged");

    const events = await prisma.event.findMany({ where: { projectId: project.id }, select: { timestamp: true, receivedAt: true, occurredAt: true } });
    for (const e of events) expect(e.occurredAt!.getTime()).toBe((e.timestamp ?? e.receivedAt).getTime());
    const [counters] = await prisma.$queryRaw<{ minutes: bigint; hours: bigint; days: bigint }[]>`
      SELECT (SELECT sum(count)::bigint FROM issue_counts WHERE project_id = ${project.id}) AS minutes,
             (SELECT sum(count)::bigint FROM issue_hours WHERE project_id = ${project.id}) AS hours,
             (SELECT sum(count)::bigint FROM issue_days WHERE project_id = ${project.id}) AS days`;
    expect(counters).toEqual({ minutes: 23n, hours: 23n, days: 23n });

    await backfillIssues(url);
    expect(Number((await prisma.issue.findUniqueOrThrow({ where: { id: charged.id } })).count)).toBe(15);
  });
});
