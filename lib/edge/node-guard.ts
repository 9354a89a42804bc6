/**
 * What must happen before Next.js sees a request, installed once per server
 * process by instrumentation.ts:
 *
 * - Methods no route serves (TRACE, PROPFIND, CONNECT ...) answer 405
 *   problem details here. Next.js builds a web Request for every request
 *   before any route or proxy runs, and the Request constructor refuses
 *   TRACE: that surfaced as a 500 with a stack trace in the log.
 * - The socket's address is stamped on the request in CLIENT_ADDRESS_HEADER,
 *   replacing whatever a client sent under that name: route handlers see no
 *   socket, and X-Forwarded-For is the client's to write unless a proxy we
 *   trust appends to it (lib/http/client-address.ts).
 * - Request targets Next.js mishandles: a path whose percent-encoding does
 *   not decode (`/api/projects/%zz`, `%ff`) is a 404 here (Next.js answered
 *   500); the absolute form (`GET http://host/path`) is served as its path
 *   (Next.js redirected to the host it named); the asterisk form is
 *   `OPTIONS *` (204 with Allow) or a 404 (Next.js threw "Invalid URL").
 * - In production, the ingest routes' POSTs are served here, with the route
 *   files' own handlers (lib/edge/direct-ingest.ts).
 */
import http from "node:http";
import type { Duplex } from "node:stream";
import { CLIENT_ADDRESS_HEADER, trustClientAddressHeader } from "@/lib/http/client-address";
import { errors } from "@/lib/http/errors";
import { problemParts } from "@/lib/edge/problem";
import { serveIngestDirectly } from "@/lib/edge/direct-ingest";

export const SERVED_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const;
const served = new Set<string>(SERVED_METHODS);

function refusal(method: string) {
  return problemParts(errors.methodNotAllowed(method.slice(0, 20), [...SERVED_METHODS]));
}

const ABSOLUTE_FORM = /^[a-z][a-z0-9+.-]*:\/\//i;

/**
 * The request target as the app may see it: the path (and query) of an
 * absolute-form target, or null when there is no resource to serve: a path
 * whose percent-encoding is not valid UTF-8, or a target that is neither a
 * path nor an http(s) URL.
 */
export function originFormTarget(target: string): string | null {
  let originForm = target;
  if (ABSOLUTE_FORM.test(target)) {
    let url: URL;
    try {
      url = new URL(target);
    } catch {
      return null;
    }
    if (url.protocol !== "http:" && url.protocol !== "https:") return null;
    originForm = `${url.pathname}${url.search}`;
  }
  if (!originForm.startsWith("/")) return null;
  const queryAt = originForm.indexOf("?");
  try {
    decodeURIComponent(queryAt < 0 ? originForm : originForm.slice(0, queryAt));
  } catch {
    return null;
  }
  return originForm;
}

const installed = Symbol.for("telltale.httpGuard");
type GuardOptions = { directIngest?: boolean };

function ignoreConnect(): void {
  // answered in emit (installHttpGuard)
}

/** `directIngest`: serve the ingest routes here (lib/edge/direct-ingest.ts) rather than through Next.js. */
export function installHttpGuard(options: GuardOptions = {}): void {
  const proto = http.Server.prototype as http.Server & { [installed]?: GuardOptions };
  // Installed once per process; a later call (a test) changes only the options.
  const first = !proto[installed];
  proto[installed] = { ...options };
  if (!first) return;
  trustClientAddressHeader();
  const emit = proto.emit;
  proto.emit = function (this: http.Server, event: string | symbol, ...args: unknown[]): boolean {
    // Node destroys a CONNECT's socket unless the server has a "connect"
    // listener: one that does nothing lets it reach the answer below.
    if (event === "connection" && this.listenerCount("connect") === 0) this.on("connect", ignoreConnect);
    if (event === "request") {
      const [req, res] = args as [http.IncomingMessage, http.ServerResponse];
      req.headers[CLIENT_ADDRESS_HEADER] = req.socket.remoteAddress ?? "";
      if (!served.has(req.method ?? "")) {
        const { status, headers, body } = refusal(req.method ?? "");
        req.resume(); // drain any body, then answer
        res.writeHead(status, { ...headers, Connection: "close" }).end(body);
        return true;
      }
      if (req.url === "*" && req.method === "OPTIONS") {
        req.resume();
        res.writeHead(204, { Allow: SERVED_METHODS.join(", ") }).end();
        return true;
      }
      const target = originFormTarget(req.url ?? "");
      if (target === null) {
        const { status, headers, body } = problemParts(errors.notFound());
        req.resume();
        res.writeHead(status, headers).end(body);
        return true;
      }
      req.url = target;
      if (proto[installed]?.directIngest && serveIngestDirectly(req, res)) return true;
    } else if (event === "connect") {
      // CONNECT has no request/response pair: answer on the raw socket.
      const [, socket] = args as [http.IncomingMessage, Duplex];
      const { status, headers, body } = refusal("CONNECT");
      const head = Object.entries({ ...headers, "Content-Length": String(Buffer.byteLength(body)), Connection: "close" })
        .map(([k, v]) => `${k}: ${v}`)
        .join("\r\n");
      socket.end(`HTTP/1.1 ${status} Method Not Allowed\r\n${head}\r\n\r\n${body}`);
      return true;
    }
    return emit.apply(this, [event, ...args] as Parameters<typeof emit>);
  };
}
