/**
 * Release, environment, tags and user on native events: stored with the
 * event, counted per issue, key and value (hour and day), releases numbered
 * in the order they were first seen, and a tag that takes a new value on
 * every event folded past the bound instead of growing the tables.
 */
import { describe, expect, it } from "vitest";
import { prisma } from "@/lib/db/client";
import { MAX_TAG_VALUES_PER_BUCKET } from "@/lib/issues/ingest-sql";
import { settleTagCounts } from "@/lib/issues/tag-backlog";
import { makeProject, sendBatch, sendEvent } from "@/tests/helpers/ingest";

type TagRow = { key: string; value: string; count: number };

async function tagCounts(issueId: string, table: "issue_tag_hours" | "issue_tag_days"): Promise<TagRow[]> {
  await settleTagCounts(); // as every reader of the tables does
  const rows =
    table === "issue_tag_hours"
      ? await prisma.issueTagHourCount.findMany({ where: { issueId }, select: { key: true, value: true, count: true } })
      : await prisma.issueTagDayCount.findMany({ where: { issueId }, select: { key: true, value: true, count: true } });
  // Summed over buckets: a test may straddle an hour.
  const sums = new Map<string, TagRow>();
  for (const r of rows) {
    const k = `${r.key}\u0000${r.value}`;
    const row = sums.get(k) ?? { key: r.key, value: r.value, count: 0 };
    row.count += r.count;
    sums.set(k, row);
  }
  return [...sums.values()].sort((a, b) => a.key.localeCompare(b.key) || a.value.localeCompare(b.value));
}

describe("release, environment, tags and user", () => {
  it("stores them with the event and counts every built-in and own tag per issue, exactly, by hour and by day", async () => {
    const p = await makeProject("tags");
    const base = { level: "error", message: "Payment declined for order 1234", projectId: p.id };
    const sent = [
      { ...base, release: "web@1.0.0", environment: "production", tags: { region: "eu" }, user: { id: "u1", email: "a@example.com" } },
      { ...base, release: "web@1.0.0", environment: "production", tags: { region: "us" }, user: { email: "b@example.com" } },
      { ...base, release: "web@1.1.0", environment: "staging", tags: { region: "eu" }, user: { ip_address: "203.0.113.7" } },
      // Sentry-style contexts and request in the context give browser, os, url and transaction.
      {
        ...base,
        context: { contexts: { browser: { name: "Chrome", version: "131.0" }, os: { name: "Linux" } }, request: { url: "https://shop.example/cart?id=9" }, transaction: "/cart" },
      },
    ];
    const answer = await sendBatch(p.apiKey, { events: sent });
    expect(answer.status).toBe(201);

    const stored = await prisma.event.findMany({ where: { projectId: p.id }, select: { release: true, environment: true, tags: true, user: true, issueId: true } });
    const byJson = (a: unknown, b: unknown) => JSON.stringify(a).localeCompare(JSON.stringify(b));
    expect(stored.map(({ release, environment, tags, user }) => ({ release, environment, tags, user })).sort(byJson)).toEqual([
      { release: "web@1.0.0", environment: "production", tags: { region: "eu" }, user: { id: "u1", email: "a@example.com" } },
      { release: "web@1.0.0", environment: "production", tags: { region: "us" }, user: { email: "b@example.com" } },
      { release: "web@1.1.0", environment: "staging", tags: { region: "eu" }, user: { ip_address: "203.0.113.7" } },
      { release: null, environment: null, tags: null, user: null },
    ].sort(byJson));
    const issueId = stored[0]!.issueId!;
    expect(new Set(stored.map((e) => e.issueId))).toEqual(new Set([issueId]));

    const expected: TagRow[] = [
      { key: "browser", value: "Chrome 131.0", count: 1 },
      { key: "environment", value: "production", count: 2 },
      { key: "environment", value: "staging", count: 1 },
      { key: "os", value: "Linux", count: 1 },
      { key: "region", value: "eu", count: 2 },
      { key: "region", value: "us", count: 1 },
      { key: "release", value: "web@1.0.0", count: 2 },
      { key: "release", value: "web@1.1.0", count: 1 },
      { key: "transaction", value: "/cart", count: 1 },
      { key: "url", value: "https://shop.example/cart", count: 1 },
      // The user tag: id, else email, else IP address.
      { key: "user", value: "203.0.113.7", count: 1 },
      { key: "user", value: "b@example.com", count: 1 },
      { key: "user", value: "u1", count: 1 },
    ];
    expect(await tagCounts(issueId, "issue_tag_hours")).toEqual(expected);
    expect(await tagCounts(issueId, "issue_tag_days")).toEqual(expected);

    // A second request adds to the same rows.
    expect((await sendEvent(p.apiKey, { ...base, environment: "production" })).status).toBe(201);
    expect((await tagCounts(issueId, "issue_tag_hours")).find((r) => r.key === "environment" && r.value === "production")!.count).toBe(3);
  });

  it("numbers a project's releases in the order they were first seen, and records each issue's first and last release", async () => {
    const p = await makeProject("releases");
    const event = (release: string, message: string) => ({ level: "error", message, projectId: p.id, release });
    expect((await sendBatch(p.apiKey, { events: [event("2.0.0", "A broke"), event("1.9.0", "A broke")] })).status).toBe(201);
    expect((await sendEvent(p.apiKey, event("2.1.0", "B broke"))).status).toBe(201);
    expect((await sendEvent(p.apiKey, event("2.0.0", "B broke"))).status).toBe(201);
    const releases = await prisma.release.findMany({ where: { projectId: p.id }, orderBy: { seq: "asc" }, select: { version: true, seq: true } });
    // One request's new releases are numbered by their first event's time, then name.
    expect(releases).toEqual([
      { version: "1.9.0", seq: 1 },
      { version: "2.0.0", seq: 2 },
      { version: "2.1.0", seq: 3 },
    ]);
    const seqOf = (v: string) => releases.find((r) => r.version === v)!.seq;
    const issues = await prisma.issue.findMany({ where: { projectId: p.id }, select: { title: true, firstReleaseSeq: true, lastReleaseSeq: true } });
    const a = issues.find((i) => i.title === "A broke")!;
    const b = issues.find((i) => i.title === "B broke")!;
    expect([a.firstReleaseSeq, a.lastReleaseSeq]).toEqual([Math.min(seqOf("1.9.0"), seqOf("2.0.0")), Math.max(seqOf("1.9.0"), seqOf("2.0.0"))]);
    expect([b.firstReleaseSeq, b.lastReleaseSeq]).toEqual([seqOf("2.0.0"), seqOf("2.1.0")]);
  });

  it("keeps in a day what its hours kept: a day's rows are the sum of its hours' rows", async () => {
    const p = await makeProject("tag-day-sum");
    const yesterday = new Date(Date.now() - 86_400_000);
    const hourStart = (h: number) => Date.UTC(yesterday.getUTCFullYear(), yesterday.getUTCMonth(), yesterday.getUTCDate(), h, 5);
    // Two hours of one day, each with as many new values as an hour keeps.
    const events = [10, 11].flatMap((h) =>
      Array.from({ length: MAX_TAG_VALUES_PER_BUCKET }, (_, i) => ({
        level: "warn",
        message: "Slow request",
        projectId: p.id,
        timestamp: new Date(hourStart(h) + i * 1000).toISOString(),
        tags: { request_id: `h${h}-req-${i}` },
      })),
    );
    expect((await sendBatch(p.apiKey, { events })).status).toBe(201);
    const issue = await prisma.issue.findFirstOrThrow({ where: { projectId: p.id }, select: { id: true } });
    const hours = (await tagCounts(issue.id, "issue_tag_hours")).filter((r) => r.key === "request_id");
    expect(hours).toHaveLength(2 * MAX_TAG_VALUES_PER_BUCKET);
    expect(hours.find((r) => r.value === "")).toBeUndefined();
    expect((await tagCounts(issue.id, "issue_tag_days")).filter((r) => r.key === "request_id")).toEqual(hours);
  });

  it(`keeps at most ${MAX_TAG_VALUES_PER_BUCKET} values of a tag per issue and bucket, and counts the rest under ""`, async () => {
    const p = await makeProject("tag-cap");
    const total = MAX_TAG_VALUES_PER_BUCKET + 50;
    const events = Array.from({ length: total }, (_, i) => ({ level: "warn", message: "Slow request", projectId: p.id, tags: { request_id: `req-${i}` } }));
    // A frequent value first, so that it is the one kept whatever the order of admission.
    events.push(...Array.from({ length: 5 }, () => ({ level: "warn", message: "Slow request", projectId: p.id, tags: { request_id: "req-hot" } })));
    expect((await sendBatch(p.apiKey, { events: events.slice(0, 500) })).status).toBe(201);
    const issue = await prisma.issue.findFirstOrThrow({ where: { projectId: p.id }, select: { id: true } });
    const rows = await tagCounts(issue.id, "issue_tag_hours");
    const kept = rows.filter((r) => r.value !== "");
    const other = rows.find((r) => r.value === "");
    expect(kept).toHaveLength(MAX_TAG_VALUES_PER_BUCKET);
    expect(kept.find((r) => r.value === "req-hot")!.count).toBe(5);
    // Exact all the same: every event is counted, under its value or under "".
    expect(rows.reduce((n, r) => n + r.count, 0)).toBe(total + 5);
    expect(other!.count).toBe(total + 5 - kept.reduce((n, r) => n + r.count, 0));

    // Later events of a kept value still count under it; a new value goes to "".
    await sendEvent(p.apiKey, { level: "warn", message: "Slow request", projectId: p.id, tags: { request_id: "req-hot" } });
    await sendEvent(p.apiKey, { level: "warn", message: "Slow request", projectId: p.id, tags: { request_id: "req-new" } });
    const after = await tagCounts(issue.id, "issue_tag_hours");
    expect(after.find((r) => r.value === "req-hot")!.count).toBe(6);
    expect(after.find((r) => r.value === "req-new")).toBeUndefined();
    expect(after.find((r) => r.value === "")!.count).toBe(other!.count + 1);
  });
});
