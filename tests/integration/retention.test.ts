import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { afterEach, describe, expect, it } from "vitest";
import { GET as cronGet, POST as cronPost, PUT as cronPut } from "@/app/api/cron/[job]/route";
import { prisma } from "@/lib/db/client";
import { settleTagCounts } from "@/lib/issues/tag-backlog";
import { windowCountsByIssue } from "@/lib/issues/window-counts";
import { runRetention } from "@/lib/retention/retention";
import { stubEnv, unstubEnvs } from "@/tests/helpers/env";
import { seedEvents } from "@/tests/helpers/events";
import { makeProject } from "@/tests/helpers/ingest";
import { callRoute } from "@/tests/helpers/session";

const run = promisify(execFile);
const DAY = 86_400_000;

// Retention is global (every project), and test files share one database:
// each test here puts its data in the distant past, where no other test file
// stores events, and picks a cut-off that reaches nothing newer.
//
// The library tests use an injected clock: cut-off 1971-01-01T00:00:30Z, in
// the middle of a minute, to check the bucket edges.
const NOW = new Date("1971-01-02T00:00:30.000Z");
const CUTOFF = new Date("1971-01-01T00:00:30.000Z");
// The route and CLI use the real clock: a number of days that puts their
// cut-off within 1970-01-01 (older than every event of the library tests).
const EPOCH_DAYS = Math.floor(Date.now() / DAY);

async function projectState(projectId: string) {
  const [events, issues, minutes, hours, days] = await Promise.all([
    prisma.event.findMany({ where: { projectId }, select: { id: true, occurredAt: true }, orderBy: [{ occurredAt: "asc" }, { id: "asc" }] }),
    prisma.issue.findMany({ where: { projectId }, select: { id: true, count: true, firstSeen: true, lastSeen: true, level: true, title: true }, orderBy: { id: "asc" } }),
    prisma.issueCount.findMany({ where: { projectId }, select: { minute: true, count: true }, orderBy: { minute: "asc" } }),
    prisma.issueHourCount.findMany({ where: { projectId }, select: { hour: true, count: true }, orderBy: { hour: "asc" } }),
    prisma.issueDayCount.findMany({ where: { projectId }, select: { day: true, count: true }, orderBy: { day: "asc" } }),
  ]);
  return { events, issues, minutes, hours, days };
}

describe("runRetention", () => {
  it("deletes only events older than the cut-off, in every project, and the count buckets wholly before it; issue totals and retained windows stay exact", async () => {
    const a = await makeProject("retention-a");
    const b = await makeProject("retention-b");
    const c = await makeProject("retention-c");
    const msg = (n: number) => `Payment ${n} failed`; // one issue: numbers are grouped away
    const expiredA = [
      "1970-12-31T10:00:00.000Z",
      "1970-12-31T10:00:00.000Z", // a tie on occurred_at: the keyset goes on by id
      "1970-12-31T10:20:00.000Z",
      "1970-12-31T23:59:59.999Z",
      "1971-01-01T00:00:10.000Z", // same minute as the cut-off, before it
      "1971-01-01T00:00:29.999Z",
    ];
    const keptA = ["1971-01-01T00:00:30.000Z", "1971-01-01T00:00:40.000Z", "1971-01-01T00:45:00.000Z", "1971-01-01T05:00:00.000Z"];
    await seedEvents(a.id, [...expiredA, ...keptA].map((at, i) => ({ at, level: "error" as const, message: msg(i) })));
    await seedEvents(a.id, [{ at: "1970-12-31T12:00:00.000Z", level: "info", message: "deploy finished" }]); // an issue with no event left
    await seedEvents(b.id, [{ at: "1971-01-01T06:00:00.000Z", message: "another tenant, fresh" }]);
    await seedEvents(c.id, [{ at: "1970-12-30T00:00:00.000Z", message: "another tenant, expired" }]);

    const windows = [CUTOFF, new Date("1971-01-01T00:30:00.000Z")];
    const windowCounts = () => Promise.all(windows.map((since) => windowCountsByIssue({ projectIds: [a.id], since, until: null })));
    const beforeA = await projectState(a.id);
    const beforeB = await projectState(b.id);
    const windowsBefore = await windowCounts();
    expect(windowsBefore[0]![0]!.count).toBe(keptA.length);

    // Batches of 2: the keyset walks each project over several statements (no
    // pauses between them: the steps are what this test is about).
    const report = await runRetention({ days: 1, now: NOW, batchSize: 2, pauseRatio: 0 });
    expect(report).toMatchObject({ retentionDays: 1, cutoff: CUTOFF.toISOString(), complete: true });
    expect(report.deleted.events).toBeGreaterThanOrEqual(expiredA.length + 2);

    const afterA = await projectState(a.id);
    expect(afterA.events.map((e) => e.occurredAt!.toISOString())).toEqual(keptA);
    expect(afterA.events.map((e) => e.id)).toEqual(beforeA.events.filter((e) => e.occurredAt! >= CUTOFF).map((e) => e.id));
    // Totals live on the issue rows: unchanged, also for the issue with no event left.
    expect(afterA.issues).toEqual(beforeA.issues);
    expect(afterA.issues.map((i) => Number(i.count)).sort()).toEqual([1, expiredA.length + keptA.length]);
    // Buckets wholly before the cut-off go; the minute and hour holding it stay (whole).
    expect(afterA.minutes.map((m) => m.minute.toISOString())).toEqual(["1971-01-01T00:00:00.000Z", "1971-01-01T00:45:00.000Z", "1971-01-01T05:00:00.000Z"]);
    expect(afterA.minutes[0]!.count).toBe(4); // two expired, two kept events in that minute
    expect(afterA.hours.map((h) => h.hour.toISOString())).toEqual(["1971-01-01T00:00:00.000Z", "1971-01-01T05:00:00.000Z"]);
    // The day of the cut-off stays whole (two expired, four kept); the day before goes.
    expect(afterA.days.map((d) => [d.day.toISOString(), d.count])).toEqual([["1971-01-01T00:00:00.000Z", 6]]);
    expect(beforeA.days.map((d) => d.day.toISOString())).toEqual(["1970-12-31T00:00:00.000Z", "1970-12-31T00:00:00.000Z", "1971-01-01T00:00:00.000Z"]); // two issues that day
    // Windows from the cut-off on count the same as before, also when units
    // from the cut-off on are read whole, less what lies outside the window.
    expect(await windowCounts()).toEqual(windowsBefore);
    const wholeUnits = await Promise.all(windows.map((since) => windowCountsByIssue({ projectIds: [a.id], since, until: null, split: { intactSince: CUTOFF.getTime() } })));
    expect(wholeUnits).toEqual(windowsBefore);

    expect(await projectState(b.id)).toEqual(beforeB);
    const afterC = await projectState(c.id);
    expect(afterC.events).toEqual([]);
    expect(afterC.minutes).toEqual([]);
    expect(afterC.hours).toEqual([]);
    expect(afterC.days).toEqual([]);
    expect(afterC.issues.map((i) => Number(i.count))).toEqual([1]);

    // Again: nothing more to do, nothing else changes.
    const again = await runRetention({ days: 1, now: NOW, batchSize: 2, pauseRatio: 0 });
    expect(again.complete).toBe(true);
    expect(await projectState(a.id)).toEqual(afterA);
  });

  it("deletes the tag counts of hours and days wholly before the cut-off, and keeps the rest and other tenants'", async () => {
    const a = await makeProject("retention-tags-a");
    const b = await makeProject("retention-tags-b");
    // A cut-off in the middle of a day (1971-01-01T05:30:00Z): its hour and its day start at different times.
    const now = new Date("1971-01-02T05:30:00.000Z");
    const at = ["1970-12-31T10:00:00.000Z", "1970-12-31T23:30:00.000Z", "1971-01-01T00:00:10.000Z", "1971-01-01T05:10:00.000Z", "1971-01-01T06:00:00.000Z"];
    await seedEvents(a.id, at.map((t, i) => ({ at: t, message: "Checkout failed", tags: { region: i % 2 ? "eu" : "us" } })));
    await seedEvents(b.id, [{ at: "1970-12-31T10:00:00.000Z", message: "another tenant, expired", tags: { region: "eu" } }]);
    await settleTagCounts();
    const tagBuckets = async (projectId: string) => ({
      hours: (await prisma.issueTagHourCount.findMany({ where: { projectId, key: "region" }, select: { hour: true, value: true, count: true }, orderBy: [{ hour: "asc" }, { value: "asc" }] })).map((r) => [r.hour.toISOString(), r.value, r.count]),
      days: (await prisma.issueTagDayCount.findMany({ where: { projectId, key: "region" }, select: { day: true, value: true, count: true }, orderBy: [{ day: "asc" }, { value: "asc" }] })).map((r) => [r.day.toISOString(), r.value, r.count]),
    });
    expect((await tagBuckets(a.id)).hours).toHaveLength(5);

    const report = await runRetention({ days: 1, now, batchSize: 2, pauseRatio: 0 });
    expect(report.complete).toBe(true);
    expect(report.deleted.tagHourCounts).toBeGreaterThanOrEqual(3);
    expect(report.deleted.tagDayCounts).toBeGreaterThanOrEqual(2);
    // As for the issue counts: the hour and the day that hold the cut-off stay whole.
    expect(await tagBuckets(a.id)).toEqual({
      hours: [
        ["1971-01-01T05:00:00.000Z", "eu", 1],
        ["1971-01-01T06:00:00.000Z", "us", 1],
      ],
      days: [
        ["1971-01-01T00:00:00.000Z", "eu", 1],
        ["1971-01-01T00:00:00.000Z", "us", 2],
      ],
    });
    expect(await tagBuckets(b.id)).toEqual({ hours: [], days: [] });
  });

  it("removes idempotency keys past their 24 hours, whatever RETENTION_DAYS says, and keeps fresh ones", async () => {
    const p = await makeProject("retention-idem");
    await prisma.idempotencyKey.createMany({
      data: [
        { projectId: p.id, key: "old", response: {}, createdAt: new Date(Date.now() - 2 * DAY) },
        { projectId: p.id, key: "fresh", response: {}, createdAt: new Date() },
      ],
    });
    await seedEvents(p.id, [{ at: "1970-12-20T00:00:00.000Z" }]);
    const report = await runRetention({ days: 0, now: NOW, pauseRatio: 0 });
    expect(report).toMatchObject({ retentionDays: 0, cutoff: null, complete: true });
    expect(report.deleted.events).toBe(0);
    expect(report.deleted.idempotencyKeys).toBeGreaterThanOrEqual(1);
    expect((await prisma.idempotencyKey.findMany({ where: { projectId: p.id }, select: { key: true } })).map((k) => k.key)).toEqual(["fresh"]);
    expect(await prisma.event.count({ where: { projectId: p.id } })).toBe(1); // 0 days: kept forever
  });

  it("stops at its time budget and the next run continues", async () => {
    const p = await makeProject("retention-budget");
    await seedEvents(p.id, [{ at: "1970-12-25T00:00:00.000Z" }, { at: "1970-12-26T00:00:00.000Z" }]);
    const cut = await runRetention({ days: 1, now: NOW, budgetMs: 0, pauseRatio: 0 });
    expect(cut.complete).toBe(false);
    expect(await prisma.event.count({ where: { projectId: p.id } })).toBe(2);
    expect((await runRetention({ days: 1, now: NOW, pauseRatio: 0 })).complete).toBe(true);
    expect(await prisma.event.count({ where: { projectId: p.id } })).toBe(0);
  });
});

describe("POST /api/cron/retention", () => {
  const SECRET = "cron-secret-for-retention-tests-0123456789";
  const request = (method: string, authorization?: string) =>
    new Request("http://localhost/api/cron/retention", { method, headers: authorization ? { authorization } : {} });
  afterEach(unstubEnvs);

  it("is off without CRON_SECRET, refuses a missing or wrong token with 401; with it, deletes by RETENTION_DAYS and answers what it deleted", async () => {
    const p = await makeProject("retention-cron");
    await seedEvents(p.id, [{ at: "1969-06-01T00:00:00.000Z" }, { at: "1969-07-01T00:00:00.000Z" }, { at: "1970-03-01T00:00:00.000Z" }]);
    stubEnv("RETENTION_DAYS", String(EPOCH_DAYS));
    stubEnv("CRON_SECRET", undefined);
    const off = await callRoute(cronPost, request("POST", `Bearer ${SECRET}`));
    expect(off.status).toBe(401);
    expect(off.body.code).toBe("unauthenticated");

    stubEnv("CRON_SECRET", SECRET);
    for (const authorization of [undefined, "Bearer wrong", `Basic ${SECRET}`, `Bearer ${SECRET}x`]) {
      const refused = await callRoute(cronPost, request("POST", authorization));
      expect(refused.status).toBe(401);
      expect(refused.res.headers.get("www-authenticate")).toMatch(/^Bearer/);
      expect(JSON.stringify(refused.body)).not.toContain(SECRET);
    }
    expect(await prisma.event.count({ where: { projectId: p.id } })).toBe(3);

    // Each call answers within its budget; on a busy machine (the whole shared
    // test database to walk) the work may take several calls, each going on
    // where the last stopped.
    let res = await callRoute(cronPost, request("POST", `Bearer ${SECRET}`));
    let deletedHere = 0;
    for (let calls = 1; ; calls++) {
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ retentionDays: EPOCH_DAYS });
      deletedHere = await prisma.event.count({ where: { projectId: p.id } });
      if (res.body.complete || calls === 30) break;
      res = await callRoute(cronPost, request("POST", `Bearer ${SECRET}`));
    }
    expect(res.body.complete).toBe(true);
    expect(deletedHere).toBe(1);
    expect(new Date(res.body.cutoff).toISOString().slice(0, 10)).toBe("1970-01-01");
    expect((await prisma.event.findMany({ where: { projectId: p.id }, select: { occurredAt: true } })).map((e) => e.occurredAt!.toISOString())).toEqual([
      "1970-03-01T00:00:00.000Z",
    ]);

    const viaGet = await callRoute(cronGet, request("GET", `Bearer ${SECRET}`));
    expect(viaGet.status).toBe(200);
    expect(viaGet.body.deleted.events).toBe(0);
    expect((await callRoute(cronPut, request("PUT", `Bearer ${SECRET}`))).status).toBe(405);
  });
});

describe("npm run telltale -- retention", () => {
  const cli = (...args: string[]) => run("npm", ["run", "--silent", "telltale", "--", "retention", ...args], { env: process.env, timeout: 300_000 });

  it("prints what it deleted, and deletes nothing more when run again", async () => {
    const p = await makeProject("retention-cli");
    await seedEvents(p.id, [
      { at: "1969-01-01T00:00:00.000Z", message: "Job 1 failed" },
      { at: "1969-02-01T00:00:00.000Z", message: "Job 2 failed" },
      { at: "1969-03-01T00:00:00.000Z", message: "Job 3 failed" },
      { at: "1970-06-01T00:00:00.000Z", message: "Job 4 failed" },
    ]);
    const issueBefore = await prisma.issue.findFirstOrThrow({ where: { projectId: p.id } });

    const first = await cli("--days", String(EPOCH_DAYS));
    expect(first.stdout).toMatch(/^Deleted 3 events older than 1970-01-01T\S+ \([\d,]+ days\), 3 per-minute, 3 per-hour and 3 per-day counts and \d+ tag counts before it, and \d+ expired idempotency keys, in \d+\.\d s( \(\d+\.\d s of it pausing for ingestion\))?\. Issue totals are unchanged\.\n$/);
    expect(await prisma.event.count({ where: { projectId: p.id } })).toBe(1);
    expect(await prisma.issue.findFirstOrThrow({ where: { projectId: p.id } })).toEqual(issueBefore);

    const second = await cli("--days", String(EPOCH_DAYS), "--json");
    const report = JSON.parse(second.stdout);
    expect(report).toMatchObject({ retentionDays: EPOCH_DAYS, complete: true, pauseRatio: 3, deleted: { events: 0, minuteCounts: 0, hourCounts: 0, dayCounts: 0, tagHourCounts: 0, tagDayCounts: 0 } });
    expect(await prisma.event.count({ where: { projectId: p.id } })).toBe(1);
  }, 600_000);

  it("--no-pause deletes without pausing between steps", async () => {
    const p = await makeProject("retention-cli-no-pause");
    await seedEvents(p.id, [
      { at: "1969-01-01T00:00:00.000Z", message: "Job 1 failed" },
      { at: "1969-02-01T00:00:00.000Z", message: "Job 2 failed" },
      { at: "1970-06-01T00:00:00.000Z", message: "Job 3 failed" },
    ]);
    const report = JSON.parse((await cli("--days", String(EPOCH_DAYS), "--no-pause", "--json")).stdout);
    expect(report).toMatchObject({ complete: true, pauseRatio: 0, pausedMs: 0 });
    expect(report.deleted.events).toBeGreaterThanOrEqual(2);
    expect(await prisma.event.count({ where: { projectId: p.id } })).toBe(1);
  }, 600_000);

  it("refuses a bad --days with a usage message and exit code 2", async () => {
    const failure = await cli("--days", "-3").then(
      () => null,
      (e: { code: number; stderr: string }) => e,
    );
    expect(failure?.code).toBe(2);
    expect(failure?.stderr).toMatch(/Usage:/);
  }, 600_000);
});
