import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { GET } from "@/app/api/projects/[id]/events/route";
import { parseEventQuery } from "@/app/(dashboard)/projects/[id]/filters";
import { eventHistogram } from "@/lib/issues/histogram";
import { listProjectEvents } from "@/lib/events/list";
import { resolveProjectAccess } from "@/lib/auth/access";
import { createProject } from "@/lib/project-setup/create-project";
import { seedEvents } from "@/tests/helpers/events";
import { apiRequest, callRoute, createUserWithSession } from "@/tests/helpers/session";

async function ownedProject() {
  const owner = await createUserWithSession();
  const project = await createProject(owner.user.id, `bounds-${randomUUID()}`);
  await seedEvents(project.id, [{ level: "warn", message: "disk almost full", at: new Date() }]);
  return { owner, project };
}

describe("events queries with values PostgreSQL would refuse", () => {
  it("API: a far-future cursor, year-0 since/until and a huge limit are 400 validation_failed, never 500", async () => {
    const { owner, project } = await ownedProject();
    const get = (query: string) => callRoute(GET, apiRequest(`/api/projects/${project.id}/events${query}`, { cookie: owner.cookie }), { id: project.id });
    const cursor = Buffer.from(`v1.999999999999999.${randomUUID()}`).toString("base64url");

    const badCursor = await get(`?cursor=${cursor}`);
    expect(badCursor.status).toBe(400);
    expect(badCursor.body.errors.map((e: { path: string }) => e.path)).toEqual(["cursor"]);

    const yearZero = await get("?since=0000-01-01&until=0000-01-02");
    expect(yearZero.status).toBe(400);
    expect(yearZero.body.code).toBe("validation_failed");
    expect(yearZero.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(["since", "until"]);

    const hugeLimit = await get("?limit=999999999999999999999");
    expect(hugeLimit.status).toBe(400);
    expect(hugeLimit.body.errors).toEqual([{ path: "limit", message: "Use a whole number from 1 to 200." }]);

    expect((await get("?since=0001-01-01")).body.events).toHaveLength(1);
  });

  it("dashboard: ?q=%00 and a year-0 custom range fall back to defaults and still answer", async () => {
    const { owner, project } = await ownedProject();
    const query = parseEventQuery({ q: "\u0000disk", range: "custom", from: "0000-01-01T00:00", to: "0000-01-02T00:00" });
    const access = await resolveProjectAccess(owner.user.id, project.id);
    const [page, histogram] = await Promise.all([
      listProjectEvents(access, { q: query.q, since: query.since, until: query.until, cursor: query.cursor }),
      eventHistogram(access, { since: query.since, until: query.until }),
    ]);
    expect(page.events.map((e) => e.message)).toEqual(["disk almost full"]);
    expect(histogram.reduce((n, b) => n + b.warn, 0)).toBe(1);
  });
});
