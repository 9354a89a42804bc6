import { setEnv } from "@/tests/helpers/env";
import net from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { GET as live } from "@/app/api/health/live/route";
import { GET as ready } from "@/app/api/health/ready/route";
import { disconnectDb } from "@/lib/db/client";

/**
 * A TCP proxy between the app and PostgreSQL that the test can cut and
 * restore, to see the API answer 503 while the database is away and recover
 * without a restart when it returns.
 */
class CuttableProxy {
  private server?: net.Server;
  private sockets = new Set<net.Socket>();
  port = 0;
  constructor(private target: { host: string; port: number }) {}

  async start(port = 0) {
    this.server = net.createServer((client) => {
      const upstream = net.connect(this.target.port, this.target.host);
      for (const s of [client, upstream]) {
        this.sockets.add(s);
        s.on("close", () => this.sockets.delete(s));
        s.on("error", () => {});
      }
      client.pipe(upstream).pipe(client);
    });
    await new Promise<void>((resolve) => this.server!.listen(port, "127.0.0.1", resolve));
    this.port = (this.server!.address() as net.AddressInfo).port;
  }

  async cut() {
    for (const s of this.sockets) s.destroy();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }
}

const noParams = { params: Promise.resolve({}) };
let proxy: CuttableProxy;

beforeAll(async () => {
  const real = new URL(process.env.DATABASE_URL!);
  proxy = new CuttableProxy({ host: real.hostname, port: Number(real.port || 5432) });
  await proxy.start();
  const viaProxy = new URL(real);
  viaProxy.hostname = "127.0.0.1";
  viaProxy.port = String(proxy.port);
  await disconnectDb();
  setEnv("DATABASE_URL", viaProxy.toString());
  setEnv("DATABASE_CONNECT_TIMEOUT_MS", "1000");
});

afterAll(async () => {
  await disconnectDb();
});

describe("database outage", () => {
  it("answers 503 with Retry-After while the database is away and recovers by itself", async () => {
    const { makeProject, sendEvent, countEvents } = await import("@/tests/helpers/ingest");
    const p = await makeProject();
    const event = { level: "error", message: "before", projectId: p.id };
    expect((await sendEvent(p.apiKey, event)).status).toBe(201);
    expect((await ready(new Request("http://x/api/health/ready"), noParams)).status).toBe(200);

    await proxy.cut();

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

    await proxy.start(proxy.port);

    let status = 0;
    for (let attempt = 0; attempt < 20 && status !== 201; attempt++) {
      status = (await sendEvent(p.apiKey, { ...event, message: "after" })).status;
      if (status !== 201) await new Promise((r) => setTimeout(r, 250));
    }
    expect(status).toBe(201);
    expect((await ready(new Request("http://x/api/health/ready"), noParams)).status).toBe(200);
    expect(await countEvents(p.id)).toBe(2);
  }, 30_000);
});
