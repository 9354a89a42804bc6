/**
 * A project's deletion (lib/projects/service.ts): its events and counts go
 * first in steps of their own statements, so that a large project's
 * deletion is not one cascade past the statement deadline; then the
 * project's row, with what arrived meanwhile. Another project keeps
 * everything.
 */
import { describe, expect, it } from "vitest";
import { resolveProjectAccess } from "@/lib/auth/access";
import { prisma } from "@/lib/db/client";
import { validateEvent } from "@/lib/events/schema";
import { newEventRow } from "@/lib/ingest/ingest";
import { storeEventsNow } from "@/lib/ingest/writer";
import { settleTagCounts } from "@/lib/issues/tag-backlog";
import { deleteProjectAsOwner, deleteProjectData } from "@/lib/projects/service";
import { makeProject } from "@/tests/helpers/ingest";

/** `n` events for `project` over `issues` issues and several hours of the last day, each with a tag of its own. */
async function store(project: { id: string }, n: number, issues = 3) {
  const key = await prisma.apiKey.findFirstOrThrow({ where: { projectId: project.id }, select: { id: true } });
  const now = Date.now();
  const rows = Array.from({ length: n }, (_, i) => {
    const { event } = validateEvent({
      projectId: project.id,
      level: "error",
      message: `Job ${i % issues} failed`,
      fingerprint: [`job-${i % issues}`],
      timestamp: now - (i % 5) * 3_600_000,
      tags: { request: `r${i}` },
    });
    return newEventRow(event!, key.id, new Date(now));
  });
  await storeEventsNow(rows);
  await settleTagCounts();
}

async function rowsOf({ id: projectId }: { id: string }) {
  const issues = await prisma.issue.findMany({ where: { projectId }, select: { id: true } });
  const issueIds = issues.map((i) => i.id);
  return {
    events: await prisma.event.count({ where: { projectId } }),
    issues: issues.length,
    minute: await prisma.issueCount.count({ where: { issueId: { in: issueIds } } }),
    hour: await prisma.issueHourCount.count({ where: { issueId: { in: issueIds } } }),
    day: await prisma.issueDayCount.count({ where: { issueId: { in: issueIds } } }),
    tagHour: await prisma.issueTagHourCount.count({ where: { projectId } }),
    tagDay: await prisma.issueTagDayCount.count({ where: { projectId } }),
  };
}

describe("a project's deletion", () => {
  it("deletes its events and counts in steps first, then the project; another project keeps all of its own", async () => {
    const gone = await makeProject("deletion-steps-gone");
    const kept = await makeProject("deletion-steps-kept");
    await store(gone, 23);
    await store(kept, 11);
    const before = await rowsOf(gone);
    const keptBefore = await rowsOf(kept);
    expect(before.events).toBe(23);
    expect(before.hour).toBeGreaterThan(3);
    expect(before.tagHour).toBeGreaterThan(3);

    // Steps of 3 rows: every kind takes several.
    const deleted = await deleteProjectData(gone.id, { stepRows: 3 });
    expect(deleted).toEqual({ events: 23, minute: before.minute, hour: before.hour, day: before.day, tagHour: before.tagHour, tagDay: before.tagDay });
    expect(await rowsOf(gone)).toEqual({ events: 0, issues: before.issues, minute: 0, hour: 0, day: 0, tagHour: 0, tagDay: 0 });
    expect(await rowsOf(kept)).toEqual(keptBefore);

    // What arrives between the steps and the project's row goes with the row.
    await store(gone, 4);
    await deleteProjectAsOwner(await resolveProjectAccess(gone.ownerId, gone.id, "owner"), { stepsAboveEvents: 0, stepRows: 3 });
    expect(await prisma.project.count({ where: { id: gone.id } })).toBe(0);
    expect(await rowsOf(gone)).toEqual({ events: 0, issues: 0, minute: 0, hour: 0, day: 0, tagHour: 0, tagDay: 0 });
    expect(await rowsOf(kept)).toEqual(keptBefore);
  });
});
