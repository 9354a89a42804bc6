/**
 * The client's queue, batching and retries, against a fake fetch and a fake
 * clock: nothing here waits on real time.
 */
import { describe, expect, it } from "vitest";
import { createClient } from "@/packages/client/src/index";
import type { ClientOptions, ClientProblem } from "@/packages/client/src/types";
import { FakeClock, FakeFetch, settle } from "@/tests/helpers/client-fakes";

function setup(options: Partial<ClientOptions> = {}) {
  const clock = new FakeClock();
  const server = new FakeFetch();
  const problems: ClientProblem[] = [];
  const client = createClient({
    url: "https://telltale.example",
    apiKey: "tlt_test",
    projectId: "proj_1",
    fetch: server.fetch,
    clock,
    random: () => 0.5,
    flushOnExit: false,
    onError: (p) => problems.push(p),
    ...options,
  });
  return { clock, server, client, problems };
}

const ok = (call: { respond: (status: number) => void }) => call.respond(201);

describe("batching", () => {
  it("waits flushIntervalMs for a batch to fill, then sends what it has to /api/events/batch", async () => {
    const { clock, server, client } = setup({ flushIntervalMs: 1_000 });
    server.auto = ok;
    client.info("one");
    client.warn("two", { n: 2 });
    await clock.advance(999);
    expect(server.calls).toHaveLength(0);
    await clock.advance(1);
    expect(server.calls).toHaveLength(1);
    const call = server.calls[0]!;
    expect(call.url).toBe("https://telltale.example/api/events/batch");
    expect(call.headers.authorization).toBe("Bearer tlt_test");
    expect(call.headers["content-type"]).toBe("application/json");
    expect(call.events.map((e) => [e.level, e.message, e.projectId])).toEqual([
      ["info", "one", "proj_1"],
      ["warn", "two", "proj_1"],
    ]);
    expect(call.events[1]!.context).toEqual({ n: 2 });
    expect(call.events[0]!.timestamp).toBe(new Date(1_800_000_000_000).toISOString());
    expect(client.stats()).toMatchObject({ sent: 2, pending: 0 });
  });

  it("sends a full batch at once, never more than maxBatchEvents (capped at the server's 1,000)", async () => {
    const { server, client } = setup({ maxBatchEvents: 5_000, flushIntervalMs: 60_000 });
    server.auto = ok;
    for (let i = 0; i < 2_500; i++) client.info(`event ${i}`);
    await settle();
    expect(await client.flush()).toBe(true);
    expect(server.calls.map((c) => c.events.length)).toEqual([1_000, 1_000, 500]);
    expect(server.calls.flatMap((c) => c.events.map((e) => e.message))).toEqual(Array.from({ length: 2_500 }, (_, i) => `event ${i}`));
  });

  it("keeps each request body within maxBatchBytes (default under the server's 1 MiB)", async () => {
    const { server, client } = setup();
    server.auto = ok;
    for (let i = 0; i < 40; i++) client.info(`big ${i}`, { blob: "x".repeat(100_000) });
    expect(await client.flush()).toBe(true);
    expect(server.calls.length).toBeGreaterThan(1);
    for (const call of server.calls) expect(call.bodyBytes).toBeLessThanOrEqual(1_000_000);
    expect(server.calls.reduce((n, c) => n + c.events.length, 0)).toBe(40);
  });

  it("flush() resolves only when the server has acknowledged everything queued before it", async () => {
    const { server, client } = setup();
    client.info("a");
    let flushed: boolean | undefined;
    void client.flush().then((v) => (flushed = v));
    const call = await server.call(0);
    await settle();
    expect(flushed).toBeUndefined();
    call.respond(201);
    await settle();
    expect(flushed).toBe(true);
  });

  it("flush({ timeoutMs }) resolves false when the server does not answer in time, and the events stay queued", async () => {
    const { clock, server, client } = setup();
    client.info("a");
    const flushed = client.flush({ timeoutMs: 100 });
    await server.call(0);
    await clock.advance(100);
    expect(await flushed).toBe(false);
    expect(client.stats().pending).toBe(1);
  });
});

describe("retries", () => {
  it("retries 503, 429, 500 and network errors with the SAME Idempotency-Key, honouring Retry-After", async () => {
    const { clock, server, client } = setup();
    client.error("boom");
    const flushed = client.flush();
    (await server.call(0)).respond(503, { "retry-after": "7" });
    await settle();
    // Retry-After: 7 s, never earlier (plus up to 10% jitter).
    expect(clock.pendingDelays()).toContain(7_350);
    await clock.advance(7_349);
    expect(server.calls).toHaveLength(1);
    await clock.advance(1);
    (await server.call(1)).respond(429, { "retry-after": "2" });
    await clock.advance(2_100);
    (await server.call(2)).fail(new TypeError("fetch failed"));
    await settle();
    // Third failure, no Retry-After: 500 ms * 2^2 = 2 s cap, half of it fixed, half jitter (0.5).
    expect(clock.pendingDelays()).toContain(1_500);
    await clock.advance(1_500);
    (await server.call(3)).respond(500);
    await clock.advance(5_000);
    (await server.call(4)).respond(201);
    expect(await flushed).toBe(true);
    const keys = server.calls.map((c) => c.headers["idempotency-key"]);
    expect(new Set(keys).size).toBe(1);
    expect(keys[0]).toMatch(/^[\x21-\x7e]{1,200}$/);
    expect(client.stats()).toMatchObject({ sent: 1, retries: 4 });
  });

  it("backs off exponentially with jitter when there is no Retry-After", async () => {
    const delays: number[] = [];
    const { clock, server, client } = setup({ retryDelayMs: 100, maxRetryDelayMs: 1_000, maxAttempts: 7, random: () => 1 - Number.EPSILON });
    server.auto = (call) => call.fail();
    client.info("x");
    const flushed = client.flush();
    for (let i = 0; i < 6; i++) {
      await settle();
      const [delay] = clock.pendingDelays();
      delays.push(delay!);
      await clock.advance(delay!);
    }
    expect(delays).toEqual([100, 200, 400, 800, 1_000, 1_000]);
    expect(await flushed).toBe(false);
  });

  it("gives up after maxAttempts, counts the events as retries_exhausted and says so through onError", async () => {
    const { clock, server, client, problems } = setup({ maxAttempts: 3 });
    server.auto = (call) => call.respond(503);
    client.info("a");
    client.info("b");
    const flushed = client.flush();
    await clock.advance(60_000);
    expect(await flushed).toBe(false);
    expect(server.calls).toHaveLength(3);
    expect(client.stats().dropped.retries_exhausted).toBe(2);
    expect(problems).toContainEqual(expect.objectContaining({ reason: "retries_exhausted", events: 2, status: 503 }));
  });

  it("retries a request that times out (requestTimeoutMs) with the same key", async () => {
    const { clock, server, client } = setup({ requestTimeoutMs: 5_000 });
    client.info("slow");
    const flushed = client.flush();
    await server.call(0);
    await clock.advance(5_000 + 1_000);
    (await server.call(1)).respond(201);
    expect(await flushed).toBe(true);
    expect(server.calls[1]!.headers["idempotency-key"]).toBe(server.calls[0]!.headers["idempotency-key"]);
  });

  it("does not retry other 4xx: the batch is dropped, counted and reported with the server's code", async () => {
    const { server, client, problems } = setup();
    server.auto = (call) => call.respond(401, {}, { code: "invalid_api_key", title: "Invalid API key" });
    client.info("a");
    expect(await client.flush()).toBe(false);
    expect(server.calls).toHaveLength(1);
    expect(client.stats().dropped.rejected).toBe(1);
    expect(problems).toContainEqual(expect.objectContaining({ reason: "rejected", status: 401, code: "invalid_api_key", events: 1 }));
  });

  it("a 400 naming some events drops those and sends the rest as a new batch", async () => {
    const { server, client, problems } = setup();
    server.auto = (call) => {
      if (server.calls.length === 1) call.respond(400, {}, { code: "validation_failed", errors: [{ path: "events.1.tags", message: "Unrecognized key" }] });
      else call.respond(201);
    };
    client.info("good 0");
    client.info("bad 1");
    client.info("good 2");
    expect(await client.flush()).toBe(false);
    expect(server.calls.map((c) => c.events.map((e) => e.message))).toEqual([["good 0", "bad 1", "good 2"], ["good 0", "good 2"]]);
    expect(server.calls[1]!.headers["idempotency-key"]).not.toBe(server.calls[0]!.headers["idempotency-key"]);
    expect(client.stats()).toMatchObject({ sent: 2, dropped: expect.objectContaining({ rejected: 1 }) });
    expect(problems).toContainEqual(expect.objectContaining({ reason: "rejected", events: 1, code: "validation_failed" }));
  });

  it("a 413 makes batches smaller from then on; a single event refused as too large is dropped", async () => {
    const { server, client } = setup();
    server.auto = (call) => (call.bodyBytes > 30_000 ? call.respond(413, {}, { code: "payload_too_large" }) : call.respond(201));
    for (let i = 0; i < 8; i++) client.info(`e${i}`, { blob: "y".repeat(10_000) });
    client.info("huge", { blob: "z".repeat(50_000) });
    await client.flush();
    const stored = server.calls.filter((c) => c.bodyBytes <= 30_000).flatMap((c) => c.events.map((e) => e.message));
    expect(stored).toEqual(["e0", "e1", "e2", "e3", "e4", "e5", "e6", "e7"]);
    expect(client.stats().dropped.too_large).toBe(1);
  });

  it("treats a redirect as a misconfigured url, not a success", async () => {
    const { server, client } = setup();
    server.auto = (call) => call.respond(307, { location: "/sign-in" });
    client.info("a");
    expect(await client.flush()).toBe(false);
    expect(client.stats().dropped.rejected).toBe(1);
  });
});

describe("bounds and shutdown", () => {
  it("drops what does not fit the queue, and counts it", async () => {
    const { client, problems } = setup({ maxQueueEvents: 3, flushIntervalMs: 60_000 });
    for (let i = 0; i < 5; i++) client.info(`e${i}`);
    expect(client.stats()).toMatchObject({ pending: 3, dropped: expect.objectContaining({ queue_full: 2 }) });
    expect(problems.filter((p) => p.reason === "queue_full")).toHaveLength(2);
  });

  it("close() sends what is pending, then drops later events as closed", async () => {
    const { server, client } = setup();
    server.auto = ok;
    client.info("before");
    expect(await client.close()).toBe(true);
    client.info("after");
    expect(server.calls.flatMap((c) => c.events.map((e) => e.message))).toEqual(["before"]);
    expect(client.stats().dropped.closed).toBe(1);
  });

  it("close() gives up after its timeout: what is still pending is dropped and counted, nothing hangs", async () => {
    const { clock, server, client } = setup();
    server.auto = (call) => call.respond(503);
    client.info("a");
    const closed = client.close({ timeoutMs: 1_000 });
    await clock.advance(1_000);
    expect(await closed).toBe(false);
    await settle();
    expect(client.stats()).toMatchObject({ pending: 0, dropped: expect.objectContaining({ closed: 1 }) });
  });
});

describe("never throws into the application", () => {
  it("takes any input: cycles, BigInt, throwing getters, revoked proxies, symbols", async () => {
    const { server, client, problems } = setup();
    server.auto = ok;
    const cyclic: Record<string, unknown> = { name: "loop" };
    cyclic.self = cyclic;
    const getter = Object.defineProperty({}, "bad", { enumerable: true, get: () => { throw new Error("getter"); } });
    const { proxy, revoke } = Proxy.revocable({}, {});
    revoke();
    const inputs: unknown[] = [cyclic, 10n, getter, proxy, Symbol("s"), () => 1, undefined, null, [1, [2, [3]]], new Map([["k", 1]]), new Date(NaN)];
    expect(() => {
      for (const input of inputs) {
        client.info(input);
        client.error("with context", input);
        client.captureException(input);
        client.log(input as string, input);
      }
      client.info("x", undefined, { tags: proxy as never, user: proxy as never, timestamp: proxy as never, fingerprint: proxy as never });
    }).not.toThrow();
    expect(await client.flush()).toBe(true);
    const events = server.calls.flatMap((c) => c.events);
    expect(events.length).toBeGreaterThanOrEqual(inputs.length * 4);
    expect(events.find((e) => (e.context as { self?: { self?: unknown } } | undefined)?.self?.self === "[Circular]")).toBeDefined();
    expect(problems.filter((p) => p.reason === "internal")).toEqual([]);
  });

  it("bad options give a client that drops and reports, and a fetch or onError that throws changes nothing", async () => {
    const problems: ClientProblem[] = [];
    const unconfigured = createClient({ url: "not a url", projectId: "p", onError: (p) => problems.push(p), flushOnExit: false });
    expect(() => unconfigured.info("x")).not.toThrow();
    expect(unconfigured.stats().dropped.not_configured).toBe(1);
    expect(problems[0]).toMatchObject({ reason: "not_configured" });
    expect(() => createClient(undefined as never).error("x")).not.toThrow();

    const throwing = createClient({
      url: "https://t.example",
      projectId: "p",
      flushOnExit: false,
      maxAttempts: 2,
      retryDelayMs: 1,
      fetch: () => {
        throw new Error("sync throw");
      },
      onError: () => {
        throw new Error("hook throws");
      },
    });
    throwing.info("x");
    expect(await throwing.flush()).toBe(false);
    expect(throwing.stats().dropped.retries_exhausted).toBe(1);
  });
});
