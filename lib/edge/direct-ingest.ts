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
 *
 * An answer that goes out before the request's body was read (a 401 before
 * reading, a 413 partway) closes its connection by lingering: see
 * closeAfterAnswer.
 */
import type http from "node:http";
import type net from "node:net";
import { randomUUID } from "node:crypto";
import { Readable } from "node:stream";
import { errorToResponse } from "@/lib/edge/problem";
import { DISCARD_MAX_BYTES, DISCARD_MAX_MS } from "@/lib/http/body-decoding";
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
      (response) => send(req, res, response),
      (error: unknown) => send(req, res, errorToResponse(error, randomUUID())),
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

async function send(req: http.IncomingMessage, res: http.ServerResponse, response: Response): Promise<void> {
  const body = response.body ? Buffer.from(await response.arrayBuffer()) : null;
  if (res.destroyed) return;
  res.statusCode = response.status;
  for (const { key, value } of SECURITY_HEADERS) res.setHeader(key, value);
  for (const [name, value] of response.headers) if (name !== "set-cookie") res.setHeader(name, value);
  const cookies = response.headers.getSetCookie();
  if (cookies.length) res.setHeader("set-cookie", cookies);
  if (!req.complete) closeAfterAnswer(req, res);
  res.end(body);
}

/**
 * How long and how much a connection answered before its request's body was
 * read goes on reading (and dropping) what the client still sends before it
 * closes, whichever ends first: the bounds a refused body is drained to
 * anyway (lib/http/body-decoding.ts discardRest), so that a client that
 * sends all of a 16 MiB body before it reads still gets its 413. Past
 * either, a client still sending was told to stop and gets the reset.
 */
const LINGER_MAX_BYTES = DISCARD_MAX_BYTES;
const LINGER_MAX_MS = DISCARD_MAX_MS;

/**
 * The rest of an unread body is still on the connection: it cannot carry
 * another request, and Node does not drain it (the body's web stream
 * consumed the request), so keep-alive would stall it until a timeout. The
 * answer says `Connection: close` and the connection closes as nginx's and
 * Apache's "lingering close" does: the answer, then our FIN, then reading
 * and dropping what the client still sends (linger). Closing at once would
 * reset the connection while unread bytes are in it, and a reset can discard
 * the answer before the client reads it.
 */
function closeAfterAnswer(req: http.IncomingMessage, res: http.ServerResponse): void {
  const socket = req.socket;
  res.setHeader("connection", "close");
  // Node ends a `Connection: close` answer's socket with destroySoon() once the
  // answer is written (resOnFinish in node's lib/_http_server.js), which is that
  // reset: here it only half-closes, and linger() closes.
  socket.destroySoon = () => void socket.end();
  res.once("finish", () => linger(req, socket));
}

/** Reads and drops the rest of `req`'s body, then closes: at its end, the client's FIN, or the linger's bounds. */
function linger(req: http.IncomingMessage, socket: net.Socket): void {
  if (socket.destroyed) return;
  // With the body complete nothing of the request is left unread: closing now
  // is a clean FIN, not a reset (and at its end below, likewise).
  if (req.complete) return void socket.destroy();
  const close = () => socket.destroy();
  const timer = setTimeout(close, LINGER_MAX_MS).unref();
  socket.once("close", () => clearTimeout(timer));
  socket.once("end", close);
  req.once("end", close);
  let left = LINGER_MAX_BYTES;
  // As Node's own req._dump(): the handler's body stream takes no more data,
  // and the request flows into nothing.
  req.removeAllListeners("data");
  req.on("data", (chunk: Buffer) => {
    left -= chunk.length;
    if (left < 0) close();
  });
  req.resume();
}
