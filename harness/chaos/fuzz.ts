/**
 * The fuzz phase: every corpus entry once, in order, each checked against
 * its expectation and the contract's rules for every error answer; then the
 * rows each entry left behind (found by its token) are counted.
 */
import { materializeBody, expandText, type PlaceholderValues } from "@/harness/chaos/expand";
import type { CorpusEntry } from "@/harness/chaos/corpus-types";
import { query } from "@/harness/chaos/fixtures";
import { sendHttp, sendRaw, type HttpAnswer } from "@/harness/chaos/http-client";
import { logSize, serverErrorLines, serverWarnings } from "@/harness/chaos/server";

export const FUZZ_TIMEOUT_MS = 10_000;
/** "An error answer ... stays small whatever the request": 100 problems fit well within this. */
export const MAX_ERROR_BODY_BYTES = 16 * 1024;
export const MAX_PROBLEMS = 100;

export type EntryResult = {
  name: string;
  category: string;
  method: string;
  expected: number[];
  got: number;
  code?: string;
  ms: number;
  bytes: number;
  failures: string[];
  stored: number;
  expectedStored: number;
  serverErrors: string[];
  /** For a failed entry: where a redirect pointed, and the start of the answer. */
  location?: string;
  excerpt?: string;
};

/** Values no answer may contain (keys, tokens, server secrets) and server paths no error may show. */
export type Secrets = { values: string[]; paths: string[]; origin: string };

type SentEvent = { level: unknown; message: unknown; context: unknown; timestamp: unknown };

const LEAK_PATTERNS: [string, RegExp][] = [
  ["a stack trace", /\bat [^\n"]{1,200}\((?:\/|file:|node:)[^)\n]*:\d+:\d+\)|\n\s+at [\w.<>]+ \(/],
  ["a node_modules path", /node_modules\//],
  ["SQL", /\b(SELECT [^"]{0,80}\bFROM|INSERT INTO|DELETE FROM|UPDATE \w+ SET)\b|syntax error at or near|violates (?:foreign key|unique|check|not-null) constraint|invalid input syntax for type|relation "\w+"|\$queryRaw/],
  ["a Prisma error", /PrismaClient\w*Error|Invalid `prisma\.|prisma\.\w+\.\w+\(\)/],
];

const KEY_SHAPED = /tlt_[0-9A-Za-z]{20,}/;

function hasHeader(headers: Record<string, string | string[]>, name: string): boolean {
  return Object.keys(headers).some((h) => h.toLowerCase() === name);
}

/** The request an entry describes, with this run's values filled in. */
export function buildRequest(entry: CorpusEntry, values: PlaceholderValues, credentials: Record<"key" | "otherKey" | "session" | "otherSession", string>) {
  const headers: Record<string, string | string[]> = {};
  for (const [name, value] of Object.entries(entry.headers)) headers[name] = Array.isArray(value) ? value.map((v) => expandText(v, values)) : expandText(value, values);
  if ((entry.auth === "key" || entry.auth === "otherKey") && !hasHeader(headers, "authorization")) headers.authorization = `Bearer ${credentials[entry.auth]}`;
  if ((entry.auth === "session" || entry.auth === "otherSession") && !hasHeader(headers, "cookie")) headers.cookie = `authjs.session-token=${credentials[entry.auth]}`;
  const body = entry.body === undefined ? undefined : materializeBody(entry.body, values);
  return { method: entry.method, path: expandText(entry.path, values), headers, body };
}

function rawRequestBytes(entry: CorpusEntry, request: ReturnType<typeof buildRequest>, values: PlaceholderValues): Buffer {
  if (entry.bytes !== undefined) return materializeBody(entry.bytes, values);
  const lines = [`${request.method} ${request.path} HTTP/1.1`];
  if (!hasHeader(request.headers, "host")) lines.push(`Host: ${values.host}`);
  for (const [name, value] of Object.entries(request.headers)) for (const v of Array.isArray(value) ? value : [value]) lines.push(`${name}: ${v}`);
  lines.push("Connection: close");
  const framing = entry.framing ?? "length";
  let body = request.body ?? Buffer.alloc(0);
  if (framing === "length" && request.body) lines.push(`Content-Length: ${body.length}`);
  if (framing === "chunked") {
    lines.push("Transfer-Encoding: chunked");
    const chunks: Buffer[] = [];
    for (let at = 0, size = 1; at < body.length; at += size, size = (size % 17) + 1) {
      const piece = body.subarray(at, at + size);
      chunks.push(Buffer.from(`${piece.length.toString(16)}\r\n`), piece, Buffer.from("\r\n"));
    }
    chunks.push(Buffer.from("0\r\n\r\n"));
    body = Buffer.concat(chunks);
  }
  return Buffer.concat([Buffer.from(`${lines.join("\r\n")}\r\n\r\n`, "utf8"), body]);
}

export async function sendEntry(entry: CorpusEntry, request: ReturnType<typeof buildRequest>, port: number, values: PlaceholderValues): Promise<HttpAnswer> {
  if (entry.transport === "raw") return sendRaw({ port, bytes: rawRequestBytes(entry, request, values), halfClose: entry.halfClose, timeoutMs: FUZZ_TIMEOUT_MS });
  return sendHttp({ port, method: request.method, path: request.path, headers: request.headers, body: request.body, chunked: entry.transport === "chunked", timeoutMs: FUZZ_TIMEOUT_MS });
}

/** Node's own refusal of a request it could not parse: a bare status line, no body, no request id. */
function isTransportRefusal(answer: HttpAnswer): boolean {
  return answer.status >= 400 && !answer.headers["x-request-id"] && !answer.headers["content-type"] && answer.body.length === 0;
}

function isProblemRoute(entry: CorpusEntry, path: string): boolean {
  return entry.expect.problem !== false && path.startsWith("/api/") && !path.startsWith("/api/auth/");
}

const LOOPBACK = new Set(["127.0.0.1", "localhost", "[::1]"]);

/** A relative redirect, or one to this service (any loopback name for it: the server listens on 127.0.0.1). */
function isOwnLocation(location: string, origin: string): boolean {
  const target = new URL(location, "http://relative.invalid");
  if (target.host === "relative.invalid") return true;
  const own = new URL(origin);
  return target.port === own.port && (target.hostname === own.hostname || (LOOPBACK.has(target.hostname) && LOOPBACK.has(own.hostname)));
}

/** Every rule an answer must keep; returns the broken ones. */
export function checkAnswer(entry: CorpusEntry, path: string, answer: HttpAnswer, secrets: Secrets): { failures: string[]; code?: string } {
  const failures: string[] = [];
  const expected = entry.expect.status;
  if (answer.hung) return { failures: [`no answer within ${FUZZ_TIMEOUT_MS / 1000} s (a hang)`] };
  if (answer.status !== 0 && !answer.complete) failures.push(`the ${answer.status} answer was cut off before its end`);
  if (!expected.includes(answer.status)) failures.push(`status ${answer.status === 0 ? `0 (${answer.error ?? "closed"})` : answer.status}, expected ${expected.join("/")}`);
  let code: string | undefined;
  const text = answer.body.toString("utf8");
  const bareRefusal = isTransportRefusal(answer);
  if (answer.status >= 400) {
    if (answer.body.length > MAX_ERROR_BODY_BYTES) failures.push(`error body of ${answer.body.length} bytes (over ${MAX_ERROR_BODY_BYTES})`);
    if (bareRefusal && !entry.expect.transportRefusal) failures.push(`a bare ${answer.status} with no problem details (the request never reached the app?)`);
    if (isProblemRoute(entry, path) && !bareRefusal) {
      const type = answer.headers["content-type"] ?? "";
      if (!type.startsWith("application/problem+json")) failures.push(`Content-Type "${type || "none"}" instead of application/problem+json`);
      if (entry.method !== "HEAD") {
        let problem: Record<string, unknown> | null = null;
        try {
          problem = JSON.parse(text) as Record<string, unknown>;
        } catch {
          failures.push("the error body is not JSON");
        }
        if (problem) {
          code = typeof problem.code === "string" ? problem.code : undefined;
          if (!code) failures.push("problem details without a code");
          else if (entry.expect.code && entry.expect.code.length && !entry.expect.code.includes(code) && expected.includes(answer.status)) failures.push(`code ${code}, expected ${entry.expect.code.join("/")}`);
          if (problem.status !== answer.status) failures.push(`problem status ${String(problem.status)} differs from HTTP ${answer.status}`);
          for (const field of ["type", "title", "detail"]) if (typeof problem[field] !== "string") failures.push(`problem details without ${field}`);
          if (Array.isArray(problem.errors) && problem.errors.length > MAX_PROBLEMS) failures.push(`${problem.errors.length} problems listed (at most ${MAX_PROBLEMS})`);
        }
      }
      if (answer.status === 405 && !answer.headers.allow) failures.push("405 without an Allow header");
      if ((answer.status === 429 || answer.status === 503) && !answer.headers["retry-after"]) failures.push(`${answer.status} without Retry-After`);
      if (answer.status === 401 && path.startsWith("/api/events") && !answer.headers["www-authenticate"]) failures.push("401 on ingestion without WWW-Authenticate");
    }
  }
  if (answer.status >= 300 && answer.status < 400 && answer.headers.location && !isOwnLocation(answer.headers.location, secrets.origin)) {
    failures.push(`redirect to another host: ${answer.headers.location}`);
  }
  if (answer.status >= 400 || answer.status === 0) {
    for (const [what, pattern] of LEAK_PATTERNS) if (pattern.test(text)) failures.push(`the answer contains ${what}: ${JSON.stringify(text.match(pattern)?.[0]?.slice(0, 80))}`);
    if (secrets.paths.some((p) => text.includes(p))) failures.push("the answer contains a server path");
    if (KEY_SHAPED.test(text)) failures.push("the error answer echoes a key-shaped string");
  }
  for (const secret of secrets.values) if (secret && text.includes(secret) && !(answer.status < 300 && entry.auth === "session")) failures.push("the answer contains a secret (key, session token or server secret)");
  return { failures, ...(code ? { code } : {}) };
}

function sentEvents(body: Buffer | undefined): SentEvent[] {
  if (!body) return [];
  try {
    const parsed = JSON.parse(body.toString("utf8").replace(/^\ufeff/, "")) as ({ events?: SentEvent[] } & SentEvent) | SentEvent[];
    // A batch is {"events": [...]} or the bare array.
    if (Array.isArray(parsed)) return parsed;
    return Array.isArray(parsed.events) ? parsed.events : [parsed];
  } catch {
    return [];
  }
}

/** JSON with sorted keys: JSONB does not keep key order. */
function canonical(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`;
  if (value && typeof value === "object") return `{${Object.keys(value).sort().map((k) => `${JSON.stringify(k)}:${canonical((value as Record<string, unknown>)[k])}`).join(",")}}`;
  return JSON.stringify(value ?? null);
}

/** A sent timestamp as the service reads it: ISO 8601, or unix time (seconds below 10^12, else milliseconds). */
function timestampMs(value: unknown): number {
  if (typeof value === "number") return value < 1e12 ? Math.round(value * 1000) : value;
  return new Date(value as string).getTime();
}

function eventSignature(e: { level: unknown; message: unknown; context: unknown; timestamp: unknown }): string {
  const ts = e.timestamp === undefined || e.timestamp === null ? "none" : String(timestampMs(e.timestamp));
  return `${String(e.level)}|${String(e.message)}|${canonical(e.context ?? null)}|${ts}`;
}

export type FuzzOutcome = {
  results: EntryResult[];
  unattributedRows: number;
  alteredRows: { entry: string; detail: string }[];
  serverErrors: string[];
};

export async function runFuzz(options: {
  entries: CorpusEntry[];
  port: number;
  baseValues: Omit<PlaceholderValues, "token">;
  credentials: Record<"key" | "otherKey" | "session" | "otherSession", string>;
  secrets: Secrets;
  logFile: string;
  dbUrl: string;
  mails: () => { to: string[] }[];
  onProgress?: (done: number, total: number) => void;
}): Promise<FuzzOutcome> {
  const { entries, port, baseValues, credentials, secrets, logFile, dbUrl } = options;
  const tokenOf = (i: number) => `q${i}q${baseValues.run}`;
  const results: EntryResult[] = [];
  const sent = new Map<number, SentEvent[]>();
  const logStart = logSize(logFile);
  for (const [i, entry] of entries.entries()) {
    const values = { ...baseValues, token: tokenOf(i) } as PlaceholderValues;
    const request = buildRequest(entry, values, credentials);
    if (entry.expect.exact) sent.set(i, sentEvents(request.body));
    const before = logSize(logFile);
    const answer = await sendEntry(entry, request, port, values);
    // The server logs asynchronously, and a hung-up request is logged after the client left:
    // a moment lets such a line land with its own entry rather than the next one.
    if (entry.transport === "raw" || answer.status >= 500 || answer.status === 0 || isTransportRefusal(answer)) await new Promise((r) => setTimeout(r, 200));
    const { failures, code } = checkAnswer(entry, request.path, answer, secrets);
    const errors = serverErrorLines(logFile, before).lines;
    if (errors.length) failures.push(`the server logged ${errors.length} error line(s)`);
    // The database is up for the whole phase: a 503 or this warning means a client error was taken for an outage.
    const misclassified = serverWarnings(logFile, before).filter((l) => l.includes('"msg":"database unavailable"'));
    if (misclassified.length) failures.push(`the server logged "database unavailable" while the database was up (${JSON.parse(misclassified[0]!).error ?? "?"})`);
    results.push({
      name: entry.name,
      category: entry.category,
      method: entry.method,
      expected: entry.expect.status,
      got: answer.status,
      ...(code ? { code } : {}),
      ms: answer.ms,
      bytes: answer.body.length,
      failures,
      stored: 0,
      expectedStored: 0,
      serverErrors: errors.map((l) => l.slice(0, 400)),
      ...(answer.headers.location ? { location: answer.headers.location } : {}),
      ...(failures.length && answer.body.length ? { excerpt: answer.body.toString("utf8").slice(0, 300) } : {}),
    });
    results[i]!.expectedStored = answer.status >= 200 && answer.status < 300 ? (entry.expect.stored ?? 0) : 0;
    options.onProgress?.(i + 1, entries.length);
  }
  // Let in-flight writes (group commit) and mails land before counting.
  await new Promise((r) => setTimeout(r, 1500));

  // Rows carrying a token: events (message or context), projects (name), invitations (email), mails.
  const tokenPattern = new RegExp(`q(\\d+)q${baseValues.run}`, "g");
  const found = (text: string | null) => new Set([...(text ?? "").matchAll(tokenPattern)].map((m) => Number(m[1])));
  const eventRows = await query<{ level: string; message: string; context: unknown; context_text: string | null; timestamp: Date | null; project_id: string }>(
    dbUrl,
    "SELECT level::text, message, context, context::text AS context_text, timestamp, project_id FROM events WHERE project_id = ANY($1)",
    [[baseValues.projectId, baseValues.otherProjectId, baseValues.scratchProjectId]],
  );
  let unattributedRows = 0;
  const rowsByEntry = new Map<number, typeof eventRows>();
  for (const row of eventRows) {
    const owners = new Set([...found(row.message), ...found(row.context_text)]);
    if (owners.size === 0) {
      if (!row.message.startsWith(`fixture ${baseValues.run}`)) unattributedRows++;
      continue;
    }
    for (const i of owners) rowsByEntry.set(i, [...(rowsByEntry.get(i) ?? []), row]);
  }
  const other = [
    ...(await query<{ text: string }>(dbUrl, "SELECT name AS text FROM projects")),
    ...(await query<{ text: string }>(dbUrl, "SELECT email AS text FROM invitations")),
    ...options.mails().map((m) => ({ text: m.to.join(" ") })),
  ];
  const otherByEntry = new Map<number, number>();
  for (const row of other) for (const i of found(row.text)) otherByEntry.set(i, (otherByEntry.get(i) ?? 0) + 1);

  const alteredRows: { entry: string; detail: string }[] = [];
  for (const [i, result] of results.entries()) {
    const rows = rowsByEntry.get(i) ?? [];
    result.stored = rows.length + (otherByEntry.get(i) ?? 0);
    if (result.stored > result.expectedStored) result.failures.push(`${result.stored} row(s) stored, expected ${result.expectedStored}`);
    if (result.stored < result.expectedStored) result.failures.push(`acknowledged but only ${result.stored} of ${result.expectedStored} row(s) stored`);
    const sentHere = sent.get(i);
    if (sentHere && sentHere.length && rows.length && result.got >= 200 && result.got < 300) {
      const want = sentHere.map(eventSignature).sort();
      const have = rows.map((r) => eventSignature({ level: r.level, message: r.message, context: r.context, timestamp: r.timestamp })).sort();
      const mismatches = have.filter((sig, k) => sig !== want[k]).length;
      if (mismatches > 0) {
        const k = have.findIndex((sig, j) => sig !== want[j]);
        alteredRows.push({ entry: result.name, detail: `sent ${want[k]?.slice(0, 160)} / stored ${have[k]?.slice(0, 160)}` });
        result.failures.push(`${mismatches} stored row(s) differ from what was sent`);
      }
    }
  }
  return { results, unattributedRows, alteredRows, serverErrors: serverErrorLines(logFile, logStart).lines };
}
