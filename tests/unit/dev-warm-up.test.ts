import http from "node:http";
import type { AddressInfo } from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { INGEST_ROUTES, warmIngestRoutes } from "@/lib/config/dev-warm-up";

let server: http.Server | undefined;
afterEach(async () => {
  const open = server;
  server = undefined;
  if (open) await new Promise<void>((done) => open.close(() => done()));
});

/** A server that records each request and answers with `status(method, url)`. */
async function serve(status: (method: string, url: string) => number): Promise<{ origin: string; seen: string[] }> {
  const seen: string[] = [];
  server = http.createServer((req, res) => {
    seen.push(`${req.method} ${req.url}`);
    res.writeHead(status(req.method!, req.url!)).end();
  });
  await new Promise<void>((r) => server!.listen(0, "127.0.0.1", r));
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen };
}

describe("warmIngestRoutes (npm run dev)", () => {
  it("waits for the server, then loads every ingest route with OPTIONS (no credentials, nothing stored)", async () => {
    let healthCalls = 0;
    const { origin, seen } = await serve((method, url) => (url === "/api/health/live" && ++healthCalls < 3 ? 503 : 204));
    const lines: string[] = [];
    const ok = await warmIngestRoutes(origin, { log: (l) => lines.push(l), sleep: async () => {} });
    expect(ok).toBe(true);
    expect(seen).toEqual(["GET /api/health/live", "GET /api/health/live", "GET /api/health/live", ...INGEST_ROUTES.map((r) => `OPTIONS ${r}`)]);
    expect(lines).toEqual([`Ingest routes compiled: SDKs and clients can send events to ${origin}`]);
  });

  it("gives up quietly when the server never answers", async () => {
    let clock = 0;
    const ok = await warmIngestRoutes("http://127.0.0.1:9", {
      readyWithinMs: 10_000,
      pollMs: 500,
      now: () => clock,
      sleep: async (ms) => void (clock += ms),
      fetch: async () => {
        throw new TypeError("fetch failed");
      },
    });
    expect(ok).toBe(false);
    expect(clock).toBe(10_000);
  });

  it("stops at a route that fails", async () => {
    const { origin, seen } = await serve((_method, url) => (url === "/api/events/batch" ? 500 : 204));
    const lines: string[] = [];
    expect(await warmIngestRoutes(origin, { log: (l) => lines.push(l), sleep: async () => {} })).toBe(false);
    expect(seen).toEqual(["GET /api/health/live", "OPTIONS /api/events", "OPTIONS /api/events/batch"]);
    expect(lines).toEqual([]);
  });
});
