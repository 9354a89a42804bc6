/**
 * The chaos run's HTTP client: node:http for ordinary requests (any method
 * token, any header Node will write), and a raw TCP socket for what node:http
 * refuses to send (lying framing, control characters, garbage). Every
 * request has a deadline; one that passes it is a hang, not an error.
 */
import http from "node:http";
import net from "node:net";

export type HttpAnswer = {
  /** 0: the connection closed (or failed) without an answer. */
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  ms: number;
  /** No answer within the deadline. */
  hung: boolean;
  /** false: the connection closed in the middle of the answer's body. */
  complete: boolean;
  /** Why there is no answer (reset, refused, ...), when status is 0. */
  error?: string;
};

const MAX_BODY = 4 * 1024 * 1024;

function flattenHeaders(headers: http.IncomingHttpHeaders): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) if (value !== undefined) out[name] = Array.isArray(value) ? value.join(", ") : value;
  return out;
}

export type HttpRequest = {
  port: number;
  method: string;
  path: string;
  headers: Record<string, string | string[]>;
  body?: Buffer;
  /** Send the body in pieces with Transfer-Encoding: chunked. */
  chunked?: boolean;
  timeoutMs: number;
  agent?: http.Agent;
};

export function sendHttp(request: HttpRequest): Promise<HttpAnswer> {
  const started = performance.now();
  return new Promise((resolve) => {
    let settled = false;
    const finish = (answer: Omit<HttpAnswer, "ms" | "complete"> & { complete?: boolean }) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve({ complete: true, ...answer, ms: Math.round(performance.now() - started) });
    };
    const headers: Record<string, string | string[]> = { ...request.headers };
    const hasHeader = (name: string) => Object.keys(headers).some((h) => h.toLowerCase() === name);
    if (request.body && !request.chunked && !hasHeader("content-length")) headers["content-length"] = String(request.body.length);
    let req: http.ClientRequest;
    try {
      req = http.request({ host: "127.0.0.1", port: request.port, method: request.method, path: request.path, headers, agent: request.agent ?? false, setHost: !hasHeader("host") });
    } catch (error) {
      finish({ status: 0, headers: {}, body: Buffer.alloc(0), hung: false, error: `client refused to send: ${(error as Error).message}` });
      return;
    }
    const timer = setTimeout(() => {
      req.destroy();
      finish({ status: 0, headers: {}, body: Buffer.alloc(0), hung: true, error: "no answer before the deadline" });
    }, request.timeoutMs);
    let answered = false;
    req.on("response", (res) => {
      answered = true;
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size <= MAX_BODY) chunks.push(chunk);
      });
      const done = (complete: boolean) => finish({ status: res.statusCode ?? 0, headers: flattenHeaders(res.headers), body: Buffer.concat(chunks), hung: false, complete });
      res.on("end", () => done(true));
      // The status arrived but the body did not all come: the caller decides what that means.
      res.on("error", () => done(false));
      res.on("aborted", () => done(false));
    });
    req.on("error", (error) => {
      // Writing the rest of a big body after an early answer (413) may fail: the answer stands.
      if (!answered) finish({ status: 0, headers: {}, body: Buffer.alloc(0), hung: false, error: (error as NodeJS.ErrnoException).code ?? error.message });
    });
    if (!request.body) {
      req.end();
    } else if (!request.chunked) {
      req.end(request.body);
    } else {
      void writeInPieces(req, request.body, 16 * 1024);
    }
  });
}

async function writeInPieces(req: http.ClientRequest, body: Buffer, piece: number): Promise<void> {
  for (let offset = 0; offset < body.length; offset += piece) {
    if (req.destroyed || req.writableEnded) return;
    const ok = req.write(body.subarray(offset, offset + piece));
    if (!ok) await new Promise<void>((resolve) => {
      const go = () => {
        req.off("drain", go);
        req.off("close", go);
        resolve();
      };
      req.on("drain", go);
      req.on("close", go);
    });
  }
  if (!req.destroyed) req.end();
}

// ---------------------------------------------------------------------------
// Raw: exact bytes on a socket; the first answer is parsed by hand.

export type RawRequest = { port: number; bytes: Buffer; halfClose?: boolean; timeoutMs: number };

export function sendRaw(request: RawRequest): Promise<HttpAnswer> {
  const started = performance.now();
  return new Promise((resolve) => {
    let settled = false;
    let received = Buffer.alloc(0);
    const socket = net.connect(request.port, "127.0.0.1");
    const finish = (hung: boolean, error?: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      const parsed = parseFirstResponse(received);
      const ms = Math.round(performance.now() - started);
      resolve(parsed ? { ...parsed, ms, hung: false, complete: parseFirstResponse(received, true) !== null || !hasFraming(parsed.headers) } : { status: 0, headers: {}, body: Buffer.alloc(0), ms, hung, complete: false, error: error ?? (received.length ? "unparseable answer" : "closed without an answer") });
    };
    const timer = setTimeout(() => finish(!parseFirstResponse(received, true), "no answer before the deadline"), request.timeoutMs);
    socket.on("connect", () => {
      socket.write(request.bytes, () => {
        if (request.halfClose) socket.end();
      });
    });
    socket.on("data", (chunk: Buffer) => {
      if (received.length < MAX_BODY) received = Buffer.concat([received, chunk]);
      if (parseFirstResponse(received, true)) finish(false);
    });
    socket.on("error", (error: NodeJS.ErrnoException) => finish(false, error.code ?? error.message));
    socket.on("close", () => finish(false));
  });
}

/** Without Content-Length or chunked encoding a body runs to the close, so it is always whole. */
function hasFraming(headers: Record<string, string>): boolean {
  return headers["content-length"] !== undefined || Boolean(headers["transfer-encoding"]?.toLowerCase().includes("chunked"));
}

/** The first complete HTTP/1.x response in `bytes` (Content-Length, chunked, or up to the close unless `complete`). */
function parseFirstResponse(bytes: Buffer, complete = false): Pick<HttpAnswer, "status" | "headers" | "body"> | null {
  const headEnd = bytes.indexOf("\r\n\r\n");
  if (headEnd < 0) return null;
  const lines = bytes.subarray(0, headEnd).toString("latin1").split("\r\n");
  const status = Number(/^HTTP\/\d(?:\.\d)? (\d{3})/.exec(lines.shift()!)?.[1] ?? NaN);
  if (!Number.isFinite(status)) return null;
  const headers: Record<string, string> = {};
  for (const line of lines) {
    const colon = line.indexOf(":");
    if (colon > 0) {
      const name = line.slice(0, colon).trim().toLowerCase();
      headers[name] = headers[name] ? `${headers[name]}, ${line.slice(colon + 1).trim()}` : line.slice(colon + 1).trim();
    }
  }
  // 1xx answers (100 Continue) come before the real one.
  if (status >= 100 && status < 200) return parseFirstResponse(bytes.subarray(headEnd + 4), complete);
  const rest = bytes.subarray(headEnd + 4);
  if (headers["transfer-encoding"]?.toLowerCase().includes("chunked")) {
    const chunks: Buffer[] = [];
    let at = 0;
    for (;;) {
      const lineEnd = rest.indexOf("\r\n", at);
      if (lineEnd < 0) return complete ? null : { status, headers, body: Buffer.concat(chunks) };
      const size = parseInt(rest.subarray(at, lineEnd).toString("latin1"), 16);
      if (!Number.isFinite(size)) return { status, headers, body: Buffer.concat(chunks) };
      if (size === 0) return { status, headers, body: Buffer.concat(chunks) };
      if (rest.length < lineEnd + 2 + size) return complete ? null : { status, headers, body: Buffer.concat([...chunks, rest.subarray(lineEnd + 2)]) };
      chunks.push(rest.subarray(lineEnd + 2, lineEnd + 2 + size));
      at = lineEnd + 2 + size + 2;
    }
  }
  const length = headers["content-length"] !== undefined ? Number(headers["content-length"]) : null;
  if (length !== null && Number.isFinite(length)) {
    if (rest.length < length) return complete ? null : { status, headers, body: rest };
    return { status, headers, body: rest.subarray(0, length) };
  }
  // No framing: the body runs to the close (or there is none, e.g. Node's bare 400).
  if (complete && status !== 204 && status !== 304) return null;
  return { status, headers, body: rest };
}
