/**
 * An issue's tag breakdown for any window (whole days, whole hours and the
 * events of the partial hours at the edges), the issue's releases,
 * environments and users affected, the issues list's environment, release
 * and tag filters, the events list's tag filter, and tenancy.
 */
import { describe, expect, it } from "vitest";
import { GET as listEvents } from "@/app/api/projects/[id]/events/route";
import { GET as getIssue } from "@/app/api/projects/[id]/issues/[issueId]/route";
import { GET as listIssues } from "@/app/api/projects/[id]/issues/route";
import { resolveProjectAccess } from "@/lib/auth/access";
import { prisma } from "@/lib/db/client";
import { MAX_TAG_VALUES_PER_BUCKET } from "@/lib/issues/ingest-sql";
import { issueTagBreakdown, splitTagWindow, TOP_TAG_VALUES } from "@/lib/issues/tag-breakdown";
import { seedEvents, type EventSeed } from "@/tests/helpers/events";
import { apiRequest, callRoute, createTeam } from "@/tests/helpers/session";

type Team = Awaited<ReturnType<typeof createTeam>>;
type Who = "owner" | "member" | "outsider";
type Tag = { key: string; values: { value: string; count: number; share: number }[]; total: number; otherCount: number; distinctCount: number; distinctCountEstimate: boolean };

const MINUTE = 60_000;
const HOUR = 3_600_000;
const DAY = 86_400_000;

function getIssueDetails(team: Team, issueId: string, query = "", who: Who = "member") {
  return callRoute(getIssue, apiRequest(`/api/projects/${team.project.id}/issues/${issueId}${query}`, { cookie: team[who].cookie }), { id: team.project.id, issueId });
}

function listIssueTitles(team: Team, query: string, who: Who = "member") {
  return callRoute(listIssues, apiRequest(`/api/projects/${team.project.id}/issues${query}`, { cookie: team[who].cookie }), { id: team.project.id });
}

async function issueIdOf(projectId: string, title: string): Promise<string> {
  return (await prisma.issue.findFirstOrThrow({ where: { projectId, title }, select: { id: true } })).id;
}

/** The reference answer: counts per key and value of the seeds in [since, until), by the breakdown's rules for these fields. */
function expectedCounts(seeds: EventSeed[], since: number, until: number): Map<string, Map<string, number>> {
  const out = new Map<string, Map<string, number>>();
  const add = (key: string, value: string | undefined) => {
    if (!value) return;
    const values = out.get(key) ?? new Map<string, number>();
    values.set(value, (values.get(value) ?? 0) + 1);
    out.set(key, values);
  };
  for (const s of seeds) {
    const at = new Date(s.at).getTime();
    if (at < since || at >= until) continue;
    add("level", s.level ?? "info");
    add("environment", s.environment);
    add("release", s.release);
    add("user", s.user?.id ?? s.user?.email);
    for (const [k, v] of Object.entries(s.tags ?? {})) add(k, v);
  }
  return out;
}

function asCounts(tags: Tag[]): Map<string, Map<string, number>> {
  return new Map(tags.map((t) => [t.key, new Map(t.values.map((v) => [v.value, v.count]))]));
}

describe("splitTagWindow", () => {
  it("cuts a window into whole days, whole hours and the partial hours at its edges", () => {
    const d = Date.UTC(2026, 0, 10);
    expect(splitTagWindow(d + 22 * HOUR + 37 * MINUTE, d + 2 * DAY + 3 * HOUR + 12 * MINUTE)).toEqual({
      days: [{ from: d + DAY, to: d + 2 * DAY }],
      hours: [
        { from: d + 23 * HOUR, to: d + DAY },
        { from: d + 2 * DAY, to: d + 2 * DAY + 3 * HOUR },
      ],
      edges: [
        { from: d + 22 * HOUR + 37 * MINUTE, to: d + 23 * HOUR },
        { from: d + 2 * DAY + 3 * HOUR, to: d + 2 * DAY + 3 * HOUR + 12 * MINUTE },
      ],
    });
    // Within one hour: only the events.
    expect(splitTagWindow(d + 10 * MINUTE, d + 20 * MINUTE)).toEqual({ days: [], hours: [], edges: [{ from: d + 10 * MINUTE, to: d + 20 * MINUTE }] });
    // No upper bound: the last day (still filling) is read whole.
    expect(splitTagWindow(d + 30 * MINUTE, Infinity)).toEqual({
      days: [{ from: d + DAY, to: Infinity }],
      hours: [{ from: d + HOUR, to: d + DAY }],
      edges: [{ from: d + 30 * MINUTE, to: d + HOUR }],
    });
  });
});

describe("an issue's tag breakdown", () => {
  it("counts exactly over whole days, whole hours and the partial hours at both edges, and nothing outside the window", async () => {
    const team = await createTeam("tag-window");
    const d0 = Math.floor(Date.now() / DAY) * DAY - 3 * DAY;
    const at = (minutes: number) => new Date(d0 + minutes * MINUTE);
    const base = { level: "error" as const, message: "Checkout failed" };
    const seeds: EventSeed[] = [
      // Before the window, in the first edge's hour and day: not counted.
      { ...base, at: at(22 * 60 + 30), environment: "production", release: "0.9", user: { id: "u0" }, tags: { region: "eu" } },
      // The first edge (events).
      { ...base, at: at(22 * 60 + 40), environment: "production", release: "1.0", user: { id: "u1" }, tags: { region: "eu" } },
      // A whole hour at the end of the first day.
      { ...base, at: at(23 * 60 + 15), environment: "staging", release: "1.0", user: { email: "two@example.com" }, tags: { region: "us" } },
      // A whole day.
      ...[0, 1, 2].map((i): EventSeed => ({ ...base, at: at(30 * 60 + i), environment: "production", release: "1.1", user: { id: "u1" }, tags: { region: "eu" } })),
      // A whole hour of the last day.
      { ...base, at: at(49 * 60), environment: "production", release: "1.1", user: { id: "u3" }, tags: { region: "us" } },
      // The last edge (events).
      { ...base, at: at(51 * 60 + 5), environment: "staging", release: "1.1", user: { id: "u4" }, tags: { region: "eu" } },
      // At `until` and after: not counted.
      { ...base, at: at(51 * 60 + 12), environment: "production", release: "2.0", user: { id: "u5" }, tags: { region: "ap" } },
      { ...base, at: at(52 * 60), environment: "test", release: "2.1", user: { id: "u6" }, tags: { region: "ap" } },
    ];
    await seedEvents(team.project.id, seeds);
    const issueId = await issueIdOf(team.project.id, "Checkout failed");

    const since = d0 + 22 * HOUR + 37 * MINUTE;
    const until = d0 + 51 * HOUR + 12 * MINUTE;
    const res = await getIssueDetails(team, issueId, `?since=${new Date(since).toISOString()}&until=${new Date(until).toISOString()}`);
    expect(res.status).toBe(200);
    const expected = expectedCounts(seeds, since, until);
    expect(asCounts(res.body.tags)).toEqual(expected);
    expect(res.body.windowCount).toBe(7);
    expect(res.body.tagsExact).toBe(true);
    // Built-in keys first, in their order; the event's own after.
    expect(res.body.tags.map((t: Tag) => t.key)).toEqual(["level", "environment", "release", "user", "region"]);
    const environment = res.body.tags.find((t: Tag) => t.key === "environment") as Tag;
    expect(environment).toEqual({
      key: "environment",
      values: [
        { value: "production", count: 5, share: 0.7143 },
        { value: "staging", count: 2, share: 0.2857 },
      ],
      total: 7,
      otherCount: 0,
      distinctCount: 2,
      distinctCountEstimate: false,
    });
    expect(res.body).toMatchObject({
      environments: ["production", "staging"],
      // u1, two@example.com, u3, u4.
      usersAffected: 4,
      usersAffectedEstimate: false,
      // Ever, in the order releases were first seen.
      firstRelease: "0.9",
      lastRelease: "2.1",
      resolvedAt: null,
      resolvedIn: null,
      assignee: null,
    });

    // A window inside one hour is read from the events alone.
    const inside = await getIssueDetails(team, issueId, `?since=${at(22 * 60 + 35).toISOString()}&until=${at(22 * 60 + 45).toISOString()}`);
    expect(asCounts(inside.body.tags)).toEqual(expectedCounts(seeds, at(22 * 60 + 35).getTime(), at(22 * 60 + 45).getTime()));
    expect(inside.body.usersAffected).toBe(1);
  });

  it(`folds values past ${MAX_TAG_VALUES_PER_BUCKET} per hour into otherCount and says the distinct counts are estimates`, async () => {
    const team = await createTeam("tag-cap");
    const hour = Math.floor(Date.now() / HOUR) * HOUR - 3 * HOUR;
    const base = { level: "warn" as const, message: "Slow request", at: new Date(hour + 10 * MINUTE) };
    const distinct = MAX_TAG_VALUES_PER_BUCKET + 50;
    const seeds: EventSeed[] = [
      ...Array.from({ length: 5 }, (): EventSeed => ({ ...base, user: { id: "hot" }, tags: { request_id: "req-hot" } })),
      ...Array.from({ length: distinct }, (_, i): EventSeed => ({ ...base, user: { id: `user-${i}` }, tags: { request_id: `req-${i}` } })),
    ];
    await seedEvents(team.project.id, seeds);
    const issueId = await issueIdOf(team.project.id, "Slow request");

    const res = await getIssueDetails(team, issueId);
    expect(res.status).toBe(200);
    for (const key of ["user", "request_id"]) {
      const tag = res.body.tags.find((t: Tag) => t.key === key) as Tag;
      expect(tag.values).toHaveLength(TOP_TAG_VALUES);
      expect(tag.values[0]).toMatchObject({ count: 5 });
      expect(tag.total).toBe(distinct + 5);
      // Every event is counted: under a listed value or in otherCount.
      expect(tag.otherCount).toBe(distinct + 5 - tag.values.reduce((n, v) => n + v.count, 0));
      expect(tag.distinctCount).toBe(MAX_TAG_VALUES_PER_BUCKET);
      expect(tag.distinctCountEstimate).toBe(true);
    }
    expect(res.body).toMatchObject({ usersAffected: MAX_TAG_VALUES_PER_BUCKET, usersAffectedEstimate: true });
  });

  it("is the project's own: another project's access reads nothing of the issue, and an outsider gets 404", async () => {
    const team = await createTeam("tag-tenant");
    const other = await createTeam("tag-tenant-other");
    await seedEvents(team.project.id, [{ level: "error", message: "Secret outage", at: new Date(Date.now() - HOUR), environment: "production", tags: { customer: "acme" } }]);
    const issueId = await issueIdOf(team.project.id, "Secret outage");
    expect((await getIssueDetails(team, issueId, "", "outsider")).status).toBe(404);
    // The other project's member asking through their own project.
    const asOther = await callRoute(
      getIssue,
      apiRequest(`/api/projects/${other.project.id}/issues/${issueId}`, { cookie: other.owner.cookie }),
      { id: other.project.id, issueId },
    );
    expect(asOther.status).toBe(404);
    const otherAccess = await resolveProjectAccess(other.owner.user.id, other.project.id);
    expect(await issueTagBreakdown(otherAccess, issueId, { since: new Date(Date.now() - DAY), until: null })).toEqual({ tags: [], exact: true });
    expect((await listIssueTitles(other, "?tag=customer:acme", "owner")).body.issues).toEqual([]);
  });
});

describe("the issues list's environment, release and tag filters", () => {
  it("lists only issues with events of that environment, release or all of the tags in the window", async () => {
    const team = await createTeam("tag-filters");
    const recent = new Date(Date.now() - 2 * HOUR);
    await seedEvents(team.project.id, [
      { level: "error", message: "Alpha broke", at: recent, environment: "production", release: "1.0", tags: { region: "eu" } },
      { level: "error", message: "Beta broke", at: recent, environment: "staging", release: "2.0", tags: { region: "us" } },
      { level: "error", message: "Gamma broke", at: recent },
      // Long ago: outside the default window.
      { level: "error", message: "Beta broke", at: new Date(Date.now() - 3 * DAY), environment: "production", tags: { region: "eu" } },
    ]);
    const titles = async (query: string) => {
      const res = await listIssueTitles(team, query);
      expect(res.status).toBe(200);
      return (res.body.issues as { title: string }[]).map((i) => i.title).sort();
    };
    expect(await titles("")).toEqual(["Alpha broke", "Beta broke", "Gamma broke"]);
    expect(await titles("?environment=production")).toEqual(["Alpha broke"]);
    expect(await titles("?environment=production&since=" + new Date(Date.now() - 4 * DAY).toISOString())).toEqual(["Alpha broke", "Beta broke"]);
    expect(await titles("?release=2.0")).toEqual(["Beta broke"]);
    expect(await titles("?tag=region:us")).toEqual(["Beta broke"]);
    expect(await titles("?tag=region:eu&tag=region:us")).toEqual([]);
    expect(await titles("?tag=region:eu&environment=production")).toEqual(["Alpha broke"]);
    expect(await titles("?tag=level:error&release=1.0")).toEqual(["Alpha broke"]);

    const bad = await listIssueTitles(team, "?tag=nocolon&environment=");
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe("validation_failed");
    expect(bad.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(["environment", "tag"]);
    expect((await listIssueTitles(team, "?environment=production", "outsider")).status).toBe(404);
  });
});

describe("stored events' release, environment, tags and user", () => {
  it("are in the events API, and the events list filters by a tag as the breakdown counts it", async () => {
    const team = await createTeam("event-fields");
    const at = new Date(Date.now() - HOUR);
    const chrome = { contexts: { browser: { name: "Chrome", version: "131.0" } } };
    await seedEvents(team.project.id, [
      { level: "error", message: "Render failed", at, release: "web@1", environment: "production", tags: { region: "eu" }, user: { id: "42", email: "ada@example.com" }, context: chrome },
      { level: "error", message: "Render failed", at, release: "web@2", context: { contexts: { browser: { name: "Firefox" } } } },
    ]);
    const issueId = await issueIdOf(team.project.id, "Render failed");
    const events = async (query: string) =>
      (await callRoute(listEvents, apiRequest(`/api/projects/${team.project.id}/events?issueId=${issueId}${query}`, { cookie: team.member.cookie }), { id: team.project.id })).body;
    const all = await events("");
    expect(all.events.map((e: Record<string, unknown>) => ({ release: e.release, environment: e.environment, tags: e.tags, user: e.user })).sort((a: { release: string }, b: { release: string }) => a.release.localeCompare(b.release))).toEqual([
      { release: "web@1", environment: "production", tags: { region: "eu" }, user: { id: "42", email: "ada@example.com" } },
      { release: "web@2", environment: null, tags: null, user: null },
    ]);
    expect((await events(`&tag=${encodeURIComponent("browser:Chrome 131.0")}`)).events.map((e: { release: string }) => e.release)).toEqual(["web@1"]);
    expect((await events("&tag=browser:Firefox")).events.map((e: { release: string }) => e.release)).toEqual(["web@2"]);
    expect((await events("&tag=user:42&tag=region:eu")).events).toHaveLength(1);
    expect((await events("&tag=region:us")).events).toHaveLength(0);
    expect((await events("&tag=level:error")).events).toHaveLength(2);
  });
});
