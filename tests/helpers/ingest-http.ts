/**
 * A real Telltale ingestion server for client tests: an HTTP server in this
 * process around the real route handlers (POST /api/events and
 * /api/events/batch, on the test database), with a fault switch in front
 * that acts out what a network and an overloaded server do to a client:
 *
 * - `{ status, retryAfter }`: answer that status (429, 503, ...) without
 *   reaching the server;
 * - `"refuse"`: drop the connection before the server sees the request
 *   (a server that is down);
 * - `"lose-answer"`: let the server store the events and answer, then drop
 *   the connection instead of passing the answer on (a lost answer: the
 *   client's retry must be replayed, not stored again);
 * - `"pass"`: forward as is.
 *
 *   const server = await startIngestHttp();
 *   server.setFault((req) => (req.index === 0 ? { status: 503, retryAfter: "1" } : "pass"));
 *   createClient({ url: server.url, ... });
 */
import { EventEmitter } from "node:events";
import http from "node:http";
import type { AddressInfo } from "node:net";
import { POST as postEvent } from "@/app/api/events/route";
import { POST as postBatch } from "@/app/api/events/batch/route";

export type Fault = "pass" | "refuse" | "lose-answer" | { status: number; retryAfter?: string };

export type SeenRequest = {
  /** 0 for the first request the server saw. */
  index: number;
  path: string;
  idempotencyKey: string | null;
  /** Events in the body (a batch's count, 1 for a single event). */
  events: number;
  fault: Fault;
  /** The real server's status, when the request reached it. */
  status?: number;
};

export interface IngestHttp {
  url: string;
  readonly requests: SeenRequest[];
  setFault(decide: (request: { index: number; path: string; idempotencyKey: string | null }) => Fault): void;
  /** Resolves when at least `count` requests are done with (answered or dropped). */
  waitForRequests(count: number): Promise<void>;
  close(): Promise<void>;
}

const routes: Record<string, (request: Request, context: { params: Promise<Record<string, never>> }) => Promise<Response>> = {
  "/api/events": postEvent,
  "/api/events/batch": postBatch,
};

export async function startIngestHttp(): Promise<IngestHttp> {
  const requests: SeenRequest[] = [];
  const seen = new EventEmitter();
  let decide: Parameters<IngestHttp["setFault"]>[0] = () => "pass";
  let completed = 0;

  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    const body = Buffer.concat(chunks);
    const path = (req.url ?? "/").split("?")[0]!;
    const idempotencyKey = (req.headers["idempotency-key"] as string | undefined) ?? null;
    const index = requests.length;
    const fault = decide({ index, path, idempotencyKey });
    const record: SeenRequest = { index, path, idempotencyKey, events: countEvents(path, body), fault };
    requests.push(record);
    try {
      if (fault === "refuse") {
        req.socket.destroy();
        return;
      }
      if (typeof fault === "object") {
        res.writeHead(fault.status, { "content-type": "application/problem+json", ...(fault.retryAfter ? { "retry-after": fault.retryAfter } : {}) });
        res.end(JSON.stringify({ type: "about:blank", title: "injected", status: fault.status, code: fault.status === 429 ? "rate_limited" : "service_unavailable" }));
        return;
      }
      const handler = routes[path];
      if (!handler || req.method !== "POST") {
        res.writeHead(404).end();
        return;
      }
      const headers = new Headers();
      for (const [name, value] of Object.entries(req.headers)) if (typeof value === "string") headers.set(name, value);
      headers.set("x-forwarded-for", "127.0.0.1");
      const response = await handler(new Request(`http://127.0.0.1${req.url}`, { method: "POST", headers, body }), { params: Promise.resolve({}) });
      record.status = response.status;
      const answer = Buffer.from(await response.arrayBuffer());
      if (fault === "lose-answer") {
        // The server committed and answered; the client never hears it.
        req.socket.destroy();
        return;
      }
      res.writeHead(response.status, Object.fromEntries(response.headers));
      res.end(answer);
    } finally {
      completed++;
      seen.emit("request");
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;

  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    setFault(next) {
      decide = next;
    },
    waitForRequests(count) {
      return new Promise((resolve) => {
        const check = () => {
          if (completed >= count) {
            seen.off("request", check);
            resolve();
          }
        };
        seen.on("request", check);
        check();
      });
    },
    close() {
      server.closeAllConnections();
      return new Promise((resolve) => server.close(() => resolve()));
    },
  };
}

function countEvents(path: string, body: Buffer): number {
  if (path !== "/api/events/batch") return 1;
  try {
    const parsed = JSON.parse(body.toString("utf8")) as { events?: unknown[] } | unknown[];
    return Array.isArray(parsed) ? parsed.length : Array.isArray(parsed.events) ? parsed.events.length : 0;
  } catch {
    return 0;
  }
}
