/**
 * The client library against a real Telltale server (the real batch route on
 * the test database) behind a fault switch: 429 and 503 with Retry-After, an
 * answer lost after the commit, a server that is down for a while. Nothing
 * acknowledged is lost, nothing is stored twice, and the application never
 * sees an exception.
 */
import http from "node:http";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createClient } from "@/packages/client/src/index";
import type { ClientProblem, Clock } from "@/packages/client/src/types";
import { prisma } from "@/lib/db/client";
import { freePort } from "@/tests/helpers/free-port";
import { startIngestHttp, type IngestHttp } from "@/tests/helpers/ingest-http";
import { makeProject } from "@/tests/helpers/ingest";
import { POST as postBatch } from "@/app/api/events/batch/route";

/**
 * Real timers, each cut to a few milliseconds, that remember the delay the
 * client asked for: Retry-After is checked without waiting it out.
 */
function quickClock() {
  const asked: number[] = [];
  const clock: Clock = {
    now: () => Date.now(),
    setTimeout(callback, ms) {
      // Request deadlines (15 s) stay as they are: only waits are cut.
      if (ms >= 10_000) return setTimeout(callback, ms);
      asked.push(ms);
      return setTimeout(callback, Math.min(ms, 5));
    },
    clearTimeout(handle) {
      clearTimeout(handle as NodeJS.Timeout);
    },
  };
  return { clock, asked };
}

async function storedMessages(projectId: string) {
  const rows = await prisma.event.findMany({ where: { projectId }, select: { message: true } });
  return rows.map((r) => r.message);
}

const unhandled: unknown[] = [];
const onUnhandled = (reason: unknown) => unhandled.push(reason);
beforeEach(() => {
  unhandled.length = 0;
  process.on("unhandledRejection", onUnhandled);
});
afterEach(() => {
  process.off("unhandledRejection", onUnhandled);
  expect(unhandled).toEqual([]);
});

describe("through faults in front of the real server", () => {
  let server: IngestHttp;
  beforeAll(async () => {
    server = await startIngestHttp();
  });
  afterAll(() => server.close());

  it("429, a lost answer, 503 and refused connections: every event stored exactly once, each batch under one key", async () => {
    const project = await makeProject("client-faults");
    let refused = 0;
    server.setFault(({ index }) => {
      if (index === 1) return { status: 429, retryAfter: "1" };
      if (index === 2) return "lose-answer";
      if (index === 4) return { status: 503, retryAfter: "2" };
      if (index >= 6 && refused < 3) {
        refused++;
        return "refuse";
      }
      return "pass";
    });
    const { clock, asked } = quickClock();
    const problems: ClientProblem[] = [];
    const client = createClient({
      url: server.url,
      apiKey: project.apiKey,
      projectId: project.id,
      maxBatchEvents: 10,
      retryDelayMs: 50,
      maxAttempts: 10,
      flushOnExit: false,
      clock,
      onError: (p) => problems.push(p),
    });
    const messages = Array.from({ length: 50 }, (_, i) => `fault run event ${i}`);
    expect(() => messages.forEach((m, i) => (i % 5 === 0 ? client.captureException(new Error(m)) : client.info(m, { i })))).not.toThrow();
    expect(await client.flush()).toBe(true);

    expect(problems).toEqual([]);
    expect(client.stats()).toMatchObject({ sent: 50, pending: 0, dropped: { queue_full: 0, too_large: 0, rejected: 0, retries_exhausted: 0, closed: 0, exit_timeout: 0, not_configured: 0 } });
    // Nothing lost, nothing twice.
    const stored = await storedMessages(project.id);
    expect(stored.sort()).toEqual(messages.map((m, i) => (i % 5 === 0 ? `Error: ${m}` : m)).sort());

    // Retry-After honoured (1 s after the 429, 2 s after the 503), never sooner.
    expect(asked.some((ms) => ms >= 1_000 && ms <= 1_100)).toBe(true);
    expect(asked.some((ms) => ms >= 2_000 && ms <= 2_200)).toBe(true);

    // Each batch kept its Idempotency-Key across retries; the batch whose
    // answer was lost was sent again under its key and replayed, not stored again.
    const lost = server.requests[2]!;
    expect(lost.status).toBe(201);
    // That batch: 429, then the lost answer, then the replay.
    const sameKey = server.requests.filter((r) => r.idempotencyKey === lost.idempotencyKey);
    expect(sameKey.map((r) => (typeof r.fault === "object" ? r.fault.status : r.fault))).toEqual([429, "lose-answer", "pass"]);
    expect(sameKey[2]!.status).toBe(201);
    const keys = new Set(server.requests.map((r) => r.idempotencyKey));
    expect(keys.size).toBe(5);
    const claimed = await prisma.idempotencyKey.findMany({ where: { projectId: project.id } });
    expect(claimed.map((k) => k.key).sort()).toEqual(Array.from(keys, (k) => `batch:${k}`).sort());
    for (const key of keys) {
      const attempts = server.requests.filter((r) => r.idempotencyKey === key);
      expect(new Set(attempts.map((r) => r.events))).toEqual(new Set([10]));
    }
  });

  it("a wrong key is not retried: dropped, counted and reported, never thrown", async () => {
    const project = await makeProject("client-badkey");
    server.setFault(() => "pass");
    const problems: ClientProblem[] = [];
    const before = server.requests.length;
    const client = createClient({ url: server.url, apiKey: "tlt_wrong", projectId: project.id, flushOnExit: false, onError: (p) => problems.push(p) });
    client.error("never stored");
    expect(await client.flush()).toBe(false);
    expect(server.requests.length - before).toBe(1);
    expect(problems).toEqual([expect.objectContaining({ reason: "rejected", status: 401, code: "invalid_api_key", events: 1 })]);
    expect(await storedMessages(project.id)).toEqual([]);
  });

  it("release, environment, tags and user: the client's defaults and a call's own are stored with the event", async () => {
    const project = await makeProject("client-fields");
    server.setFault(() => "pass");
    const problems: ClientProblem[] = [];
    const client = createClient({
      url: server.url,
      apiKey: project.apiKey,
      projectId: project.id,
      flushOnExit: false,
      onError: (p) => problems.push(p),
      release: "shop@2.4.1",
      environment: "production",
      tags: { region: "eu", host: "a1" },
      user: { id: "u-default" },
    });
    client.info("defaults only");
    client.error("per call", { orderId: 9 }, { release: "shop@2.5.0", tags: { region: "us", flow: "checkout" }, user: { email: "buyer@example.test" }, fingerprint: ["checkout"] });
    expect(await client.flush()).toBe(true);
    expect(problems).toEqual([]);
    const rows = await prisma.event.findMany({ where: { projectId: project.id }, select: { message: true, release: true, environment: true, tags: true, user: true } });
    const byMessage = new Map(rows.map((r) => [r.message, r]));
    expect(byMessage.get("defaults only")).toMatchObject({ release: "shop@2.4.1", environment: "production", tags: { region: "eu", host: "a1" }, user: { id: "u-default" } });
    expect(byMessage.get("per call")).toMatchObject({ release: "shop@2.5.0", environment: "production", tags: { region: "us", host: "a1", flow: "checkout" }, user: { email: "buyer@example.test" } });
  });
});

describe("a server that is down for a while", () => {
  it("keeps the events while nothing listens, and delivers them all once the server is up", async () => {
    const project = await makeProject("client-down");
    const port = await freePort();
    const { clock, asked } = quickClock();
    const client = createClient({ url: `http://127.0.0.1:${port}`, apiKey: project.apiKey, projectId: project.id, retryDelayMs: 20, maxRetryDelayMs: 40, maxAttempts: 1_000, flushOnExit: false, clock });
    for (let i = 0; i < 25; i++) client.warn(`while down ${i}`);
    const flushed = client.flush();
    // Wait until the client has been refused a few times.
    while (asked.filter((ms) => ms <= 40).length < 3) await new Promise((resolve) => setImmediate(resolve));
    expect(client.stats().sent).toBe(0);

    const server = http.createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const chunk of req) chunks.push(chunk as Buffer);
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers.set(name, value);
      const response = await postBatch(new Request(`http://127.0.0.1${req.url}`, { method: "POST", headers, body: Buffer.concat(chunks) }), { params: Promise.resolve({}) });
      res.writeHead(response.status, Object.fromEntries(response.headers));
      res.end(Buffer.from(await response.arrayBuffer()));
    });
    await new Promise<void>((resolve) => server.listen(port, "127.0.0.1", resolve));
    try {
      expect(await flushed).toBe(true);
      expect((await storedMessages(project.id)).sort()).toEqual(Array.from({ length: 25 }, (_, i) => `while down ${i}`).sort());
      expect(client.stats()).toMatchObject({ sent: 25, pending: 0 });
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
