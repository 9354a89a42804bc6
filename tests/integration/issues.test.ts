import { describe, expect, it } from "vitest";
import { GET as getEvent } from "@/app/api/projects/[id]/events/[eventId]/route";
import { GET as listEvents } from "@/app/api/projects/[id]/events/route";
import { GET as getIssue, PATCH as patchIssue } from "@/app/api/projects/[id]/issues/[issueId]/route";
import { GET as listIssues } from "@/app/api/projects/[id]/issues/route";
import { prisma } from "@/lib/db/client";
import { seedEvents } from "@/tests/helpers/events";
import { sendBatch, sendEvent } from "@/tests/helpers/ingest";
import { apiRequest, callRoute, createTeam } from "@/tests/helpers/session";

type Team = Awaited<ReturnType<typeof createTeam>>;
type Issue = { id: string; title: string; level: string; count: number; windowCount: number; sampleMessage: string; status: string; isNew: boolean; isRegressed: boolean; firstSeen: string; lastSeen: string; regressedAt: string | null; sparkline: number[] };

const minutesAgo = (n: number, base = Date.now()) => new Date(base - n * 60_000);

async function issues(team: Team, query = "", who: "owner" | "member" | "outsider" = "owner") {
  const res = await callRoute(listIssues, apiRequest(`/api/projects/${team.project.id}/issues${query}`, { cookie: team[who].cookie }), { id: team.project.id });
  return res as { status: number; body: { issues: Issue[]; nextCursor: string | null; window: { since: string; until: string; bucketMs: number }; code?: string } };
}

async function issue(team: Team, issueId: string, query = "", who: "owner" | "member" | "outsider" = "owner") {
  return callRoute(getIssue, apiRequest(`/api/projects/${team.project.id}/issues/${issueId}${query}`, { cookie: team[who].cookie }), { id: team.project.id, issueId });
}

async function setStatus(team: Team, issueId: string, status: string, who: "owner" | "member" | "outsider" = "member") {
  return callRoute(
    patchIssue,
    apiRequest(`/api/projects/${team.project.id}/issues/${issueId}`, { method: "PATCH", cookie: team[who].cookie, body: { status } }),
    { id: team.project.id, issueId },
  );
}

const ingest = (team: Team, event: Record<string, unknown>) => sendEvent(team.project.apiKey, { projectId: team.project.id, ...event });

describe("grouping at ingest", () => {
  it("puts messages that differ only in ids and numbers into one issue, titled by the template, with the latest message", async () => {
    const team = await createTeam("group");
    const earliest = minutesAgo(30);
    await ingest(team, { level: "error", message: "Stripe API timeout after 30000ms while charging order ord_x1", timestamp: earliest.toISOString() });
    await ingest(team, { level: "error", message: "Stripe API timeout after 12000ms while charging order ord_y2", timestamp: minutesAgo(20).toISOString() });
    await ingest(team, { level: "error", message: "Stripe API timeout after 9000ms while charging order ord_z3", timestamp: minutesAgo(25).toISOString() });
    await ingest(team, { level: "warn", message: "Stripe API timeout after 1000ms while charging order ord_w4" });

    const { body } = await issues(team);
    expect(body.issues).toHaveLength(2); // the warning is another issue: level is part of the key
    const error = body.issues.find((i) => i.level === "error")!;
    expect(error).toMatchObject({
      title: "Stripe API timeout after <duration> while charging order <id>",
      count: 3,
      windowCount: 3,
      status: "open",
      isNew: true,
      // The latest by the event's own time, not by arrival.
      sampleMessage: "Stripe API timeout after 12000ms while charging order ord_y2",
    });
    expect(error.firstSeen).toBe(earliest.toISOString());
  });

  it("keeps one issue when some order ids hold no digit (one 8-character base-36 id in fourteen)", async () => {
    const team = await createTeam("group-letters");
    const ids = ["ord_x8k2a1c9", "ord_fypgkirw", "ord_kocxeglt", "ord_3kq9z1xw", "ord_fixypaoy"];
    const sent = await sendBatch(team.project.apiKey, { events: ids.map((id) => ({ projectId: team.project.id, level: "error", message: `Payment provider timeout after 30000ms for order ${id}` })) });
    expect(sent.status).toBe(201);
    // A word after a short prefix is not an id: another issue.
    await ingest(team, { level: "error", message: "Payment provider timeout after 30000ms for order max_settings" });

    const { body } = await issues(team);
    expect(body.issues.map((i) => [i.title, i.count]).sort()).toEqual([
      ["Payment provider timeout after <duration> for order <id>", 5],
      ["Payment provider timeout after <duration> for order max_settings", 1],
    ]);
  });

  it("a client fingerprint replaces the template (whatever the message and level); the issue takes the most severe level", async () => {
    const team = await createTeam("fingerprint");
    await ingest(team, { level: "warn", message: "card declined", fingerprint: ["payments", "declines"] });
    await ingest(team, { level: "error", message: "insufficient funds", fingerprint: ["payments", "declines"] });
    await ingest(team, { level: "error", message: "insufficient funds", fingerprint: ["payments", "other"] });
    const { body } = await issues(team, "?sort=total");
    expect(body.issues.map((i) => [i.count, i.level])).toEqual([
      [2, "error"],
      [1, "error"],
    ]);
  });

  it("counts per minute equal the stored events, and the issue total equals them too", async () => {
    const team = await createTeam("counts");
    const { status } = await sendBatch(team.project.apiKey, {
      events: Array.from({ length: 40 }, (_, i) => ({
        level: "error",
        message: `Job ${1000 + i} failed on worker ${i % 3}`,
        projectId: team.project.id,
        timestamp: minutesAgo(i % 7).toISOString(),
      })),
    });
    expect(status).toBe(201);
    const [row] = await prisma.$queryRaw<{ issues: number; total: bigint; minutes: bigint; events: bigint }[]>`
      SELECT (SELECT count(*)::int FROM issues WHERE project_id = ${team.project.id}) AS issues,
             (SELECT sum(count)::bigint FROM issues WHERE project_id = ${team.project.id}) AS total,
             (SELECT sum(count)::bigint FROM issue_counts WHERE project_id = ${team.project.id}) AS minutes,
             (SELECT count(*) FROM events WHERE project_id = ${team.project.id}) AS events`;
    expect(row).toEqual({ issues: 1, total: 40n, minutes: 40n, events: 40n });
  });
});

describe("regressions and status", () => {
  it("an issue first seen and regressed in the same window is both new and regressed there", async () => {
    const team = await createTeam("new-regressed");
    await ingest(team, { level: "error", message: "Thumbnail worker OOM", timestamp: minutesAgo(30).toISOString() });
    const [created] = (await issues(team)).body.issues;
    expect(created).toMatchObject({ isNew: true, isRegressed: false });
    await setStatus(team, created!.id, "resolved");
    await ingest(team, { level: "error", message: "Thumbnail worker OOM", timestamp: new Date(Date.now() + 1000).toISOString() });

    const [listed] = (await issues(team)).body.issues;
    expect(listed).toMatchObject({ id: created!.id, status: "open", isNew: true, isRegressed: true });
    expect((await issue(team, created!.id)).body).toMatchObject({ isNew: true, isRegressed: true });
    // A window that starts after it was first seen: regressed, not new.
    expect((await issue(team, created!.id, `?since=${minutesAgo(10).toISOString()}`)).body).toMatchObject({ isNew: false, isRegressed: true });
  });

  it("a resolved issue that gets an event reopens (a regression, dated by that event); an ignored one keeps counting, ignored", async () => {
    const team = await createTeam("regress");
    await ingest(team, { level: "error", message: "Queue consumer crashed (pid 4411)", timestamp: minutesAgo(50).toISOString() });
    await ingest(team, { level: "info", message: "Nightly export done in 42s", timestamp: minutesAgo(50).toISOString() });
    const listed = (await issues(team)).body.issues;
    const crashIssue = listed.find((i) => i.level === "error")!;
    const exportIssue = listed.find((i) => i.level === "info")!;

    expect((await setStatus(team, crashIssue.id, "resolved")).body).toMatchObject({ id: crashIssue.id, status: "resolved" });
    expect((await setStatus(team, exportIssue.id, "ignored")).body).toMatchObject({ id: exportIssue.id, status: "ignored" });
    expect((await issues(team)).body.issues).toEqual([]); // default: open only
    expect((await issues(team, "?status=resolved,ignored")).body.issues.map((i) => i.status).sort()).toEqual(["ignored", "resolved"]);

    // An event dated before the resolution, arriving late, is counted and reopens nothing.
    await ingest(team, { level: "error", message: "Queue consumer crashed (pid 5150)", timestamp: minutesAgo(5).toISOString() });
    expect((await issue(team, crashIssue.id)).body).toMatchObject({ status: "resolved", count: 2, isRegressed: false });

    const regressionAt = new Date(Date.now() + 1);
    await ingest(team, { level: "error", message: "Queue consumer crashed (pid 9001)", timestamp: regressionAt.toISOString() });
    await ingest(team, { level: "info", message: "Nightly export done in 40s" });

    const reopened = (await issue(team, crashIssue.id, `?since=${minutesAgo(15).toISOString()}`)).body as Issue;
    expect(reopened).toMatchObject({ status: "open", count: 3, windowCount: 2, isNew: false, isRegressed: true, regressedAt: regressionAt.toISOString() });
    const ignored = (await issue(team, exportIssue.id)).body as Issue;
    expect(ignored).toMatchObject({ status: "ignored", count: 2 });

    // Reopened by hand, then resolved again: the next event is a new regression.
    expect((await setStatus(team, crashIssue.id, "resolved", "owner")).status).toBe(200);
    expect((await setStatus(team, crashIssue.id, "open", "owner")).body.status).toBe("open");
  });

  it("refuses an unknown status (400) and an unknown or foreign issue (404)", async () => {
    const team = await createTeam("status");
    const other = await createTeam("status-other");
    await ingest(other, { level: "error", message: "theirs" });
    const theirs = (await issues(other)).body.issues[0]!;
    expect((await setStatus(team, theirs.id, "resolved")).status).toBe(404);
    expect((await setStatus(team, "00000000-0000-4000-8000-000000000000", "resolved")).status).toBe(404);
    expect((await setStatus(team, "not-a-uuid", "resolved")).status).toBe(404);
    await ingest(team, { level: "error", message: "ours" });
    const ours = (await issues(team)).body.issues[0]!;
    const bad = await setStatus(team, ours.id, "closed");
    expect([bad.status, bad.body.code, bad.body.errors]).toEqual([400, "validation_failed", [{ path: "status", message: "Use one of open, resolved, ignored." }]]);
    expect((await prisma.issue.findUniqueOrThrow({ where: { id: theirs.id } })).status).toBe("open");
  });
});

describe("GET /api/projects/:id/issues", () => {
  it("window counts are exact at minute edges; earlier events don't count; the sparkline adds up", async () => {
    const team = await createTeam("window");
    const base = Date.UTC(2026, 10, 20, 12, 0, 0);
    // Stored with chosen times (the ingest clock can't be set): 10:59:50, 11:00:10, 11:00:50, 11:30, 12:59:59.999
    await seedEvents(team.project.id, [
      { level: "error", message: "DB pool exhausted (12 waiting)", at: new Date(base - 60 * 60_000 - 10_000) },
      { level: "error", message: "DB pool exhausted (14 waiting)", at: new Date(base - 60 * 60_000 + 10_000) },
      { level: "error", message: "DB pool exhausted (3 waiting)", at: new Date(base - 60 * 60_000 + 50_000) },
      { level: "error", message: "DB pool exhausted (7 waiting)", at: new Date(base - 30 * 60_000) },
      { level: "error", message: "DB pool exhausted (9 waiting)", at: new Date(base + 60 * 60_000 - 1) },
    ]);
    const since = new Date(base - 60 * 60_000 + 30_000).toISOString(); // 11:00:30
    const until = new Date(base + 60 * 60_000).toISOString(); // 13:00
    const { body } = await issues(team, `?since=${since}&until=${until}`);
    expect(body.issues).toHaveLength(1);
    expect(body.issues[0]).toMatchObject({ count: 5, windowCount: 3, isNew: false });
    expect(body.issues[0]!.sparkline).toHaveLength(24);
    expect(body.issues[0]!.sparkline.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(3);
    expect(body.window).toEqual({ since, until, bucketMs: 5 * 60_000 });

    // A window that is only part of one minute.
    const narrow = await issues(team, `?since=${new Date(base - 60 * 60_000 + 5_000).toISOString()}&until=${new Date(base - 60 * 60_000 + 20_000).toISOString()}`);
    expect(narrow.body.issues.map((i) => i.windowCount)).toEqual([1]);
  });

  it("filters by status, level and text; sorts; pages with a cursor without repeats", async () => {
    const team = await createTeam("list");
    const seeds = Array.from({ length: 7 }, (_, i) => ({ level: (i % 2 ? "warn" : "error") as "warn" | "error", message: `Handler ${"abcdefg"[i]} failed`, at: minutesAgo(60 - i) }));
    // Different counts: issue i gets i + 1 events.
    await seedEvents(team.project.id, seeds.flatMap((s, i) => Array.from({ length: i + 1 }, () => s)));

    const byLastSeen = (await issues(team)).body.issues.map((i) => i.title);
    expect(byLastSeen).toEqual(["g", "f", "e", "d", "c", "b", "a"].map((c) => `Handler ${c} failed`));
    expect((await issues(team, "?sort=events")).body.issues.map((i) => i.windowCount)).toEqual([7, 6, 5, 4, 3, 2, 1]);
    expect((await issues(team, "?sort=first_seen&level=warn")).body.issues.map((i) => i.title)).toEqual(["Handler f failed", "Handler d failed", "Handler b failed"]);
    expect((await issues(team, "?q=HANDLER%20C")).body.issues.map((i) => i.title)).toEqual(["Handler c failed"]);

    for (const sort of ["last_seen", "first_seen", "events", "total"]) {
      const seen: string[] = [];
      let cursor: string | null = null;
      do {
        const page: Awaited<ReturnType<typeof issues>> = await issues(team, `?sort=${sort}&limit=3${cursor ? `&cursor=${cursor}` : ""}`);
        expect(page.status).toBe(200);
        seen.push(...page.body.issues.map((i) => i.id));
        cursor = page.body.nextCursor;
      } while (cursor);
      expect(seen, sort).toHaveLength(7);
      expect(new Set(seen).size, sort).toBe(7);
    }
    const mismatched = await issues(team, `?sort=events&cursor=${(await issues(team, "?limit=1")).body.nextCursor}`);
    expect([mismatched.status, mismatched.body.code]).toEqual([400, "validation_failed"]);
    for (const bad of ["?status=closed", "?sort=loudest", "?limit=0", "?since=yesterday", "?level=fatal"]) {
      expect((await issues(team, bad)).status, bad).toBe(400);
    }
  });

  it("tenant matrix: members read and change status, outsiders get 404, signed-out 401, an API key is refused", async () => {
    const team = await createTeam("matrix");
    await ingest(team, { level: "error", message: "boom" });
    const id = (await issues(team)).body.issues[0]!.id;
    expect((await issues(team, "", "member")).body.issues.map((i) => i.id)).toEqual([id]);
    expect((await issues(team, "", "outsider")).status).toBe(404);
    expect((await issue(team, id, "", "outsider")).status).toBe(404);
    expect((await setStatus(team, id, "resolved", "outsider")).status).toBe(404);
    const signedOut = await callRoute(listIssues, apiRequest(`/api/projects/${team.project.id}/issues`), { id: team.project.id });
    expect(signedOut.status).toBe(401);
    const withKey = await callRoute(
      listIssues,
      apiRequest(`/api/projects/${team.project.id}/issues`, { cookie: team.owner.cookie, headers: { authorization: `Bearer ${team.project.apiKey}` } }),
      { id: team.project.id },
    );
    expect(withKey.body.code).toBe("api_key_not_accepted");
  });
});

describe("events of an issue, one event, and text search in context", () => {
  it("filters events by issueId, finds one event by id (its project only), and q matches context values at any depth", async () => {
    const team = await createTeam("events");
    const other = await createTeam("events-other");
    const first = await ingest(team, { level: "error", message: "Checkout failed for cart 1", context: { customer: { tier: "platinum" }, tags: ["eu-west-1"] } });
    await ingest(team, { level: "error", message: "Checkout failed for cart 2", context: { customer: { tier: "free" }, amount: 12.5 } });
    await ingest(team, { level: "info", message: "Cart 3 viewed", context: { note: "platinum banner shown" } });
    // Values whose JSON text differs from the value: quotes, backslashes, line breaks.
    await ingest(team, { level: "warn", message: "Export stalled", context: { file: 'C:\\exports\\"march".csv', trace: "at export()\n  at run()" } });
    const theirs = await ingest(other, { level: "error", message: "Checkout failed for cart 9" });

    const checkout = (await issues(team)).body.issues.find((i) => i.level === "error")!;
    const ofIssue = await callRoute(listEvents, apiRequest(`/api/projects/${team.project.id}/events?issueId=${checkout.id}`, { cookie: team.member.cookie }), { id: team.project.id });
    expect(ofIssue.body.events.map((e: { message: string }) => e.message)).toEqual(["Checkout failed for cart 2", "Checkout failed for cart 1"]);

    const search = async (q: string) =>
      (await callRoute(listEvents, apiRequest(`/api/projects/${team.project.id}/events?q=${encodeURIComponent(q)}`, { cookie: team.owner.cookie }), { id: team.project.id })).body.events.map(
        (e: { message: string }) => e.message,
      );
    expect(await search("PLATINUM")).toEqual(["Cart 3 viewed", "Checkout failed for cart 1"]);
    expect(await search("eu-west")).toEqual(["Checkout failed for cart 1"]);
    expect(await search("12.5")).toEqual(["Checkout failed for cart 2"]);
    expect(await search("customer")).toEqual([]); // keys are not values
    expect(await search('\\"MARCH"')).toEqual(["Export stalled"]);
    expect(await search("exports\\")).toEqual(["Export stalled"]);
    expect(await search("at run()")).toEqual(["Export stalled"]);
    expect(await search("n  at")).toEqual([]); // the line break is not the letter n

    const one = await callRoute(getEvent, apiRequest(`/api/projects/${team.project.id}/events/${first.body.id}`, { cookie: team.member.cookie }), { id: team.project.id, eventId: first.body.id });
    expect(one.body).toMatchObject({ id: first.body.id, issueId: checkout.id, message: "Checkout failed for cart 1", context: { customer: { tier: "platinum" } } });
    const foreign = await callRoute(getEvent, apiRequest(`/api/projects/${team.project.id}/events/${theirs.body.id}`, { cookie: team.owner.cookie }), { id: team.project.id, eventId: theirs.body.id });
    expect(foreign.status).toBe(404);
    const outsider = await callRoute(getEvent, apiRequest(`/api/projects/${team.project.id}/events/${first.body.id}`, { cookie: team.outsider.cookie }), { id: team.project.id, eventId: first.body.id });
    expect(outsider.status).toBe(404);
  });
});

describe("event time", () => {
  it("is the client's timestamp within [received - 14 days, received + 1 minute], else the receive time; seconds are read as seconds", async () => {
    const team = await createTeam("time");
    const now = Date.now();
    const cases = [
      { timestamp: new Date(now - 13 * 86_400_000).toISOString(), believed: true },
      { timestamp: Math.floor((now - 3_600_000) / 1000), believed: true }, // unix seconds
      { timestamp: now - 120_000, believed: true }, // unix milliseconds
      { timestamp: new Date(now - 15 * 86_400_000).toISOString(), believed: false },
      { timestamp: new Date(now + 5 * 60_000).toISOString(), believed: false },
      { timestamp: 1_000_000, believed: false }, // 1970: a seconds value is seconds, and far too old
    ];
    for (const c of cases) {
      const sent = await ingest(team, { level: "info", message: "tick", timestamp: c.timestamp });
      expect(sent.status).toBe(201);
      const stored = await prisma.event.findUniqueOrThrow({ where: { id: sent.body.id } });
      const clientMs = typeof c.timestamp === "string" ? Date.parse(c.timestamp) : c.timestamp < 1e12 ? c.timestamp * 1000 : c.timestamp;
      expect(stored.timestamp?.getTime(), String(c.timestamp)).toBe(clientMs); // kept as sent
      expect(stored.occurredAt?.getTime(), String(c.timestamp)).toBe(c.believed ? clientMs : stored.receivedAt.getTime());
    }
  });
});
