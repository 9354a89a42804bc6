/**
 * The Overview's health line per project (lib/projects/health.ts) and the
 * summary's "last event" (lib/ai/load-facts.ts): counts of the last 24 hours
 * and the latest event's time, read from the events' index, and from the
 * issues once retention has deleted every event.
 */
import { describe, expect, it } from "vitest";
import { loadSummaryFacts } from "@/lib/ai/load-facts";
import { prisma } from "@/lib/db/client";
import { projectHealthForUser } from "@/lib/projects/health";
import { createProject } from "@/lib/project-setup/create-project";
import { seedEvents } from "@/tests/helpers/events";
import { makeProject } from "@/tests/helpers/ingest";

const NOW = new Date("2026-03-10T12:00:00.000Z");
const ago = (minutes: number) => new Date(NOW.getTime() - minutes * 60_000);

describe("project health and last event", () => {
  it("counts the last 24 hours per project, dates the latest event by its own time, and reads nothing of another tenant", async () => {
    const busy = await makeProject("health-busy");
    const quiet = await createProject(busy.ownerId, `health-quiet-${Date.now()}`);
    const other = await makeProject("health-other");

    await seedEvents(busy.id, [
      { at: ago(60 * 30), level: "error", message: "Old failure 1" }, // before the 24 hours
      { at: ago(90), level: "error", message: "Checkout failed for order 42" },
      { at: ago(30), level: "warn", message: "Slow query 2300ms" },
      // Received last, but the client dated it earlier: the latest event is still the one 30 minutes ago.
      { at: ago(5), timestamp: ago(50), level: "error", message: "Checkout failed for order 43" },
    ]);
    await seedEvents(other.id, [{ at: ago(1), level: "error", message: "another tenant's failure" }]);

    const health = await projectHealthForUser(busy.ownerId, NOW);
    expect([...health.keys()].sort()).toEqual([busy.id, quiet.id].sort());
    expect(health.get(busy.id)).toEqual({
      projectId: busy.id,
      errors24h: 2,
      events24h: 3,
      newIssues24h: 2, // "Checkout failed for order <num>" and "Slow query <duration>"; "Old failure" is older
      lastEventAt: ago(30).toISOString(),
    });
    expect(health.get(quiet.id)).toEqual({ projectId: quiet.id, errors24h: 0, events24h: 0, newIssues24h: 0, lastEventAt: null });

    const facts = await loadSummaryFacts({ projects: [{ id: busy.id, name: "busy" }, { id: quiet.id, name: "quiet" }], since: ago(60), now: NOW, limit: 50 });
    expect(facts.projects.map((p) => [p.projectId, p.lastEventAt?.toISOString() ?? null])).toEqual([
      [busy.id, ago(30).toISOString()],
      [quiet.id, null],
    ]);
  });

  it("keeps the last event's time when retention has deleted every event (the issues keep it)", async () => {
    const p = await makeProject("health-expired");
    await seedEvents(p.id, [
      { at: ago(60 * 24 * 40), level: "error", message: "Nightly export failed" },
      { at: ago(60 * 24 * 35), level: "info", message: "Nightly export finished" },
    ]);
    // What retention leaves: the issues, no events.
    await prisma.event.deleteMany({ where: { projectId: p.id } });

    const health = await projectHealthForUser(p.ownerId, NOW);
    expect(health.get(p.id)).toMatchObject({ errors24h: 0, events24h: 0, newIssues24h: 0, lastEventAt: ago(60 * 24 * 35).toISOString() });
    const facts = await loadSummaryFacts({ projects: [{ id: p.id, name: "expired" }], since: ago(60), now: NOW, limit: 50 });
    expect(facts.projects[0]!.lastEventAt?.toISOString()).toBe(ago(60 * 24 * 35).toISOString());
  });
});
