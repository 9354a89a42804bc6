import { setEnv } from "@/tests/helpers/env";
import { afterAll, beforeAll, describe, expect, inject, it } from "vitest";
import { GET as live } from "@/app/api/health/live/route";
import { GET as ready } from "@/app/api/health/ready/route";
import { GET as listEventsRoute } from "@/app/api/projects/[id]/events/route";
import { disconnectDb } from "@/lib/db/client";
import { startTcpProxy, type TcpProxy } from "@/tests/helpers/tcp-proxy";
import { startEphemeralPostgres } from "@/tools/db/embedded";
import { applyMigrations } from "@/tools/db/migrate";
import { apiRequest, callRoute, createUserWithSession } from "@/tests/helpers/session";

/**
 * The app reaches PostgreSQL through a TCP proxy the test can cut (a database
 * that went away) and stall (a frozen database: connections stay open and
 * nothing comes back). Every request must end with 503 and Retry-After while
 * the database is away, on its own deadline, and the service must recover
 * without a restart.
 */
const noParams = { params: Promise.resolve({}) };
let proxy: TcpProxy;
let realUrl: string;
let stopOwnDatabase = async () => {};

beforeAll(async () => {
  realUrl = process.env.DATABASE_URL!;
  let target = realUrl;
  // The embedded database serves one transaction at a time for every
  // connection: a frozen one would freeze the other test files too. This file
  // gets a PGlite of its own there.
  if (inject("databaseKind") === "embedded") {
    const own = await startEphemeralPostgres();
    stopOwnDatabase = () => own.stop();
    await applyMigrations(own.url);
    target = own.url;
  }
  const real = new URL(target);
  proxy = await startTcpProxy({ host: real.hostname, port: Number(real.port || 5432) });
  const viaProxy = new URL(real);
  viaProxy.hostname = "127.0.0.1";
  viaProxy.port = String(proxy.port);
  // The variables before the pool goes: a pool opened from now on gets them.
  setEnv("DATABASE_URL", viaProxy.toString());
  setEnv("DATABASE_CONNECT_TIMEOUT_MS", "1000");
  setEnv("DATABASE_QUERY_TIMEOUT_MS", "1000");
  await disconnectDb();
});

afterAll(async () => {
  proxy.resume();
  setEnv("DATABASE_URL", realUrl);
  setEnv("DATABASE_CONNECT_TIMEOUT_MS", undefined);
  setEnv("DATABASE_QUERY_TIMEOUT_MS", inject("testEnv").DATABASE_QUERY_TIMEOUT_MS);
  await disconnectDb();
  await proxy.close();
  await stopOwnDatabase();
});

async function until201(send: () => Promise<{ status: number }>): Promise<number> {
  let status = 0;
  for (let attempt = 0; attempt < 40 && status !== 201; attempt++) {
    status = (await send()).status;
    if (status !== 201) await new Promise((r) => setTimeout(r, 250)); // retry pacing, not a wait for an event
  }
  return status;
}

describe("database outage", () => {
  it("cut: 503 with Retry-After while the database is away, then recovers by itself", async () => {
    const { makeProject, sendEvent, countEvents } = await import("@/tests/helpers/ingest");
    const p = await makeProject();
    const event = { level: "error", message: "before", projectId: p.id };
    expect((await sendEvent(p.apiKey, event)).status).toBe(201);
    expect((await ready(new Request("http://x/api/health/ready"), noParams)).status).toBe(200);

    proxy.refuse(true);
    proxy.cut();

    const down = await sendEvent(p.apiKey, { ...event, message: "during" });
    expect(down.status).toBe(503);
    expect(down.body.code).toBe("service_unavailable");
    expect(Number(down.res.headers.get("retry-after"))).toBeGreaterThan(0);
    const readiness = await ready(new Request("http://x/api/health/ready"), noParams);
    expect(readiness.status).toBe(503);
    expect((await readiness.json()).code).toBe("service_unavailable");
    const liveness = await live(new Request("http://x/api/health/live"), noParams);
    expect(liveness.status).toBe(200);
    expect(await liveness.json()).toEqual({ status: "ok" });

    proxy.refuse(false);
    expect(await until201(() => sendEvent(p.apiKey, { ...event, message: "after" }))).toBe(201);
    expect((await ready(new Request("http://x/api/health/ready"), noParams)).status).toBe(200);
    expect(await countEvents(p.id)).toBe(2);
  }, 60_000);

  it("stall (a frozen database): ingestion, batches and dashboard reads answer 503 on their deadline while it is still frozen", async () => {
    const { makeProject, sendEvent, sendBatch, countEvents } = await import("@/tests/helpers/ingest");
    const p = await makeProject();
    const { cookie, user } = await createUserWithSession();
    const { prisma } = await import("@/lib/db/client");
    await prisma.membership.create({ data: { projectId: p.id, userId: user.id, role: "member" } });
    expect((await sendEvent(p.apiKey, { level: "info", message: "warm", projectId: p.id })).status).toBe(201);

    proxy.stall();
    try {
      // More requests than the pool has connections: some wait for one first. DATABASE_QUERY_TIMEOUT_MS
      // (1000 here) promises the answer, the 503 included, within it.
      const timed = await Promise.all(
        Array.from({ length: 24 }, async (_, i) => {
          const started = performance.now();
          const answer = await sendEvent(p.apiKey, { level: "error", message: `frozen timed ${i}`, projectId: p.id });
          return { status: answer.status, ms: performance.now() - started };
        }),
      );
      expect(new Set(timed.map((t) => t.status))).toEqual(new Set([503]));
      expect(Math.max(...timed.map((t) => t.ms))).toBeLessThan(1000);
      // Open connections and new ones alike get nothing back. Without deadlines these would wait for as long as the stall lasts,
      // and this test would time out; the proxy stays stalled until every answer is in.
      const answers = await Promise.all([
        sendEvent(p.apiKey, { level: "error", message: "frozen", projectId: p.id }),
        sendEvent(p.apiKey, { level: "error", message: "frozen", projectId: p.id }, { headers: { "idempotency-key": "frozen-1" } }),
        sendBatch(p.apiKey, { events: [{ level: "error", message: "frozen batch", projectId: p.id }] }),
        callRoute(listEventsRoute, apiRequest(`/api/projects/${p.id}/events`, { cookie }), { id: p.id }),
      ]);
      expect(proxy.stalled).toBe(true);
      for (const answer of answers) {
        expect(answer.status).toBe(503);
        expect(answer.body.code).toBe("service_unavailable");
        expect(Number(answer.res.headers.get("retry-after"))).toBeGreaterThan(0);
      }
      expect((await ready(new Request("http://x/api/health/ready"), noParams)).status).toBe(503);
    } finally {
      proxy.resume();
    }
    expect(await until201(() => sendEvent(p.apiKey, { level: "info", message: "thawed", projectId: p.id }))).toBe(201);
    // Nothing acknowledged was lost and nothing refused was stored.
    const { prisma: db } = await import("@/lib/db/client");
    const messages = (await db.event.findMany({ where: { projectId: p.id }, select: { message: true } })).map((e) => e.message).sort();
    expect(messages.filter((m) => m.startsWith("frozen"))).toEqual([]);
    expect(await countEvents(p.id)).toBe(2);
  }, 90_000);
});
