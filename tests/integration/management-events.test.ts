import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { GET } from "@/app/api/projects/[id]/events/route";
import { prisma } from "@/lib/db/client";
import { encodeCursor } from "@/lib/events/cursor";
import { eventHistogram } from "@/lib/issues/histogram";
import { resolveProjectAccess } from "@/lib/auth/access";
import { createProject } from "@/lib/project-setup/create-project";
import { seedEvents, type EventSeed } from "@/tests/helpers/events";
import { apiRequest, callRoute, createUserWithSession } from "@/tests/helpers/session";

type Level = "error" | "warn" | "info";
type Seed = Omit<EventSeed, "level" | "at" | "timestamp"> & { level?: Level; at: string; timestamp?: string };

async function projectWithEvents(seeds: Seed[]) {
  const owner = await createUserWithSession();
  const project = await createProject(owner.user.id, `events-${randomUUID()}`);
  const rows = await seedEvents(project.id, seeds);
  return { owner, project, rows };
}

async function page(cookie: string, projectId: string, query = "") {
  return callRoute(GET, apiRequest(`/api/projects/${projectId}/events${query}`, { cookie }), { id: projectId });
}

const minute = (n: number) => new Date(Date.UTC(2026, 0, 1, 12, n)).toISOString();

describe("GET /api/projects/:id/events", () => {
  it("answers {events, nextCursor} with each stored event in ISO times, newest first", async () => {
    const { owner, project, rows } = await projectWithEvents([
      {
        at: minute(1),
        level: "error",
        message: "first",
        context: { orderId: 7, nested: { ok: true } },
        timestamp: "2026-01-01T11:59:00.123Z",
        release: "api@2.0.1",
        environment: "production",
        tags: { region: "eu" },
        user: { id: "7", email: "ada@example.com" },
      },
      { at: minute(2), level: "warn", message: "second" },
    ]);
    const { status, body, res } = await page(owner.cookie, project.id);
    expect(status).toBe(200);
    expect(res.headers.get("cache-control")).toBe("no-store");
    expect(body).toEqual({
      events: [
        {
          id: rows[1]!.id,
          projectId: project.id,
          level: "warn",
          message: "second",
          context: null,
          timestamp: null,
          receivedAt: minute(2),
          occurredAt: minute(2),
          issueId: expect.stringMatching(/^[0-9a-f-]{36}$/),
          release: null,
          environment: null,
          tags: null,
          user: null,
        },
        {
          id: rows[0]!.id,
          projectId: project.id,
          level: "error",
          message: "first",
          context: { orderId: 7, nested: { ok: true } },
          timestamp: "2026-01-01T11:59:00.123Z",
          receivedAt: minute(1),
          // The client's time lies within 14 days of arrival: it is the event's time.
          occurredAt: "2026-01-01T11:59:00.123Z",
          issueId: expect.stringMatching(/^[0-9a-f-]{36}$/),
          release: "api@2.0.1",
          environment: "production",
          tags: { region: "eu" },
          user: { id: "7", email: "ada@example.com" },
        },
      ],
      nextCursor: null,
    });
  });

  it("pages with an opaque cursor: no repeats, no gaps, ties ordered by id, null at the end", async () => {
    const ids = Array.from({ length: 7 }, () => randomUUID()).sort();
    // Three events share one receivedAt: the id breaks the tie.
    const seeds: Seed[] = ids.map((id, i) => ({ id, at: minute(i < 3 ? 0 : i), message: `e${i}` }));
    const { owner, project } = await projectWithEvents(seeds);
    const expected = [...seeds].sort((a, b) => (a.at === b.at ? (a.id! < b.id! ? 1 : -1) : a.at < b.at ? 1 : -1)).map((s) => s.id);

    const seen: string[] = [];
    const sizes: number[] = [];
    let cursor: string | null = null;
    do {
      const { status, body }: { status: number; body: { events: { id: string }[]; nextCursor: string | null } } = await page(
        owner.cookie,
        project.id,
        `?limit=3${cursor ? `&cursor=${cursor}` : ""}`,
      );
      expect(status).toBe(200);
      sizes.push(body.events.length);
      seen.push(...body.events.map((e) => e.id));
      cursor = body.nextCursor;
      if (cursor) expect(cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    } while (cursor);
    expect(sizes).toEqual([3, 3, 1]);
    expect(seen).toEqual(expected);

    // An exact multiple of the limit ends with nextCursor null, not an empty page.
    const two = await page(owner.cookie, project.id, "?limit=7");
    expect(two.body.events).toHaveLength(7);
    expect(two.body.nextCursor).toBeNull();
  });

  it("an event arriving between pages does not shift the next page", async () => {
    const { owner, project } = await projectWithEvents([1, 2, 3, 4].map((i) => ({ at: minute(i), message: `m${i}` })));
    const first = await page(owner.cookie, project.id, "?limit=2");
    expect(first.body.events.map((e: { message: string }) => e.message)).toEqual(["m4", "m3"]);
    await seedEvents(project.id, [{ level: "info", message: "late", at: minute(9) }]);
    const second = await page(owner.cookie, project.id, `?limit=2&cursor=${first.body.nextCursor}`);
    expect(second.body.events.map((e: { message: string }) => e.message)).toEqual(["m2", "m1"]);
  });

  it("defaults to 50 events and accepts up to 200", async () => {
    const { owner, project } = await projectWithEvents(Array.from({ length: 60 }, (_, i) => ({ at: new Date(Date.UTC(2026, 0, 2, 0, 0, i)).toISOString() })));
    const byDefault = await page(owner.cookie, project.id);
    expect(byDefault.body.events).toHaveLength(50);
    expect(byDefault.body.nextCursor).not.toBeNull();
    expect((await page(owner.cookie, project.id, "?limit=200")).body.events).toHaveLength(60);
  });

  it("filters by level (one or several)", async () => {
    const { owner, project } = await projectWithEvents([
      { at: minute(1), level: "error", message: "e" },
      { at: minute(2), level: "warn", message: "w" },
      { at: minute(3), level: "info", message: "i" },
    ]);
    const messages = async (q: string) => (await page(owner.cookie, project.id, q)).body.events.map((e: { message: string }) => e.message);
    expect(await messages("?level=error")).toEqual(["e"]);
    expect(await messages("?level=warn,error")).toEqual(["w", "e"]);
    expect(await messages("?level=INFO")).toEqual(["i"]);
  });

  it("q matches a case-insensitive substring of the message; % _ and \\ match only themselves", async () => {
    const { owner, project } = await projectWithEvents([
      { at: minute(1), message: "Payment FAILED for order 12" },
      { at: minute(2), message: "payment ok" },
      { at: minute(3), message: "disk 100% full" },
      { at: minute(4), message: "disk 1000 full" },
      { at: minute(5), message: "user_id missing" },
      { at: minute(6), message: "userXid missing" },
      { at: minute(7), message: "path C:\\temp" },
      { at: minute(8), message: "Ünïcode ÉVÉNEMENT" },
    ]);
    const messages = async (q: string) =>
      (await page(owner.cookie, project.id, `?q=${encodeURIComponent(q)}`)).body.events.map((e: { message: string }) => e.message);
    expect(await messages("payment failed")).toEqual(["Payment FAILED for order 12"]);
    expect(await messages("PAYMENT")).toEqual(["payment ok", "Payment FAILED for order 12"]);
    expect(await messages("100%")).toEqual(["disk 100% full"]);
    expect(await messages("%")).toEqual(["disk 100% full"]);
    expect(await messages("user_id")).toEqual(["user_id missing"]);
    expect(await messages("C:\\t")).toEqual(["path C:\\temp"]);
    expect(await messages("événement")).toEqual(["Ünïcode ÉVÉNEMENT"]);
    expect(await messages("nothing like this")).toEqual([]);
  });

  it("since (inclusive) and until (exclusive) by the events' time, as ISO 8601, unix seconds or unix milliseconds", async () => {
    const { owner, project } = await projectWithEvents([1, 2, 3, 4, 5].map((i) => ({ at: minute(i), message: `m${i}` })));
    const messages = async (q: string) => (await page(owner.cookie, project.id, q)).body.events.map((e: { message: string }) => e.message);
    const ms = (i: number) => Date.parse(minute(i));
    expect(await messages(`?since=${minute(2)}&until=${minute(4)}`)).toEqual(["m3", "m2"]);
    expect(await messages(`?since=${ms(4) / 1000}`)).toEqual(["m5", "m4"]);
    expect(await messages(`?until=${ms(2)}`)).toEqual(["m1"]);
    expect(await messages(`?since=${encodeURIComponent("2026-01-01T13:03:00+01:00")}`)).toEqual(["m5", "m4", "m3"]);
    expect(await messages("?since=2026-01-02")).toEqual([]);
  });

  it("combines filters with pagination", async () => {
    const seeds: Seed[] = Array.from({ length: 10 }, (_, i) => ({ at: minute(i), level: i % 2 ? "error" : "info", message: i % 3 ? `timeout ${i}` : `ok ${i}` }));
    const { owner, project } = await projectWithEvents(seeds);
    const first = await page(owner.cookie, project.id, "?level=error&q=TIMEOUT&limit=2");
    expect(first.body.events.map((e: { message: string }) => e.message)).toEqual(["timeout 7", "timeout 5"]);
    const second = await page(owner.cookie, project.id, `?level=error&q=TIMEOUT&limit=2&cursor=${first.body.nextCursor}`);
    expect(second.body.events.map((e: { message: string }) => e.message)).toEqual(["timeout 1"]);
    expect(second.body.nextCursor).toBeNull();
  });

  it("400 validation_failed listing every bad parameter", async () => {
    const { owner, project } = await projectWithEvents([]);
    const { status, body } = await page(owner.cookie, project.id, "?level=fatal&limit=500&since=yesterday&until=-5&cursor=abc");
    expect(status).toBe(400);
    expect(body.code).toBe("validation_failed");
    expect(body.errors.map((e: { path: string }) => e.path).sort()).toEqual(["cursor", "level", "limit", "since", "until"]);
    for (const q of ["?limit=0", "?limit=1.5", "?limit=abc", `?since=${minute(3)}&until=${minute(2)}`, "?since=2026-01-01T10:00:00", `?q=${"x".repeat(201)}`, "?q=a%00b"]) {
      const res = await page(owner.cookie, project.id, q);
      expect(res.status, q).toBe(400);
    }
  });

  it("members read events; outsiders get 404, signed-out callers 401", async () => {
    const { owner, project } = await projectWithEvents([{ at: minute(1) }]);
    const member = await createUserWithSession();
    const outsider = await createUserWithSession();
    await prisma.membership.create({ data: { projectId: project.id, userId: member.user.id, role: "member" } });
    expect((await page(owner.cookie, project.id)).status).toBe(200);
    expect((await page(member.cookie, project.id)).body.events).toHaveLength(1);
    const hidden = await page(outsider.cookie, project.id);
    expect([hidden.status, hidden.body.code]).toEqual([404, "not_found"]);
    const signedOut = await callRoute(GET, apiRequest(`/api/projects/${project.id}/events`), { id: project.id });
    expect(signedOut.status).toBe(401);
  });

  it("another tenant sees nothing, whatever cursor or filter it sends", async () => {
    const a = await projectWithEvents([{ at: minute(1), message: "secret of A" }]);
    const b = await projectWithEvents([{ at: minute(1), message: "B's own" }]);
    const foreignCursor = encodeCursor({ at: new Date(minute(30)), id: a.rows[0]!.id });
    const asB = await page(b.owner.cookie, b.project.id, `?cursor=${foreignCursor}&q=secret`);
    expect(asB.body.events).toEqual([]);
    expect((await page(b.owner.cookie, a.project.id)).status).toBe(404);
    await expect(resolveProjectAccess(b.owner.user.id, a.project.id)).rejects.toMatchObject({ status: 404 });
  });
});

describe("eventHistogram", () => {
  it("counts per level in equal buckets over [since, until), empty ones included; members only", async () => {
    const { owner, project } = await projectWithEvents([
      { at: "2026-01-01T10:05:00Z", level: "error" },
      { at: "2026-01-01T10:59:59.999Z", level: "error" },
      { at: "2026-01-01T10:30:00Z", level: "warn" },
      { at: "2026-01-01T12:00:00Z", level: "info" },
      { at: "2026-01-03T00:00:00Z", level: "info" }, // == until: excluded
    ]);
    // Two days: hourly buckets.
    const buckets = await eventHistogram(await resolveProjectAccess(owner.user.id, project.id), { since: new Date("2026-01-01T00:00:00Z"), until: new Date("2026-01-03T00:00:00Z") });
    expect(buckets).toHaveLength(48);
    expect(buckets[0]!.bucket).toBe("2026-01-01T00:00:00.000Z");
    expect(buckets[1]!.bucket).toBe("2026-01-01T01:00:00.000Z");
    expect(buckets.filter((b) => b.error + b.warn + b.info > 0)).toEqual([
      { bucket: "2026-01-01T10:00:00.000Z", error: 2, warn: 1, info: 0 },
      { bucket: "2026-01-01T12:00:00.000Z", error: 0, warn: 0, info: 1 },
    ]);
    const outsider = await createUserWithSession();
    await expect(resolveProjectAccess(outsider.user.id, project.id)).rejects.toMatchObject({ status: 404 });
  });
});
