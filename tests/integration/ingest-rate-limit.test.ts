import { setEnv } from "@/tests/helpers/env";
import { describe, expect, it } from "vitest";
import { countEvents, makeProject, sendBatch, sendEvent } from "@/tests/helpers/ingest";

// The limiter reads INGEST_RATE_LIMIT once; this file runs in its own worker.
setEnv("INGEST_RATE_LIMIT", "5");

const event = (projectId: string) => ({ level: "info", message: "tick", projectId });

describe("per-key rate limit", () => {
  it("allows a burst of twice the rate, then 429 with Retry-After and RateLimit-* headers", async () => {
    const p = await makeProject();
    const other = await makeProject();
    // All at once: the limit is taken before any database work, so however
    // slow the machine stores the events, the twelve fall in one window.
    const answers = await Promise.all(Array.from({ length: 12 }, () => sendEvent(p.apiKey, event(p.id))));
    const statuses = answers.map((a) => a.status);
    expect(statuses.filter((s) => s === 201)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(2);
    const limited = answers.find((a) => a.status === 429)!;
    expect(limited.status).toBe(429);
    expect(limited.body.code).toBe("rate_limited");
    expect(Number(limited.res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(limited.res.headers.get("ratelimit-limit")).toBe("5");
    expect(limited.res.headers.get("ratelimit-remaining")).toBe("0");
    expect(limited.res.headers.get("ratelimit-reset")).toMatch(/^\d+$/);
    expect(await countEvents(p.id)).toBe(10);
    // Another key is not affected.
    expect((await sendEvent(other.apiKey, event(other.id))).status).toBe(201);
  });

  it("counts a batch as one request", async () => {
    const p = await makeProject();
    const answers = await Promise.all(Array.from({ length: 11 }, (_, i) => sendBatch(p.apiKey, { events: Array(i < 10 ? 50 : 1).fill(event(p.id)) })));
    const statuses = answers.map((a) => a.status).sort();
    expect(statuses).toEqual([...Array(10).fill(201), 429]);
    // Whichever request was refused, what was stored is the other ten whole.
    const stored = await countEvents(p.id);
    expect([500, 451]).toContain(stored);
  });
});
