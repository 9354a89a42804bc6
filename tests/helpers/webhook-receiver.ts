import { createHmac, timingSafeEqual } from "node:crypto";
import http from "node:http";
import net from "node:net";

export type ReceivedWebhook = { headers: http.IncomingHttpHeaders; raw: string; body: any; signatureValid: boolean | null };

/**
 * A local webhook receiver (node http on 127.0.0.1, port 0) for the alerts
 * tests: it keeps every POST, checks X-Telltale-Signature as a receiver
 * would (when given the secret), and answers what `respond` says: a status,
 * or "hang" to hold the request open (a slow receiver, a kill mid-send).
 */
export async function startWebhookReceiver() {
  const received: ReceivedWebhook[] = [];
  const waiters: (() => void)[] = [];
  const hanging = new Set<http.ServerResponse>();
  let secret: string | null = null;
  let respond: (n: number) => number | "hang" = () => 200;

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const raw = Buffer.concat(chunks).toString("utf8");
      let body: unknown = null;
      try {
        body = JSON.parse(raw);
      } catch {
        body = raw;
      }
      received.push({ headers: req.headers, raw, body, signatureValid: secret === null ? null : verifySignature(secret, raw, req.headers["x-telltale-signature"]) });
      waiters.splice(0).forEach((wake) => wake());
      const answer = respond(received.length);
      if (answer === "hang") {
        hanging.add(res);
        return;
      }
      res.writeHead(answer, { "content-type": "text/plain" }).end("ok");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as { port: number }).port;

  return {
    url: `http://127.0.0.1:${port}/hook`,
    received,
    /** The secret to verify signatures with (the rule's signingSecret). */
    verifyWith(value: string) {
      secret = value;
    },
    /** What to answer the nth request (1-based): a status code, or "hang". */
    respondWith(fn: (n: number) => number | "hang") {
      respond = fn;
    },
    /** Resolves once `count` requests have arrived (at most `timeoutMs`). */
    async waitFor(count: number, timeoutMs = 10_000): Promise<ReceivedWebhook[]> {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > deadline) throw new Error(`webhook receiver: ${received.length} of ${count} requests arrived`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 100);
        });
      }
      return received.slice(0, count);
    },
    async close() {
      for (const res of hanging) res.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** What a receiver does: HMAC-SHA256 of the raw body with the secret, compared in constant time. */
export function verifySignature(secret: string, rawBody: string, header: string | string[] | undefined): boolean {
  if (typeof header !== "string" || !header.startsWith("sha256=")) return false;
  const expected = Buffer.from(createHmac("sha256", secret).update(rawBody, "utf8").digest("hex"));
  const given = Buffer.from(header.slice("sha256=".length));
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * What a receiver does with the timestamped signature (docs/alerts.md):
 * X-Telltale-Signature-V1 `t=<ts>,v1=<hex>`, the HMAC of "<ts>.<raw body>";
 * `t` must equal X-Telltale-Timestamp and be within `toleranceS` of `nowS`.
 */
export function verifyTimestampedSignature(secret: string, rawBody: string, headers: http.IncomingHttpHeaders, nowS: number, toleranceS = 300): boolean {
  const header = headers["x-telltale-signature-v1"];
  if (typeof header !== "string") return false;
  const parts = Object.fromEntries(header.split(",").map((part) => part.split("=", 2) as [string, string]));
  const t = Number(parts.t);
  if (!Number.isInteger(t) || String(t) !== headers["x-telltale-timestamp"] || Math.abs(nowS - t) > toleranceS || !parts.v1) return false;
  const expected = Buffer.from(createHmac("sha256", secret).update(`${t}.${rawBody}`, "utf8").digest("hex"));
  const given = Buffer.from(parts.v1);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * A server that accepts connections and never answers (a dead webhook or a
 * mail server that hangs): it counts connections and holds them open until
 * closed. `greet` lines are written on connect (an SMTP server that says
 * hello, then goes quiet).
 */
export async function startSilentServer(greet: string[] = []) {
  const sockets = new Set<net.Socket>();
  let connections = 0;
  const waiters: (() => void)[] = [];
  const server = net.createServer((socket) => {
    connections++;
    sockets.add(socket);
    socket.on("close", () => sockets.delete(socket));
    socket.on("error", () => {});
    let said = 0;
    const say = () => {
      if (said < greet.length) socket.write(`${greet[said++]}\r\n`);
    };
    say();
    socket.on("data", say); // one line per command received, then nothing
    waiters.splice(0).forEach((wake) => wake());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as net.AddressInfo).port;
  return {
    port,
    url: `http://127.0.0.1:${port}/hook`,
    get connections() {
      return connections;
    },
    /** Connections still held open. */
    get open() {
      return sockets.size;
    },
    async waitForConnections(count: number, timeoutMs = 20_000): Promise<void> {
      const deadline = Date.now() + timeoutMs;
      while (connections < count) {
        if (Date.now() > deadline) throw new Error(`silent server: ${connections} of ${count} connections`);
        await new Promise<void>((resolve) => {
          waiters.push(resolve);
          setTimeout(resolve, 100);
        });
      }
    },
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
