/**
 * The production server's ingest path beside Next.js (lib/edge/direct-ingest.ts):
 * a Node http.Server with the guard installed as instrumentation.ts installs it,
 * whose own listener stands for Next.js and records what reaches it.
 */
import http from "node:http";
import { once } from "node:events";
import net from "node:net";
import { gzipSync } from "node:zlib";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { postEvent } from "@/lib/edge/ingest-routes";
import { installHttpGuard } from "@/lib/edge/node-guard";
import { SECURITY_HEADERS } from "@/lib/edge/security-headers";
import { prisma } from "@/lib/db/client";
import { CLIENT_ADDRESS_HEADER } from "@/lib/http/client-address";
import { stubEnv, unstubEnvs } from "@/tests/helpers/env";
import { readOrCreatePublicKey } from "@/lib/projects/dsn";
import { countEvents, makeProject } from "@/tests/helpers/ingest";

let server: http.Server;
let base: string;
const reachedNext: string[] = [];

beforeAll(async () => {
  installHttpGuard({ directIngest: true });
  server = http.createServer((req, res) => {
    reachedNext.push(`${req.method} ${req.url}`);
    req.resume();
    res.writeHead(299, { "content-type": "text/plain" }).end("next");
  });
  // Past the test timeout: a connection the server leaves open hangs its test rather than closing on a timer.
  server.keepAliveTimeout = 600_000;
  server.requestTimeout = 600_000;
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  base = `http://127.0.0.1:${(server.address() as net.AddressInfo).port}`;
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  installHttpGuard(); // this worker's later files get the guard without it
});

const event = (projectId: string, message: string) => ({ projectId, level: "error", message, context: { stack: "TypeError: x\n    at f (/app/src/a.js:1:2)" } });

const bodyInit = (body: string | Buffer) => (typeof body === "string" ? body : new Uint8Array(body));

function post(path: string, body: string | Buffer, headers: Record<string, string>) {
  return fetch(`${base}${path}`, { method: "POST", headers, body: bodyInit(body) });
}

describe("ingest beside Next.js", () => {
  it("serves every ingest route itself, with the answers' headers Next.js would add, and stores the events", async () => {
    const p = await makeProject("direct");
    const json = { "content-type": "application/json", authorization: `Bearer ${p.apiKey}` };
    const before = reachedNext.length;

    const single = await post("/api/events", JSON.stringify(event(p.id, "direct single")), json);
    expect(single.status).toBe(201);
    expect((await single.json()) as { id: string }).toMatchObject({ id: expect.any(String) });
    for (const { key, value } of SECURITY_HEADERS) expect(single.headers.get(key), key).toBe(value);
    expect(single.headers.get("x-request-id")).toMatch(/^[0-9a-f-]{36}$/);
    expect(single.headers.get("ratelimit-limit") ?? single.headers.get("x-ratelimit-limit")).not.toBeNull();

    const batch = await post("/api/events/batch", gzipSync(JSON.stringify([event(p.id, "direct batch 1"), event(p.id, "direct batch 2")])), { ...json, "content-encoding": "gzip" });
    expect(batch.status).toBe(201);
    expect(((await batch.json()) as { ids: string[] }).ids).toHaveLength(2);

    const logs = await post(
      "/v1/logs",
      JSON.stringify({ resourceLogs: [{ scopeLogs: [{ logRecords: [{ severityText: "ERROR", body: { stringValue: "direct otlp" } }] }] }] }),
      json,
    );
    expect(logs.status).toBe(200);

    const publicKey = (await readOrCreatePublicKey(p.id))!;
    const { number } = await prisma.project.findUniqueOrThrow({ where: { id: p.id }, select: { number: true } });
    const sentryEvent = JSON.stringify({ event_id: "a".repeat(32), level: "error", message: "direct store", platform: "node" });
    for (const path of [`/api/${number}/store/?sentry_key=${publicKey}`, `/api/${number}/store?sentry_key=${publicKey}`]) {
      const store = await post(path, sentryEvent, { "content-type": "application/json", origin: "https://elsewhere.example" });
      expect(store.status, path).toBe(200);
      expect(store.headers.get("access-control-expose-headers"), path).not.toBeNull();
    }
    const envelope = await post(
      `/api/${number}/envelope/`,
      [JSON.stringify({ event_id: "b".repeat(32) }), JSON.stringify({ type: "event" }), JSON.stringify({ level: "warning", message: "direct envelope" })].join("\n"),
      { "x-sentry-auth": `Sentry sentry_version=7, sentry_key=${publicKey}` },
    );
    expect(envelope.status).toBe(200);
    expect(await envelope.json()).toEqual({ id: "b".repeat(32) });

    expect(reachedNext.slice(before)).toEqual([]);
    // single, 2 batched, 1 log record, the store event once (its retry is the same event_id), the envelope's
    expect(await countEvents(p.id)).toBe(6);
  });

  it("answers problems exactly as the route handler does", async () => {
    const p = await makeProject("direct-problems");
    const cases: { name: string; headers: Record<string, string>; body: string | Buffer }[] = [
      { name: "no key", headers: { "content-type": "application/json" }, body: JSON.stringify(event(p.id, "x")) },
      { name: "wrong key", headers: { "content-type": "application/json", authorization: "Bearer tt_wrong" }, body: JSON.stringify(event(p.id, "x")) },
      { name: "not JSON", headers: { "content-type": "application/json", authorization: `Bearer ${p.apiKey}` }, body: "{nope" },
      { name: "wrong type", headers: { "content-type": "text/plain", authorization: `Bearer ${p.apiKey}` }, body: JSON.stringify(event(p.id, "x")) },
      { name: "invalid event", headers: { "content-type": "application/json", authorization: `Bearer ${p.apiKey}` }, body: JSON.stringify({ level: "loud" }) },
      { name: "a bomb", headers: { "content-type": "application/json", "content-encoding": "gzip", authorization: `Bearer ${p.apiKey}` }, body: gzipSync(Buffer.alloc(20_000_000, 32)) },
    ];
    for (const c of cases) {
      const direct = await post("/api/events", c.body, c.headers);
      const handled = await postEvent(new Request("http://localhost/api/events", { method: "POST", headers: c.headers, body: bodyInit(c.body) }), { params: Promise.resolve({}) });
      const [directBody, handledBody] = [(await direct.json()) as Record<string, unknown>, (await handled.json()) as Record<string, unknown>];
      expect([direct.status, directBody.code, directBody.detail], c.name).toEqual([handled.status, handledBody.code, handledBody.detail]);
      expect(direct.headers.get("content-type"), c.name).toBe(handled.headers.get("content-type"));
    }
    expect(await countEvents(p.id)).toBe(0);
  });

  it("counts a client by its socket's address, whatever address header it sends", async () => {
    stubEnv("AUTH_FAILURES_PER_MINUTE", "3");
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 5; i++) {
        const answer = await post("/api/events", "{}", { "content-type": "application/json", authorization: `Bearer tt_forged_${i}`, [CLIENT_ADDRESS_HEADER]: `203.0.113.${i}` });
        statuses.push(answer.status);
      }
      expect(statuses).toEqual([401, 401, 401, 429, 429]);
    } finally {
      unstubEnvs();
    }
  });

  it("leaves to Next.js what it does not serve: other methods, other paths, a Host the web Request refuses", async () => {
    const p = await makeProject("direct-other");
    const before = reachedNext.length;
    expect((await fetch(`${base}/api/events`)).status).toBe(299);
    expect((await post("/api/events/", "{}", { "content-type": "application/json" })).status).toBe(299);
    expect((await post("/api/health/live", "{}", {})).status).toBe(299);
    expect((await fetch(`${base}/api/1/envelope/`, { method: "OPTIONS" })).status).toBe(299);
    expect((await post("/api/1/2/envelope/", "{}", {})).status).toBe(299);
    const badHost = await rawExchange(`POST /api/events HTTP/1.1\r\nHost: a b\r\nContent-Type: application/json\r\nAuthorization: Bearer ${p.apiKey}\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}`);
    expect(badHost).toMatch(/^HTTP\/1\.1 299/);
    expect(reachedNext.slice(before)).toEqual([
      "GET /api/events",
      "POST /api/events/",
      "POST /api/health/live",
      "OPTIONS /api/1/envelope/",
      "POST /api/1/2/envelope/",
      "POST /api/events",
    ]);
  });

  it("lets a client still sending a refused body read its answer (not a reset)", async () => {
    const p = await makeProject("direct-refused");
    // Too large (the route reads and refuses it), and unauthenticated (the route never reads it).
    for (const [key, status, code] of [
      [p.apiKey, 413, "payload_too_large"],
      ["tlt_forged", 401, "invalid_api_key"],
    ] as const) {
      const answer = await sendLargeBody(`${base}/api/events`, key, `{"projectId":"${p.id}","level":"error","message":"`, 16 * 1024 * 1024);
      expect([answer.status, answer.code], String(status)).toEqual([status, code]);
    }
  });

  it("closes the connection of an early answer, by lingering, though the client keeps it open and stops sending", async () => {
    const p = await makeProject("direct-linger");
    // Chunked bodies that never end: refused unauthenticated before any is read, and too large once decoded.
    const cases = [
      { status: 401, code: "invalid_api_key", key: "tlt_forged", headers: "", chunk: Buffer.from(JSON.stringify(event(p.id, "never complete")).slice(0, 20)) },
      { status: 413, code: "payload_too_large", key: p.apiKey, headers: "Content-Encoding: gzip\r\n", chunk: gzipSync(Buffer.alloc(20_000_000, 32)) },
    ];
    await Promise.all(
      cases.map(async (c) => {
        const { client, serverSide } = await connectRaw();
        const finOfServer = once(client, "end");
        const closedByServer = once(serverSide, "close");
        client.write(`POST /api/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAuthorization: Bearer ${c.key}\r\n${c.headers}Transfer-Encoding: chunked\r\n\r\n`);
        client.write(Buffer.concat([Buffer.from(`${c.chunk.length.toString(16)}\r\n`), c.chunk, Buffer.from("\r\n")]));
        const answer = await readAnswer(client);
        expect([answer.status, (JSON.parse(answer.body) as { code: string }).code, answer.headers.connection], String(c.status)).toEqual([c.status, c.code, "close"]);
        await finOfServer;
        await closedByServer;
        expect(client.destroyed, "the client's side is still open").toBe(false);
        client.destroy();
      }),
    );
  });

  it("keeps the connection of a request whose body was read for the next request", async () => {
    const p = await makeProject("direct-keep-alive");
    const { client } = await connectRaw();
    for (const message of ["first on the connection", "second on the connection"]) {
      const body = JSON.stringify(event(p.id, message));
      client.write(`POST /api/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAuthorization: Bearer ${p.apiKey}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
      const answer = await readAnswer(client);
      expect([answer.status, answer.headers.connection], message).toEqual([201, "keep-alive"]);
    }
    client.destroy();
    expect(await countEvents(p.id)).toBe(2);
  });

  it("survives a client that hangs up mid-body, stores nothing of it, and serves the next request", async () => {
    const p = await makeProject("direct-hangup");
    const body = JSON.stringify(event(p.id, "never complete"));
    await new Promise<void>((resolve) => {
      const socket = net.connect(Number(new URL(base).port), "127.0.0.1", () => {
        socket.write(`POST /api/events HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nAuthorization: Bearer ${p.apiKey}\r\nContent-Length: ${body.length}\r\n\r\n${body.slice(0, 20)}`);
        setImmediate(() => {
          socket.destroy();
          resolve();
        });
      });
    });
    const next = await post("/api/events", JSON.stringify(event(p.id, "after the hang-up")), { "content-type": "application/json", authorization: `Bearer ${p.apiKey}` });
    expect(next.status).toBe(201);
    expect(await countEvents(p.id)).toBe(1);
  });
});

/** POSTs `prefix` then `bytes` of filler in 16 KiB writes, as a client that keeps sending after an early answer; resolves with the answer. */
function sendLargeBody(url: string, key: string, prefix: string, bytes: number) {
  return new Promise<{ status: number; code: string }>((resolve, reject) => {
    const request = http.request(url, { method: "POST", headers: { "content-type": "application/json", authorization: `Bearer ${key}` } });
    request.on("error", reject);
    request.on("response", (response) => {
      let text = "";
      response.on("data", (d: Buffer) => (text += d.toString()));
      response.on("end", () => {
        resolve({ status: response.statusCode ?? 0, code: (JSON.parse(text) as { code: string }).code });
        request.destroy(); // the rest of the body is not needed
      });
    });
    const chunk = Buffer.alloc(16 * 1024, "x");
    let written = 0;
    request.write(prefix);
    const more = () => {
      while (written < bytes) {
        written += chunk.length;
        if (request.destroyed) return;
        if (!request.write(chunk)) return void request.once("drain", more);
      }
      request.end('"}');
    };
    more();
  });
}

/** A raw connection that stays open until the test ends it (allowHalfOpen), and the server's side of it. */
async function connectRaw(): Promise<{ client: net.Socket; serverSide: net.Socket }> {
  // Listening before connecting: the server may accept before the client hears it connected.
  const serverSide = new Promise<net.Socket>((resolve) => {
    const onConnection = (socket: net.Socket) => {
      if (socket.remotePort !== client.localPort) return;
      server.off("connection", onConnection);
      resolve(socket);
    };
    server.on("connection", onConnection);
  });
  const client = net.connect({ port: Number(new URL(base).port), host: "127.0.0.1", allowHalfOpen: true });
  await once(client, "connect");
  return { client, serverSide: await serverSide };
}

type RawAnswer = { status: number; headers: Record<string, string>; body: string };

/** The next answer on a raw connection: its head, and its body by Content-Length. */
function readAnswer(socket: net.Socket): Promise<RawAnswer> {
  return new Promise((resolve, reject) => {
    let read = Buffer.alloc(0);
    const onData = (data: Buffer) => {
      read = Buffer.concat([read, data]);
      const headEnd = read.indexOf("\r\n\r\n");
      if (headEnd < 0) return;
      const [statusLine = "", ...lines] = read.subarray(0, headEnd).toString("latin1").split("\r\n");
      const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(":")).toLowerCase(), line.slice(line.indexOf(":") + 1).trim()]));
      const bodyEnd = headEnd + 4 + Number(headers["content-length"] ?? 0);
      if (read.length < bodyEnd) return;
      done();
      resolve({ status: Number(statusLine.split(" ")[1]), headers, body: read.subarray(headEnd + 4, bodyEnd).toString() });
    };
    const onEnd = () => {
      done();
      reject(new Error(`the connection ended before a whole answer: ${read.toString("latin1").slice(0, 200)}`));
    };
    const done = () => {
      socket.off("data", onData);
      socket.off("end", onEnd);
      socket.off("error", reject);
    };
    socket.on("data", onData);
    socket.on("end", onEnd);
    socket.on("error", reject);
  });
}

/** Exact bytes on a socket; resolves with everything read until the server closes. */
function rawExchange(bytes: string): Promise<string> {
  return new Promise((resolve) => {
    let text = "";
    const socket = net.connect(Number(new URL(base).port), "127.0.0.1", () => socket.write(bytes));
    socket.on("data", (d) => (text += d.toString("latin1")));
    socket.on("close", () => resolve(text));
  });
}
