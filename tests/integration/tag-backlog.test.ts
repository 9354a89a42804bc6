/**
 * The tag count backlog (lib/issues/tag-backlog.ts): ingest statements leave
 * their tag counts there, and folds add them to the hourly and daily tag
 * counts. Counts stay exact for every reader, whatever folds run when; test
 * files share one database, so other files' folds run beside these.
 */
import pg from "pg";
import { describe, expect, inject, it, vi } from "vitest";
import { resolveProjectAccess } from "@/lib/auth/access";
import { prisma } from "@/lib/db/client";
import { validateEvent } from "@/lib/events/schema";
import { newEventRow } from "@/lib/ingest/ingest";
import { storeEventsNow } from "@/lib/ingest/writer";
import { foldTagBacklog, settleTagCounts } from "@/lib/issues/tag-backlog";
import { tagValueCounts } from "@/lib/issues/tag-counts";
import { runJob } from "@/lib/jobs/runner";
import { deleteProjectAsOwner } from "@/lib/projects/service";
import { findJob } from "@/lib/schedule/schedule";
import { makeProject, sendBatch } from "@/tests/helpers/ingest";

const HOUR = 3_600_000;

/** `n` rows of one issue for `project`, each with a region tag cycling through `regions`, as ingestion makes them. */
async function rowsFor(project: { id: string }, n: number, regions = ["eu", "us", "ap"]) {
  const key = await prisma.apiKey.findFirstOrThrow({ where: { projectId: project.id }, select: { id: true } });
  const now = new Date();
  return Array.from({ length: n }, (_, i) => {
    const { event } = validateEvent({ projectId: project.id, level: "error", message: "Checkout failed", environment: "production", tags: { region: regions[i % regions.length]! } });
    return newEventRow(event!, key.id, now);
  });
}

/** The issue's region counts as the issue page reads them (this hour on). */
async function regionCounts(projectId: string, issueId: string) {
  const from = new Date(Math.floor(Date.now() / HOUR) * HOUR - HOUR);
  const rows = await tagValueCounts({ projectIds: [projectId], issueIds: [issueId], unit: "hour", from, split: from, skipKeys: [] });
  return Object.fromEntries(rows.filter((r) => r.key === "region").map((r) => [r.value, r.count]));
}

const backlogRowsOf = async (issueId: string) =>
  Number((await prisma.$queryRaw<{ n: bigint }[]>`SELECT count(*) AS n FROM tag_count_backlog WHERE ${issueId}::uuid = ANY(issue_ids)`)[0]!.n);

const issueOf = async (projectId: string) => (await prisma.issue.findFirstOrThrow({ where: { projectId }, select: { id: true } })).id;

describe("the tag count backlog", () => {
  it("keeps a statement's tag counts until a reader needs them, and the reader gets them exactly", async () => {
    const p = await makeProject("backlog-read");
    // storeEventsNow, unlike ingestion, starts no background fold: only the read below adds them.
    await storeEventsNow(await rowsFor(p, 7));
    const issueId = await issueOf(p.id);
    expect(await regionCounts(p.id, issueId)).toEqual({ eu: 3, us: 2, ap: 2 });
    expect(await backlogRowsOf(issueId)).toBe(0);
  });

  it("lets readers that arrive together share one settle (and the next), each seeing what came before its call", async () => {
    const p = await makeProject("backlog-share");
    await storeEventsNow(await rowsFor(p, 3));
    const settles = Array.from({ length: 10 }, () => settleTagCounts());
    // The first starts at once; the nine others wait for the one after it.
    expect(new Set(settles).size).toBe(2);
    await Promise.all(settles);
    const issueId = await issueOf(p.id);
    expect(await backlogRowsOf(issueId)).toBe(0);
    expect(await regionCounts(p.id, issueId)).toEqual({ eu: 1, us: 1, ap: 1 });
  });

  it("stays exact while statements and folds of every kind race", async () => {
    const p = await makeProject("backlog-race");
    const statements = Array.from({ length: 12 }, () => rowsFor(p, 10));
    const work: Promise<unknown>[] = [];
    for (const [i, rows] of statements.entries()) {
      work.push(rows.then((r) => storeEventsNow(r)));
      // Folds of one backlog row that give way to a fold in progress, and readers' folds that wait for it.
      work.push(i % 2 === 0 ? foldTagBacklog({ wait: false, budget: 1 }) : settleTagCounts());
    }
    await Promise.all(work);
    const issueId = await issueOf(p.id);
    // 120 events, regions eu, us, ap in turn in each statement of 10: 4, 3, 3 each.
    expect(await regionCounts(p.id, issueId)).toEqual({ eu: 48, us: 36, ap: 36 });
    const perHour = await prisma.issueTagHourCount.aggregate({ where: { issueId, key: "region" }, _sum: { count: true } });
    const perDay = await prisma.issueTagDayCount.aggregate({ where: { issueId, key: "region" }, _sum: { count: true } });
    expect([perHour._sum.count, perDay._sum.count]).toEqual([120, 120]);
  });

  // The embedded database serves one connection at a time: a transaction held open here would hold up the fold itself.
  it.skipIf(inject("databaseKind") === "embedded")("runs one fold at a time: another gives way, a reader waits for it and then reads its counts", async () => {
    const p = await makeProject("backlog-lock");
    await storeEventsNow(await rowsFor(p, 3));
    const issueId = await issueOf(p.id);
    const holder = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await holder.connect();
    try {
      await holder.query("BEGIN");
      await holder.query("SELECT pg_advisory_xact_lock(hashtext('telltale:tag-count-fold'))");
      expect(await foldTagBacklog({ wait: false })).toEqual({ statements: 0, tagRows: 0, busy: true });
      let read: Record<string, number> | null = null;
      const reading = regionCounts(p.id, issueId).then((counts) => (read = counts));
      // The reader's fold is waiting for the lock (seen from the database, not timed).
      await vi.waitFor(
        async () => {
          const { rows } = await holder.query<{ n: string }>("SELECT count(*) AS n FROM pg_locks WHERE locktype = 'advisory' AND NOT granted");
          expect(Number(rows[0]!.n)).toBeGreaterThan(0);
        },
        { timeout: 30_000, interval: 20 },
      );
      expect(read).toBeNull();
      await holder.query("COMMIT");
      expect(await reading).toEqual({ eu: 1, us: 1, ap: 1 });
    } finally {
      await holder.end();
    }
  });

  it("drops the counts of a project deleted before they were added, and adds the others'", async () => {
    const gone = await makeProject("backlog-gone");
    const kept = await makeProject("backlog-kept");
    await storeEventsNow(await rowsFor(gone, 4));
    await storeEventsNow(await rowsFor(kept, 4));
    const goneIssue = await issueOf(gone.id);
    await prisma.project.delete({ where: { id: gone.id } });
    await settleTagCounts();
    expect(await backlogRowsOf(goneIssue)).toBe(0);
    expect(await prisma.issueTagHourCount.count({ where: { issueId: goneIssue } })).toBe(0);
    expect(await regionCounts(kept.id, await issueOf(kept.id))).toEqual({ eu: 2, us: 1, ap: 1 });
  });

  it("goes with its project: the owner's deletion removes its folded counts, also while folds of its backlog race it", async () => {
    const gone = await makeProject("backlog-owner-deletes");
    const kept = await makeProject("backlog-owner-keeps");
    await storeEventsNow(await rowsFor(gone, 6));
    await storeEventsNow(await rowsFor(kept, 6));
    await settleTagCounts();
    const goneIssue = await issueOf(gone.id);
    expect(await prisma.issueTagHourCount.count({ where: { projectId: gone.id } })).toBeGreaterThan(0);
    // More counts waiting, folded while the project goes.
    await storeEventsNow(await rowsFor(gone, 6));
    const access = await resolveProjectAccess(gone.ownerId, gone.id, "owner");
    await Promise.all([deleteProjectAsOwner(access), settleTagCounts(), foldTagBacklog({ wait: true })]);
    await settleTagCounts();
    expect(await prisma.issueTagHourCount.count({ where: { OR: [{ projectId: gone.id }, { issueId: goneIssue }] } })).toBe(0);
    expect(await prisma.issueTagDayCount.count({ where: { OR: [{ projectId: gone.id }, { issueId: goneIssue }] } })).toBe(0);
    expect(await backlogRowsOf(goneIssue)).toBe(0);
    expect(await regionCounts(kept.id, await issueOf(kept.id))).toEqual({ eu: 2, us: 2, ap: 2 });
  });

  // As above: a second connection held open would hold up the embedded database.
  it.skipIf(inject("databaseKind") === "embedded")("deletes what a fold holding the project's issues adds while the deletion waits for it", async () => {
    const p = await makeProject("backlog-delete-waits");
    await storeEventsNow(await rowsFor(p, 3));
    await settleTagCounts();
    const issueId = await issueOf(p.id);
    // This connection plays a fold: it holds the issue as a fold does, and adds a count before it commits.
    const fold = new pg.Client({ connectionString: process.env.DATABASE_URL });
    await fold.connect();
    try {
      await fold.query("BEGIN");
      await fold.query("SELECT id FROM issues WHERE id = $1 ORDER BY id FOR KEY SHARE", [issueId]);
      const deleting = deleteProjectAsOwner(await resolveProjectAccess(p.ownerId, p.id, "owner"));
      // The deletion is waiting for the issue (seen from the database, not timed).
      await vi.waitFor(
        async () => {
          const { rows } = await fold.query<{ n: string }>("SELECT count(*) AS n FROM pg_locks WHERE locktype IN ('tuple', 'transactionid') AND NOT granted");
          expect(Number(rows[0]!.n)).toBeGreaterThan(0);
        },
        { timeout: 30_000, interval: 20 },
      );
      await fold.query(
        "INSERT INTO issue_tag_hours (issue_id, hour, key, value, project_id, count) VALUES ($1, date_bin('1 hour', now(), 'epoch'), 'region', 'late', $2, 1) ON CONFLICT DO NOTHING",
        [issueId, p.id],
      );
      await fold.query("COMMIT");
      await deleting;
    } finally {
      await fold.end();
    }
    expect(await prisma.issueTagHourCount.count({ where: { OR: [{ projectId: p.id }, { issueId }] } })).toBe(0);
    expect(await prisma.issueTagDayCount.count({ where: { OR: [{ projectId: p.id }, { issueId }] } })).toBe(0);
  });

  it("is folded in the background after ingestion, without a reader", async () => {
    const p = await makeProject("backlog-background");
    const events = Array.from({ length: 5 }, (_, i) => ({ projectId: p.id, level: "error", message: "Background fold", tags: { region: i < 3 ? "eu" : "us" } }));
    expect((await sendBatch(p.apiKey, { events })).status).toBe(201);
    const issueId = await issueOf(p.id);
    await vi.waitFor(async () => expect(await prisma.issueTagHourCount.findMany({ where: { issueId, key: "region" }, select: { value: true, count: true }, orderBy: { value: "asc" } })).toEqual([
      { value: "eu", count: 3 },
      { value: "us", count: 2 },
    ]), { timeout: 60_000, interval: 50 });
  });

  it("is folded by the schedule's tag-counts job (what a stopped process left)", async () => {
    const p = await makeProject("backlog-job");
    await storeEventsNow(await rowsFor(p, 3));
    const issueId = await issueOf(p.id);
    const run = await runJob(findJob("tag-counts")!, { force: true });
    expect(run.error).toBeUndefined();
    expect(run.report).toMatchObject({ complete: true });
    expect(await backlogRowsOf(issueId)).toBe(0);
    const rows = await prisma.issueTagDayCount.findMany({ where: { issueId, key: "region" }, select: { value: true, count: true }, orderBy: { value: "asc" } });
    expect(rows).toEqual([
      { value: "ap", count: 1 },
      { value: "eu", count: 1 },
      { value: "us", count: 1 },
    ]);
  });
});
