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
    const answers = [];
    for (let i = 0; i < 12; i++) answers.push(await sendEvent(p.apiKey, event(p.id)));
    const statuses = answers.map((a) => a.status);
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(201));
    const limited = answers[10]!;
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
    for (let i = 0; i < 10; i++) {
      const { status } = await sendBatch(p.apiKey, { events: Array(50).fill(event(p.id)) });
      expect(status).toBe(201);
    }
    expect((await sendBatch(p.apiKey, { events: [event(p.id)] })).status).toBe(429);
    expect(await countEvents(p.id)).toBe(500);
  });
});
