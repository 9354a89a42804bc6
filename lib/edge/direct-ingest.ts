/**
 * The production server's ingest requests, served from Node's http.Server
 * before Next.js sees them (lib/edge/node-guard.ts calls this first).
 *
 * Why: Next.js's own work per request (its router, request stores, the
 * answer's web stream) cost a 4.9 KB event about twice the CPU of all of the
 * app's own ingest code; ingestion is the one path where that decides
 * how many events a core takes (docs/performance.md, "Ingest beside
 * Next.js"). The handlers are the route files' own (lib/edge/ingest-routes.ts):
 * the same web Request in, the same Response out, the same headers as
 * Next.js would add (next.config.ts's security headers). Anything this does
 * not take (another method, another path, a request the web Request refuses)
 * goes on to Next.js unchanged.
 */
import type http from "node:http";
import { randomUUID } from "node:crypto";
import { Readable } from "node:stream";
import { errorToResponse } from "@/lib/edge/problem";
import { ingestRouteFor } from "@/lib/edge/ingest-routes";
import { SECURITY_HEADERS } from "@/lib/edge/security-headers";
import { logger } from "@/lib/log";

/** True when the request was taken (it is answered here); false to pass it on. */
export function serveIngestDirectly(req: http.IncomingMessage, res: http.ServerResponse): boolean {
  if (req.method !== "POST") return false;
  const target = req.url ?? "";
  const queryAt = target.indexOf("?");
  const route = ingestRouteFor(queryAt < 0 ? target : target.slice(0, queryAt));
  if (!route) return false;

  let url: string;
  let headers: Headers;
  try {
    url = new URL(target, `http://${req.headers.host || "localhost"}`).href;
    headers = headersOf(req);
  } catch {
    return false; // a Host or header the web Request refuses: Next.js answers it as before
  }
  const abort = new AbortController();
  // The client hung up before its answer went out: the handler sees an aborted signal.
  res.once("close", () => {
    if (!res.writableFinished) abort.abort();
  });
  let answered: Promise<Response>;
  try {
    // duplex "half": a streamed body (Node's fetch requires it; TypeScript's RequestInit does not know it yet).
    const init = { method: "POST", headers, body: Readable.toWeb(req) as ReadableStream<Uint8Array>, duplex: "half", signal: abort.signal };
    answered = route.handler(new Request(url, init as RequestInit), { params: Promise.resolve(route.params) });
  } catch (error) {
    answered = Promise.reject(error); // never thrown into the http.Server's emit, which would end the process
  }
  answered
    // The handlers turn every error into an answer; this is a fault of the path itself.
    .then(
      (response) => send(res, response),
      (error: unknown) => send(res, errorToResponse(error, randomUUID())),
    )
    .catch((error: unknown) => {
      logger.error("direct ingest: answer failed", { error: error instanceof Error ? error.message.slice(0, 200) : String(error) });
      res.destroy();
    });
  return true;
}

/** The request's headers as Next.js passes them on: Node's parsed ones, with the guard's stamp of the client's address. */
function headersOf(req: http.IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (typeof value === "string") headers.append(name, value);
    else if (value) for (const one of value) headers.append(name, one);
  }
  return headers;
}

async function send(res: http.ServerResponse, response: Response): Promise<void> {
  const body = response.body ? Buffer.from(await response.arrayBuffer()) : null;
  if (res.destroyed) return;
  res.statusCode = response.status;
  for (const { key, value } of SECURITY_HEADERS) res.setHeader(key, value);
  for (const [name, value] of response.headers) if (name !== "set-cookie") res.setHeader(name, value);
  const cookies = response.headers.getSetCookie();
  if (cookies.length) res.setHeader("set-cookie", cookies);
  res.end(body);
}
