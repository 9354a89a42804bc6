import { describe, expect, it } from "vitest";
import { GET as getActivity } from "@/app/api/projects/[id]/issues/[issueId]/activity/route";
import { POST as postComment } from "@/app/api/projects/[id]/issues/[issueId]/comments/route";
import { GET as getIssue, PATCH as patchIssue } from "@/app/api/projects/[id]/issues/[issueId]/route";
import { GET as listIssues, PATCH as patchIssues } from "@/app/api/projects/[id]/issues/route";
import { DELETE as removeMember } from "@/app/api/projects/[id]/members/[userId]/route";
import { prisma } from "@/lib/db/client";
import { reopenExpiredIgnores } from "@/lib/issues/workflow";
import { sendBatch, sendEvent } from "@/tests/helpers/ingest";
import { apiRequest, callRoute, createTeam } from "@/tests/helpers/session";

/** The issue workflow through the management API: resolve modes, late events, ignore until, assignees, activity, comments, bulk changes. */

type Team = Awaited<ReturnType<typeof createTeam>>;
type Who = "owner" | "member" | "outsider";

const minutesAgo = (n: number) => new Date(Date.now() - n * 60_000);
const path = (team: Team, issueId?: string) => `/api/projects/${team.project.id}/issues${issueId ? `/${issueId}` : ""}`;

const ingest = (team: Team, event: Record<string, unknown>) => sendEvent(team.project.apiKey, { projectId: team.project.id, level: "error", ...event });

function patch(team: Team, issueId: string, body: unknown, who: Who = "member") {
  return callRoute(patchIssue, apiRequest(path(team, issueId), { method: "PATCH", cookie: team[who].cookie, body }), { id: team.project.id, issueId });
}
function bulk(team: Team, body: unknown, who: Who = "member") {
  return callRoute(patchIssues, apiRequest(path(team), { method: "PATCH", cookie: team[who].cookie, body }), { id: team.project.id });
}
function issue(team: Team, issueId: string, who: Who = "owner") {
  return callRoute(getIssue, apiRequest(path(team, issueId), { cookie: team[who].cookie }), { id: team.project.id, issueId });
}
function activity(team: Team, issueId: string, query = "", who: Who = "owner") {
  return callRoute(getActivity, apiRequest(`${path(team, issueId)}/activity${query}`, { cookie: team[who].cookie }), { id: team.project.id, issueId });
}
function comment(team: Team, issueId: string, body: unknown, who: Who = "member") {
  return callRoute(postComment, apiRequest(`${path(team, issueId)}/comments`, { method: "POST", cookie: team[who].cookie, body }), { id: team.project.id, issueId });
}
async function onlyIssueId(team: Team, title: string): Promise<string> {
  const { body } = await callRoute(listIssues, apiRequest(`${path(team)}?status=all&since=${minutesAgo(24 * 60 * 7).toISOString()}`, { cookie: team.owner.cookie }), { id: team.project.id });
  return (body.issues as { id: string; title: string }[]).find((i) => i.title === title)!.id;
}
const regressionAlerts = (team: Team, issueId: string) => prisma.alertDelivery.count({ where: { projectId: team.project.id, issueId, kind: "regression" } });

describe("resolve: by event time, in the next release, in a given release", () => {
  it("resolved now: a late event (dated before) is counted as late and reopens nothing, no alert; a later one is a regression with its alert and activity", async () => {
    const team = await createTeam("wf-late");
    await ingest(team, { message: "Queue consumer crashed", timestamp: minutesAgo(30).toISOString() });
    const id = await onlyIssueId(team, "Queue consumer crashed");

    const resolved = await patch(team, id, { status: "resolved" });
    expect(resolved.status).toBe(200);
    expect(resolved.body).toMatchObject({ id, status: "resolved", resolvedIn: null, resolvedBy: { id: team.member.user.id }, lateCount: 0 });
    expect(Date.parse(resolved.body.resolvedAt)).toBeGreaterThan(Date.now() - 60_000);

    await ingest(team, { message: "Queue consumer crashed", timestamp: minutesAgo(5).toISOString() });
    await ingest(team, { message: "Queue consumer crashed", timestamp: minutesAgo(4).toISOString() });
    expect((await issue(team, id)).body).toMatchObject({ status: "resolved", count: 3, lateCount: 2, regressedAt: null });
    expect(await regressionAlerts(team, id)).toBe(0);

    const after = new Date(Date.now() + 1000);
    await ingest(team, { message: "Queue consumer crashed", timestamp: after.toISOString() });
    expect((await issue(team, id)).body).toMatchObject({ status: "open", count: 4, regressedAt: after.toISOString(), resolvedBy: { id: team.member.user.id } });
    expect(await regressionAlerts(team, id)).toBe(1);
    const kinds = (await activity(team, id)).body.activities.map((a: { kind: string; detail: Record<string, unknown> }) => [a.kind, a.detail]);
    expect(kinds).toEqual([
      ["regression", { at: after.toISOString() }],
      ["status", { from: "open", to: "resolved", resolveMode: "now" }],
    ]);
  });

  it("one batch with events dated before and after the resolution: the later one reopens it, the earlier ones still count as late", async () => {
    const team = await createTeam("wf-late-mixed");
    await ingest(team, { message: "Cache warmer stalled", timestamp: minutesAgo(30).toISOString() });
    const id = await onlyIssueId(team, "Cache warmer stalled");
    await patch(team, id, { status: "resolved" });

    const after = new Date(Date.now() + 1000);
    const events = [minutesAgo(6), after, minutesAgo(5)].map((t) => ({ projectId: team.project.id, level: "error", message: "Cache warmer stalled", timestamp: t.toISOString() }));
    expect((await sendBatch(team.project.apiKey, events)).status).toBe(201);
    expect((await issue(team, id)).body).toMatchObject({ status: "open", count: 4, lateCount: 2, regressedAt: after.toISOString() });
    expect(await regressionAlerts(team, id)).toBe(1);
  });

  it("one batch with an event of the resolved release and one of a newer release: reopened, the older one counted as late", async () => {
    const team = await createTeam("wf-next-mixed");
    await ingest(team, { message: "Invoice PDF blank", release: "3.0.0" });
    const id = await onlyIssueId(team, "Invoice PDF blank");
    expect((await patch(team, id, { status: "resolved", resolvedIn: "next_release" })).body).toMatchObject({ resolvedRelease: "3.0.0" });

    const event = (release: string) => ({ projectId: team.project.id, level: "error", message: "Invoice PDF blank", release });
    expect((await sendBatch(team.project.apiKey, [event("3.0.0"), event("3.1.0")])).status).toBe(201);
    expect((await issue(team, id)).body).toMatchObject({ status: "open", count: 3, lateCount: 1 });
  });

  it("in the next release: events of that release or older (or none) do not reopen it; the first event of a newer release does, with one alert", async () => {
    const team = await createTeam("wf-next");
    await ingest(team, { message: "Checkout total is NaN", release: "1.0.0" });
    await ingest(team, { message: "Unrelated", release: "1.1.0" });
    const id = await onlyIssueId(team, "Checkout total is NaN");

    const resolved = await patch(team, id, { status: "resolved", resolvedIn: "next_release" });
    expect(resolved.body).toMatchObject({ status: "resolved", resolvedIn: "next_release", resolvedRelease: "1.1.0" });

    const later = new Date(Date.now() + 1000).toISOString();
    for (const release of ["1.0.0", "1.1.0", undefined]) await ingest(team, { message: "Checkout total is NaN", release, timestamp: later });
    expect((await issue(team, id)).body).toMatchObject({ status: "resolved", count: 4, lateCount: 3 });
    expect(await regressionAlerts(team, id)).toBe(0);

    await ingest(team, { message: "Checkout total is NaN", release: "1.2.0", timestamp: later });
    expect((await issue(team, id)).body).toMatchObject({ status: "open", count: 5, resolvedIn: "next_release" });
    expect(await regressionAlerts(team, id)).toBe(1);
  });

  it("in a given release: its own and older releases' events do not reopen it, a newer one does; an unknown release or none yet is a 400", async () => {
    const team = await createTeam("wf-in");
    for (const release of ["2.0.0", "2.1.0", "2.2.0"]) await ingest(team, { message: "Avatar upload fails", release });
    const id = await onlyIssueId(team, "Avatar upload fails");

    const unknown = await patch(team, id, { status: "resolved", resolvedIn: "9.9.9" });
    expect([unknown.status, unknown.body.errors]).toEqual([400, [{ path: "resolvedIn", message: 'No event of this project has named the release "9.9.9".' }]]);
    const misplaced = await patch(team, id, { status: "ignored", resolvedIn: "2.1.0" });
    expect([misplaced.status, misplaced.body.errors[0].path]).toEqual([400, "resolvedIn"]);

    expect((await patch(team, id, { status: "resolved", resolvedIn: "2.1.0" })).body).toMatchObject({ status: "resolved", resolvedIn: "2.1.0", resolvedRelease: "2.1.0" });
    await ingest(team, { message: "Avatar upload fails", release: "2.1.0" });
    await ingest(team, { message: "Avatar upload fails", release: "2.0.0" });
    expect((await issue(team, id)).body).toMatchObject({ status: "resolved", lateCount: 2 });
    // 2.2.0 was first seen before the resolution, but it is newer than 2.1.0.
    await ingest(team, { message: "Avatar upload fails", release: "2.2.0" });
    expect((await issue(team, id)).body.status).toBe("open");

    const bare = await createTeam("wf-no-release");
    await ingest(bare, { message: "No releases here" });
    const bareId = await onlyIssueId(bare, "No releases here");
    const none = await patch(bare, bareId, { status: "resolved", resolvedIn: "next_release" });
    expect([none.status, none.body.errors[0].path]).toEqual([400, "resolvedIn"]);
    expect((await prisma.issue.findUniqueOrThrow({ where: { id: bareId } })).status).toBe("open");
  });
});

describe("ignore until", () => {
  it("N more events: stays ignored until the Nth, then opens with a status activity by Telltale (no regression alert)", async () => {
    const team = await createTeam("wf-ignore-n");
    await ingest(team, { message: "Cache miss storm" });
    const id = await onlyIssueId(team, "Cache miss storm");
    expect((await patch(team, id, { status: "ignored", ignoreEvents: 3 })).body).toMatchObject({ status: "ignored", ignoredUntilCount: 4, ignoredUntil: null });
    await ingest(team, { message: "Cache miss storm" });
    await ingest(team, { message: "Cache miss storm" });
    expect((await issue(team, id)).body).toMatchObject({ status: "ignored", count: 3 });
    await ingest(team, { message: "Cache miss storm" });
    expect((await issue(team, id)).body).toMatchObject({ status: "open", count: 4, ignoredUntilCount: null });
    expect(await regressionAlerts(team, id)).toBe(0);
    const { activities } = (await activity(team, id)).body;
    expect(activities.map((a: { kind: string; user: unknown; detail: unknown }) => [a.kind, a.user, a.detail])).toEqual([
      ["status", null, { from: "ignored", to: "open", reason: "ignore_ended" }],
      ["status", expect.objectContaining({ id: team.member.user.id }), { from: "open", to: "ignored", ignoreEvents: 3 }],
    ]);
  });

  it("for a duration: opens by itself once the time ran out (the background job), or on the first event after it; forever stays ignored", async () => {
    const team = await createTeam("wf-ignore-time");
    await ingest(team, { message: "Slow disk A" });
    await ingest(team, { message: "Slow disk B" });
    await ingest(team, { message: "Slow disk C" });
    const [a, b, c] = await Promise.all(["Slow disk A", "Slow disk B", "Slow disk C"].map((t) => onlyIssueId(team, t)));
    const ignored = await patch(team, a!, { status: "ignored", ignoreMinutes: 60 });
    expect(Date.parse(ignored.body.ignoredUntil)).toBeGreaterThan(Date.now() + 59 * 60_000);
    await patch(team, b!, { status: "ignored", ignoreMinutes: 60 });
    await patch(team, c!, { status: "ignored" });
    expect((await issue(team, c!)).body).toMatchObject({ status: "ignored", ignoredUntil: null, ignoredUntilCount: null });

    // The hour has passed for A and B.
    await prisma.issue.updateMany({ where: { id: { in: [a!, b!] } }, data: { ignoredUntil: minutesAgo(1) } });
    await ingest(team, { message: "Slow disk B" });
    expect((await issue(team, b!)).body.status).toBe("open");
    expect(await reopenExpiredIgnores()).toBeGreaterThanOrEqual(1);
    expect((await issue(team, a!)).body).toMatchObject({ status: "open", ignoredUntil: null });
    expect((await issue(team, c!)).body.status).toBe("ignored");
    expect((await activity(team, a!)).body.activities[0]).toMatchObject({ kind: "status", user: null, detail: { reason: "ignore_ended" } });
    await ingest(team, { message: "Slow disk C" });
    expect((await issue(team, c!)).body.status).toBe("ignored");
  });

  it("refuses ignore options without status ignored, and numbers out of range", async () => {
    const team = await createTeam("wf-ignore-bad");
    await ingest(team, { message: "Bad ignore" });
    const id = await onlyIssueId(team, "Bad ignore");
    for (const body of [{ ignoreMinutes: 10 }, { status: "ignored", ignoreMinutes: 0 }, { status: "ignored", ignoreEvents: 1.5 }, { status: "resolved", ignoreEvents: 2 }, {}, { status: "ignored", until: "x" }]) {
      const res = await patch(team, id, body);
      expect([res.status, res.body.code], JSON.stringify(body)).toEqual([400, "validation_failed"]);
    }
  });
});

describe("assignee", () => {
  it("assigns a member (any member may), refuses a non-member with a 400, unassigns with null; each change is in the activity; a member who leaves is unassigned", async () => {
    const team = await createTeam("wf-assign");
    await ingest(team, { message: "Login loop" });
    const id = await onlyIssueId(team, "Login loop");

    const outsider = await patch(team, id, { assigneeId: team.outsider.user.id });
    expect([outsider.status, outsider.body.code, outsider.body.errors]).toEqual([
      400,
      "validation_failed",
      [{ path: "assigneeId", message: "Not a member of this project: only members can be assigned." }],
    ]);
    expect((await patch(team, id, { assigneeId: "no-such-user" })).status).toBe(400);

    const assigned = await patch(team, id, { assigneeId: team.owner.user.id }, "member");
    expect(assigned.body.assignee).toEqual({ id: team.owner.user.id, email: team.owner.user.email, name: null });
    expect((await issue(team, id, "member")).body).toMatchObject({ assignee: { id: team.owner.user.id }, assigneeId: team.owner.user.id });
    const listed = await callRoute(listIssues, apiRequest(path(team), { cookie: team.member.cookie }), { id: team.project.id });
    expect(listed.body.issues.map((i: { assigneeId: string }) => i.assigneeId)).toEqual([team.owner.user.id]);
    // Again the same: nothing recorded.
    await patch(team, id, { assigneeId: team.owner.user.id }, "member");
    expect((await patch(team, id, { assigneeId: team.member.user.id, status: "resolved" }, "owner")).body).toMatchObject({ status: "resolved", assignee: { id: team.member.user.id } });

    const { activities } = (await activity(team, id)).body;
    expect(activities.map((a: { kind: string; assignee?: { id: string } | null }) => [a.kind, a.assignee?.id])).toEqual([
      ["assignment", team.member.user.id],
      ["status", undefined],
      ["assignment", team.owner.user.id],
    ]);

    // The member leaves: the issue is no longer theirs.
    const left = await callRoute(removeMember, apiRequest(`/api/projects/${team.project.id}/members/${team.member.user.id}`, { method: "DELETE", cookie: team.member.cookie }), {
      id: team.project.id,
      userId: team.member.user.id,
    });
    expect(left.status).toBe(204);
    expect((await issue(team, id)).body.assignee).toBeNull();
    expect((await patch(team, id, { assigneeId: null }, "owner")).body.assignee).toBeNull();
  });
});

describe("activity and comments", () => {
  it("members comment; the activity pages newest first with a cursor; bad comments are 400", async () => {
    const team = await createTeam("wf-comments");
    await ingest(team, { message: "Webhook retries pile up" });
    const id = await onlyIssueId(team, "Webhook retries pile up");
    const first = await comment(team, id, { text: "  Looking into it.  " }, "member");
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ kind: "comment", detail: { text: "Looking into it." }, user: { id: team.member.user.id, email: team.member.user.email } });
    for (const n of [2, 3, 4]) expect((await comment(team, id, { text: `note ${n}` }, "owner")).status).toBe(201);

    const page1 = await activity(team, id, "?limit=3");
    expect(page1.body.activities.map((a: { detail: { text: string } }) => a.detail.text)).toEqual(["note 4", "note 3", "note 2"]);
    const page2 = await activity(team, id, `?limit=3&cursor=${page1.body.nextCursor}`);
    expect([page2.body.activities.map((a: { detail: { text: string } }) => a.detail.text), page2.body.nextCursor]).toEqual([["Looking into it."], null]);

    for (const body of [{ text: "   " }, { text: "x".repeat(5001) }, { text: 3 }, { note: "hi" }]) {
      expect((await comment(team, id, body)).status, JSON.stringify(body)).toBe(400);
    }
    expect((await activity(team, id, "?cursor=nope")).status).toBe(400);
  });
});

describe("bulk changes", () => {
  it("resolves, ignores and assigns several issues in one call; another project's ids change nothing there and come back as notFound", async () => {
    const team = await createTeam("wf-bulk");
    const other = await createTeam("wf-bulk-other");
    for (const m of ["Bulk A", "Bulk B", "Bulk C"]) await ingest(team, { message: m });
    await ingest(other, { message: "Theirs" });
    const ids = await Promise.all(["Bulk A", "Bulk B", "Bulk C"].map((t) => onlyIssueId(team, t)));
    const theirs = await onlyIssueId(other, "Theirs");

    const resolved = await bulk(team, { issueIds: [ids[0], ids[1], theirs], status: "resolved", assigneeId: team.member.user.id });
    expect(resolved.status).toBe(200);
    expect(resolved.body.notFound).toEqual([theirs]);
    expect(resolved.body.issues.map((i: { id: string; status: string }) => [i.id, i.status]).sort()).toEqual([[ids[0], "resolved"], [ids[1], "resolved"]].sort());
    const untouched = await prisma.issue.findUniqueOrThrow({ where: { id: theirs } });
    expect([untouched.status, untouched.assigneeId, untouched.resolvedAt]).toEqual(["open", null, null]);
    expect(await prisma.issueActivity.count({ where: { issueId: theirs } })).toBe(0);

    const ignored = await bulk(team, { issueIds: ids, status: "ignored", ignoreEvents: 10 }, "owner");
    expect(ignored.body.issues.map((i: { status: string; ignoredUntilCount: number }) => [i.status, i.ignoredUntilCount])).toEqual(ids.map(() => ["ignored", 11]));
    expect(await prisma.issueActivity.count({ where: { issueId: ids[2]! } })).toBe(1);

    // Only foreign ids: nothing changes, nothing is found.
    expect((await bulk(team, { issueIds: [theirs], status: "resolved" })).body).toEqual({ issues: [], notFound: [theirs] });
    expect((await prisma.issue.findUniqueOrThrow({ where: { id: theirs } })).status).toBe("open");

    // Assigning someone of the other project only: refused, nothing changes.
    const foreignAssignee = await bulk(team, { issueIds: ids, assigneeId: other.owner.user.id });
    expect([foreignAssignee.status, foreignAssignee.body.errors[0].path]).toEqual([400, "assigneeId"]);

    for (const body of [{ issueIds: [], status: "open" }, { issueIds: ["nope"], status: "open" }, { issueIds: Array.from({ length: 101 }, () => ids[0]), status: "open" }, { issueIds: ids }]) {
      expect((await bulk(team, body)).status, JSON.stringify(body).slice(0, 60)).toBe(400);
    }
  });
});

describe("tenancy", () => {
  it("an outsider sees and changes nothing (404 everywhere); signed-out is 401; a cross-site change is 403; members and owners both may", async () => {
    const team = await createTeam("wf-tenancy");
    await ingest(team, { message: "Private issue" });
    const id = await onlyIssueId(team, "Private issue");

    expect((await patch(team, id, { status: "resolved" }, "outsider")).status).toBe(404);
    expect((await bulk(team, { issueIds: [id], status: "resolved" }, "outsider")).status).toBe(404);
    expect((await activity(team, id, "", "outsider")).status).toBe(404);
    expect((await comment(team, id, { text: "hi" }, "outsider")).status).toBe(404);
    expect((await issue(team, id, "outsider")).status).toBe(404);
    const signedOut = await callRoute(patchIssue, apiRequest(path(team, id), { method: "PATCH", body: { status: "resolved" } }), { id: team.project.id, issueId: id });
    expect(signedOut.status).toBe(401);
    const crossSite = await callRoute(patchIssue, apiRequest(path(team, id), { method: "PATCH", cookie: team.member.cookie, body: { status: "resolved" }, headers: { origin: "https://evil.example" } }), {
      id: team.project.id,
      issueId: id,
    });
    expect(crossSite.status).toBe(403);
    const row = await prisma.issue.findUniqueOrThrow({ where: { id } });
    expect([row.status, row.assigneeId]).toEqual(["open", null]);
    expect(await prisma.issueActivity.count({ where: { issueId: id } })).toBe(0);

    // The outsider's own project cannot reach this issue through its id either.
    const theirs = await createTeam("wf-tenancy-theirs");
    const viaOwn = await callRoute(patchIssue, apiRequest(path(theirs, id), { method: "PATCH", cookie: theirs.owner.cookie, body: { status: "resolved" } }), {
      id: theirs.project.id,
      issueId: id,
    });
    expect(viaOwn.status).toBe(404);
    expect((await callRoute(getActivity, apiRequest(`${path(theirs, id)}/activity`, { cookie: theirs.owner.cookie }), { id: theirs.project.id, issueId: id })).status).toBe(404);
    expect((await callRoute(postComment, apiRequest(`${path(theirs, id)}/comments`, { method: "POST", cookie: theirs.owner.cookie, body: { text: "x" } }), { id: theirs.project.id, issueId: id })).status).toBe(404);
    expect(await prisma.issueActivity.count({ where: { issueId: id } })).toBe(0);

    expect((await patch(team, id, { status: "ignored" }, "member")).status).toBe(200);
    expect((await patch(team, id, { status: "open" }, "owner")).status).toBe(200);
  });
});
