/**
 * npm run chaos:corpus: writes harness/chaos/corpus.json, the hostile requests
 * the chaos run (harness/chaos/run.ts) sends, each with what must happen.
 * Deterministic: the same seed gives the same file byte for byte, so a diff
 * of the corpus is a reviewable change.
 *
 * Expectations come from the contract (docs/api.md, the README), not from
 * what the service answers today: an entry that fails is a finding.
 */
import fs from "node:fs";
import path from "node:path";
import { crc32 } from "node:zlib";
import { isWellFormedApiKey } from "@/lib/keys/format";
import type { ChaosAuth, ChaosBody, ChaosExpectation, Corpus, CorpusEntry } from "@/harness/chaos/corpus-types";

export const CORPUS_SEED = 20_261_122;
export const CORPUS_PATH = path.resolve(import.meta.dirname, "corpus.json");

/** mulberry32: small, seedable, good enough to pick test cases. */
function seededRandom(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (n: number) => Math.floor(next() * n),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!,
  };
}

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/** A key of the right shape with a valid CRC32 checksum (lib/keys/format.ts), belonging to no project. */
function forgeKey(random: () => number): string {
  let body = "";
  for (let i = 0; i < 32; i++) body += BASE62[Math.floor(random() * 62)];
  let n = crc32(Buffer.from(body, "ascii"));
  let sum = "";
  while (n > 0) {
    sum = BASE62[n % 62] + sum;
    n = Math.floor(n / 62);
  }
  const key = `tlt_${body}${sum.padStart(6, "0")}`;
  if (!isWellFormedApiKey(key)) throw new Error(`forged key ${key} does not pass the checksum`);
  return key;
}

// ---------------------------------------------------------------------------
// Building blocks

const JSON_CT = { "content-type": "application/json" };
const SAME_ORIGIN = { origin: "{{origin}}" };
const EVIL = "https://evil.example";

const REFUSED_JSON: ChaosExpectation = { status: [400], code: ["invalid_json"] };
const INVALID: ChaosExpectation = { status: [400], code: ["validation_failed"] };
const TOO_LARGE: ChaosExpectation = { status: [413], code: ["payload_too_large"] };
const NOT_JSON_TYPE: ChaosExpectation = { status: [415], code: ["unsupported_media_type"] };
const MISMATCH: ChaosExpectation = { status: [403], code: ["project_mismatch"] };
const NOT_FOUND: ChaosExpectation = { status: [404], code: ["not_found"] };
const NOT_ALLOWED: ChaosExpectation = { status: [405], code: ["method_not_allowed"] };
const CROSS_SITE: ChaosExpectation = { status: [403], code: ["forbidden"] };
const UNAUTHENTICATED: ChaosExpectation = { status: [401], code: ["unauthenticated"] };
// The fuzz server runs with the failed-authentication throttle off
// (AUTH_FAILURES_PER_MINUTE=0, harness/chaos/run.ts): every request comes
// from one address, and past 30 forged keys the throttle would answer 429 to
// everything after it, valid keys not yet cached included, so each forged
// key would no longer reach the lookup it is meant to test. The throttle has
// its own tests (tests/integration/ingest-hardening.test.ts).
const NO_KEY: ChaosExpectation = { status: [401], code: ["missing_api_key"] };
const BAD_KEY: ChaosExpectation = { status: [401], code: ["invalid_api_key"] };
const STORED = (rows: number, exact = true): ChaosExpectation => ({ status: [201], stored: rows, ...(exact ? { exact: true as const } : {}) });
const OK = (status = 200): ChaosExpectation => ({ status: [status] });

type EventFields = Record<string, unknown>;

/** A valid event carrying the entry's token, with fields replaced or added. */
function event(over: EventFields = {}, projectId = "{{projectId}}"): EventFields {
  return { level: "info", message: "chaos {{token}}", projectId, ...over };
}
const eventJson = (over: EventFields = {}, projectId?: string) => JSON.stringify(event(over, projectId));

/** The body text of an event with `raw` spliced in as the value of `field` (for values JSON.stringify cannot write). */
function eventWithRaw(field: string, raw: string): string {
  return `{"level":"info","message":"chaos {{token}}","projectId":"{{projectId}}",${JSON.stringify(field)}:${raw}}`;
}
const contextWithRaw = (raw: string) => eventWithRaw("context", `{"v":${raw},"t":"{{token}}"}`);

/**
 * A context `levels` deep, its own object counted as level 1: the README's
 * "context: any JSON object, at most 32 levels deep", which the service
 * enforces (docs/api.md's "the event object is level 1" counts one level
 * fewer and disagrees).
 */
function nestedContext(levels: number, kind: "object" | "array"): string {
  // The context object is level 1; the containers inside it take levels 2..`levels`.
  const inside = levels - 1;
  const value = kind === "object" ? `${times('{"n":', inside - 1)}{}${times("}", inside - 1)}` : `${times("[", inside)}${times("]", inside)}`;
  return `{"t":"{{token}}","n":${value}}`;
}

class CorpusBuilder {
  readonly entries: CorpusEntry[] = [];
  private names = new Set<string>();

  add(entry: Omit<CorpusEntry, "headers" | "auth"> & { headers?: CorpusEntry["headers"]; auth?: ChaosAuth }): void {
    if (this.names.has(entry.name)) throw new Error(`duplicate corpus entry name: ${entry.name}`);
    this.names.add(entry.name);
    this.entries.push({ ...entry, headers: entry.headers ?? {}, auth: entry.auth ?? "none" });
  }

  /** POST /api/events with the main key and a JSON content type. */
  ingest(category: string, name: string, body: ChaosBody | undefined, expect: ChaosExpectation, extra: Partial<CorpusEntry> = {}): void {
    this.add({ name, category, method: "POST", path: "/api/events", headers: { ...JSON_CT, ...(extra.headers ?? {}) }, body, auth: "key", expect, ...omit(extra, "headers") });
  }

  batch(category: string, name: string, body: ChaosBody | undefined, expect: ChaosExpectation, extra: Partial<CorpusEntry> = {}): void {
    this.add({ name, category, method: "POST", path: "/api/events/batch", headers: { ...JSON_CT, ...(extra.headers ?? {}) }, body, auth: "key", expect, ...omit(extra, "headers") });
  }
}

function omit<T extends object, K extends keyof T>(value: T, key: K): Omit<T, K> {
  const { [key]: _dropped, ...rest } = value;
  return rest;
}

/** `text` repeated `n` times; long runs become a placeholder the runner expands, so the corpus file stays small. */
function times(text: string, n: number): string {
  return text.length * n <= 512 ? text.repeat(n) : `{{repeat:${n}:${encodeURIComponent(text)}}}`;
}

const b64 = (bytes: number[] | Buffer) => ({ base64: Buffer.from(bytes).toString("base64") });

// ---------------------------------------------------------------------------
// The routes, with the methods each serves.

type Route = { path: string; serves: string[]; auth: ChaosAuth };
const ROUTES: Route[] = [
  { path: "/api/events", serves: ["POST"], auth: "key" },
  { path: "/api/events/batch", serves: ["POST"], auth: "key" },
  { path: "/api/ai/summarize", serves: ["GET"], auth: "session" },
  { path: "/api/projects", serves: ["GET", "POST"], auth: "session" },
  { path: "/api/projects/{{projectId}}", serves: ["GET", "PATCH", "DELETE"], auth: "session" },
  { path: "/api/projects/{{projectId}}/key", serves: ["POST"], auth: "session" },
  { path: "/api/projects/{{projectId}}/events", serves: ["GET"], auth: "session" },
  { path: "/api/projects/{{projectId}}/events/{{eventId}}", serves: ["GET"], auth: "session" },
  { path: "/api/projects/{{projectId}}/issues", serves: ["GET", "PATCH"], auth: "session" },
  { path: "/api/projects/{{projectId}}/issues/{{issueId}}", serves: ["GET", "PATCH"], auth: "session" },
  { path: "/api/projects/{{projectId}}/members", serves: ["GET"], auth: "session" },
  { path: "/api/projects/{{projectId}}/members/{{memberUserId}}", serves: ["PATCH", "DELETE"], auth: "session" },
  { path: "/api/projects/{{projectId}}/invitations", serves: ["GET", "POST"], auth: "session" },
  { path: "/api/projects/{{projectId}}/invitations/{{scratchInvitationId}}", serves: ["DELETE"], auth: "session" },
  { path: "/api/invitations", serves: ["GET"], auth: "session" },
  { path: "/api/invitations/{{inviteToken}}/accept", serves: ["POST"], auth: "session" },
  { path: "/api/health/live", serves: ["GET"], auth: "none" },
  { path: "/api/health/ready", serves: ["GET"], auth: "none" },
];

// ---------------------------------------------------------------------------

export function generateCorpus(seed = CORPUS_SEED): Corpus {
  const rnd = seededRandom(seed);
  const c = new CorpusBuilder();

  // --- Controls: valid requests that must succeed (and be stored exactly). ---
  c.ingest("control", "control: minimal event", eventJson(), STORED(1));
  c.ingest("control", "control: event with context and ISO timestamp", eventJson({ level: "error", context: { orderId: 4711, ok: true, tags: ["a", "b"], nested: { x: null } }, timestamp: "2026-01-31T12:00:00Z" }), STORED(1));
  c.ingest("control", "control: timestamp in unix milliseconds", eventJson({ level: "warn", timestamp: 1_767_225_600_000 }), STORED(1));
  c.ingest("control", "control: unicode message and keys", eventJson({ message: "chaos {{token}} ünïcødé 🚀 עברית e\u0301 \u200b", context: { "ключ": "值", "": "empty key", "emoji🙂": [1, 2] } }), STORED(1));
  c.ingest("control", "control: surrogate pair escapes", `{"level":"info","message":"chaos {{token}} \\ud83d\\ude00","projectId":"{{projectId}}"}`, STORED(1));
  c.ingest("control", "control: numbers a double keeps exactly", contextWithRaw(`[0.1, 1.5, -2, 100, 9007199254740991, -9007199254740991, 1e308, 5e-324, 2.5e-10, 123.456]`), STORED(1));
  c.ingest("control", "control: __proto__ and constructor keys in context", contextWithRaw(`{"__proto__":{"polluted":true},"constructor":{"prototype":{"polluted":true}}}`), STORED(1), { why: "context is any JSON object; the keys must be stored as data, never merged into a prototype" });
  c.ingest("control", "control: message of exactly 10,000 characters", eventJson({ message: times("m", 10_000), context: { t: "{{token}}" } }), STORED(1));
  c.ingest("control", "control: message of 5,000 emoji (10,000 UTF-16 units)", eventJson({ message: times("🙂", 5_000), context: { t: "{{token}}" } }), STORED(1), { why: "5,000 characters by any count: code points or UTF-16 units" });
  c.ingest("control", "control: nesting of exactly 32 levels (object)", eventWithRaw("context", nestedContext(32, "object")), STORED(1), { why: "the contract: a context 32 levels deep is accepted, 33 refused (the context object is level 1)" });
  c.ingest("control", "control: nesting of exactly 32 levels (array)", eventWithRaw("context", nestedContext(32, "array")), STORED(1));
  c.ingest("control", "control: body of exactly 256 KiB", { fill: { before: `{"level":"info","message":"chaos {{token}}","projectId":"{{projectId}}","context":{"pad":"`, char: "x", after: `"}}`, totalBytes: 256 * 1024 } }, STORED(1));
  c.ingest("control", "control: application/*+json content type", eventJson(), STORED(1), { headers: { "content-type": "application/vnd.telltale+json" } });
  c.ingest("control", "control: content type with charset, upper case", eventJson(), STORED(1), { headers: { "content-type": "APPLICATION/JSON; charset=UTF-8" } });
  c.ingest("control", "control: bearer in lower case with two spaces", eventJson(), STORED(1), { headers: { authorization: "bearer  {{key}}" } });
  c.ingest("control", "control: Idempotency-Key first use", eventJson(), STORED(1), { headers: { "idempotency-key": "chaos-replay" } });
  c.ingest("control", "control: Idempotency-Key replay stores nothing", eventJson(), { status: [201], stored: 0 }, { headers: { "idempotency-key": "chaos-replay" }, why: "a replay answers the first answer and stores nothing new" });
  c.ingest("control", "control: Idempotency-Key of 200 printable characters", eventJson(), STORED(1), { headers: { "idempotency-key": `chaos ${times("~!", 97)}`.padEnd(200, "z") }, why: "keys are per project, and the run's projects are new" });
  c.ingest("control", "control: chunked transfer of a valid event", eventJson(), STORED(1), { transport: "chunked" });
  c.ingest("control", "control: other project with its own key", eventJson({}, "{{otherProjectId}}"), STORED(1), { auth: "otherKey" });
  c.batch("control", "control: batch of 3", JSON.stringify({ events: [event(), event({ level: "warn" }), event({ level: "error", context: { i: 3 } })] }), STORED(3));
  c.batch("control", "control: batch of 1,000 events (the limit)", { repeat: { before: `{"events":[`, item: eventJson(), separator: ",", after: "]}", times: 1000 } }, STORED(1000, false));
  c.batch("control", "control: batch body of exactly 1 MiB", { fill: { before: `{"events":[{"level":"info","message":"chaos {{token}}","projectId":"{{projectId}}","context":{"pad":"`, char: "y", after: `"}}]}`, totalBytes: 1024 * 1024 } }, STORED(1));
  c.batch("control", "control: batch event nested exactly 32 levels", `{"events":[${eventWithRaw("context", nestedContext(32, "object"))}]}`, STORED(1));
  c.add({ name: "control: GET /api/projects", category: "control", method: "GET", path: "/api/projects", auth: "session", expect: OK() });
  c.add({ name: "control: GET project", category: "control", method: "GET", path: "/api/projects/{{projectId}}", auth: "session", expect: OK() });
  c.add({ name: "control: GET project events", category: "control", method: "GET", path: "/api/projects/{{projectId}}/events?limit=5&level=error,warn,info", auth: "session", expect: OK() });
  c.add({ name: "control: GET one event", category: "control", method: "GET", path: "/api/projects/{{projectId}}/events/{{eventId}}", auth: "session", expect: OK() });
  c.add({ name: "control: GET issues", category: "control", method: "GET", path: "/api/projects/{{projectId}}/issues?status=all", auth: "session", expect: OK() });
  c.add({ name: "control: GET one issue", category: "control", method: "GET", path: "/api/projects/{{projectId}}/issues/{{issueId}}", auth: "session", expect: OK() });
  c.add({ name: "control: GET members", category: "control", method: "GET", path: "/api/projects/{{projectId}}/members", auth: "session", expect: OK() });
  c.add({ name: "control: GET project invitations", category: "control", method: "GET", path: "/api/projects/{{projectId}}/invitations", auth: "session", expect: OK() });
  c.add({ name: "control: GET /api/invitations", category: "control", method: "GET", path: "/api/invitations", auth: "session", expect: OK() });
  c.add({ name: "control: GET summary", category: "control", method: "GET", path: "/api/ai/summarize?limit=20", auth: "session", expect: OK() });
  c.add({ name: "control: GET summary of one project", category: "control", method: "GET", path: "/api/ai/summarize?projectId={{projectId}}&since=0", auth: "session", expect: OK() });
  c.add({ name: "control: liveness", category: "control", method: "GET", path: "/api/health/live", expect: OK() });
  c.add({ name: "control: readiness", category: "control", method: "GET", path: "/api/health/ready", expect: OK() });
  c.add({ name: "control: HEAD liveness", category: "control", method: "HEAD", path: "/api/health/live", expect: OK() });
  c.add({ name: "control: create project from the same origin", category: "control", method: "POST", path: "/api/projects", headers: { ...JSON_CT, ...SAME_ORIGIN }, body: JSON.stringify({ name: "chaos {{token}}" }), auth: "session", expect: { status: [201], stored: 1 } });
  c.add({ name: "control: create project without Origin (a script)", category: "control", method: "POST", path: "/api/projects", headers: JSON_CT, body: JSON.stringify({ name: "chaos {{token}}" }), auth: "session", expect: { status: [201], stored: 1 } });
  c.add({ name: "control: invite from the same origin", category: "control", method: "POST", path: "/api/projects/{{scratchProjectId}}/invitations", headers: { ...JSON_CT, ...SAME_ORIGIN }, body: JSON.stringify({ email: "chaos-{{token}}@example.test" }), auth: "session", expect: { status: [201], stored: 2 }, why: "the invitation row and its mail" });
  c.add({ name: "control: resolve an issue from the same origin", category: "control", method: "PATCH", path: "/api/projects/{{projectId}}/issues/{{issueId}}", headers: { ...JSON_CT, ...SAME_ORIGIN }, body: JSON.stringify({ status: "resolved" }), auth: "session", expect: OK() });

  // --- Methods: every route, every method it does not serve, and odd ones. ---
  const STANDARD = ["GET", "POST", "PUT", "PATCH", "DELETE"];
  for (const route of ROUTES) {
    for (const method of STANDARD.filter((m) => !route.serves.includes(m))) {
      c.add({ name: `method: ${method} ${route.path}`, category: "method", method, path: route.path, auth: route.auth, headers: method === "GET" ? {} : JSON_CT, body: method === "GET" ? undefined : eventJson(), expect: NOT_ALLOWED });
    }
    // HEAD is answered as GET without a body (Next.js), so it gets GET's status.
    const headStatus = route.serves.includes("GET") ? [200] : [405];
    c.add({ name: `method: HEAD ${route.path}`, category: "method", method: "HEAD", path: route.path, auth: route.auth, expect: { status: headStatus } });
    c.add({ name: `method: OPTIONS ${route.path}`, category: "method", method: "OPTIONS", path: route.path, auth: route.auth, expect: { status: [204, 405] }, why: "OPTIONS may be answered (204 with Allow) or refused (405); never a 5xx" });
    for (const method of ["TRACE", "PROPFIND", "FOO"]) {
      c.add({ name: `method: ${method} ${route.path}`, category: "method", method, path: route.path, auth: route.auth, expect: { ...NOT_ALLOWED, ...(method === "FOO" ? { status: [400, 405], code: ["method_not_allowed"], transportRefusal: true as const } : {}) }, ...(method === "FOO" ? { why: "Node's HTTP parser knows no FOO method and refuses it with a bare 400 before the app" } : {}) });
    }
  }
  for (const p of ["/api/events", "/api/projects", "/api/health/live"]) {
    c.add({ name: `method: CONNECT ${p}`, category: "method", method: "CONNECT", path: p, transport: "raw", auth: "none", expect: { status: [405, 400, 0], code: ["method_not_allowed"], transportRefusal: true }, why: "Node hands CONNECT to a 'connect' listener; the app's guard answers it 405 (0 or 400: a bare refusal before the app)" });
  }
  for (const [method, p] of [["MKCOL", "/api/projects"], ["LOCK", "/api/events"], ["PURGE", "/api/events"], ["SEARCH", "/api/projects"], ["LINK", "/api/events/batch"], ["UNLINK", "/api/projects/{{projectId}}"], ["REPORT", "/api/ai/summarize"], ["M-SEARCH", "/api/health/live"]] as const) {
    c.add({ name: `method: ${method} ${p}`, category: "method", method, path: p, auth: "session", expect: { ...NOT_ALLOWED, status: [405, 400], transportRefusal: true }, why: "a WebDAV/UPnP method Node parses: 405 from the app (400 only as a bare refusal by Node's parser)" });
  }
  for (const method of ["get", "Post", "BREW", "GET2"]) {
    c.add({ name: `method: ${method} /api/events (raw)`, category: "method", method, path: "/api/events", transport: "raw", auth: "key", headers: JSON_CT, body: eventJson(), expect: { status: [400, 405], code: ["method_not_allowed"], transportRefusal: true }, why: "methods are case-sensitive tokens; Node's parser refuses unknown ones" });
  }

  // --- Malformed JSON on ingestion. ---
  const valid = eventJson({ context: { a: [1, 2, { b: "ü" }] } });
  const cuts = new Set<number>();
  while (cuts.size < 16) cuts.add(1 + rnd.int(valid.length - 2));
  for (const cut of [...cuts].sort((a, b) => a - b)) c.ingest("json", `json: truncated at byte ${cut}`, valid.slice(0, cut), REFUSED_JSON);
  c.ingest("json", "json: empty body", "", REFUSED_JSON);
  c.ingest("json", "json: whitespace only", " \r\n\t ", REFUSED_JSON);
  c.ingest("json", "json: trailing garbage", `${eventJson()}x`, REFUSED_JSON);
  c.ingest("json", "json: two objects", `${eventJson()}${eventJson()}`, REFUSED_JSON);
  c.ingest("json", "json: comment", `{/* c */"level":"info","message":"chaos {{token}}","projectId":"{{projectId}}"}`, REFUSED_JSON);
  c.ingest("json", "json: single quotes", `{'level':'info','message':'chaos {{token}}','projectId':'{{projectId}}'}`, REFUSED_JSON);
  c.ingest("json", "json: trailing comma", `{"level":"info","message":"chaos {{token}}","projectId":"{{projectId}}",}`, REFUSED_JSON);
  c.ingest("json", "json: unquoted key", `{level:"info","message":"chaos {{token}}","projectId":"{{projectId}}"}`, REFUSED_JSON);
  for (const literal of ["NaN", "Infinity", "-Infinity", "0x10", "01", "+1", ".5", "1.", "1e", "--1", "undefined"]) {
    c.ingest("json", `json: ${literal} literal in context`, contextWithRaw(literal), REFUSED_JSON);
  }
  c.ingest("json", "json: raw control character in a string", `{"level":"info","message":"chaos {{token}}\u0001","projectId":"{{projectId}}"}`, REFUSED_JSON);
  c.ingest("json", "json: raw NUL byte in a string", `{"level":"info","message":"chaos {{token}}\u0000","projectId":"{{projectId}}"}`, REFUSED_JSON);
  c.ingest("json", "json: bad escape", `{"level":"info","message":"chaos {{token}} \\x41","projectId":"{{projectId}}"}`, REFUSED_JSON);
  c.ingest("json", "json: short unicode escape", `{"level":"info","message":"chaos {{token}} \\u12","projectId":"{{projectId}}"}`, REFUSED_JSON);
  c.ingest("json", "json: unterminated string", `{"level":"info","message":"chaos {{token}}`, REFUSED_JSON);
  c.ingest("json", "json: UTF-16LE with BOM", b64(Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(`{"level":"info","message":"chaos","projectId":"x"}`, "utf16le")])), REFUSED_JSON);
  c.ingest("json", "json: UTF-8 BOM before the object", `\ufeff${eventJson()}`, { status: [201, 400], code: ["invalid_json"], stored: 1 }, { why: "RFC 8259 lets a parser ignore a BOM or refuse it; either way exactly as sent" });
  for (const [label, value] of [["null", "null"], ["array", "[]"], ["array of the event", `[${eventJson()}]`], ["string", '"chaos"'], ["number", "42"], ["true", "true"]] as const) {
    c.ingest("json", `json: body is ${label}`, value, INVALID);
  }

  // --- Invalid UTF-8 (the body is bytes, not text). ---
  const utf8Cases: [string, number[]][] = [
    ["lone continuation byte", [0x80]],
    ["0xC3 0x28", [0xc3, 0x28]],
    ["0xFF", [0xff]],
    ["overlong slash 0xC0 0xAF", [0xc0, 0xaf]],
    ["overlong NUL 0xC0 0x80", [0xc0, 0x80]],
    ["CESU-8 lone surrogate 0xED 0xA0 0x80", [0xed, 0xa0, 0x80]],
    ["code point over U+10FFFF", [0xf4, 0x90, 0x80, 0x80]],
    ["truncated 3-byte sequence", [0xe2, 0x82]],
  ];
  for (const [label, bytes] of utf8Cases) {
    const body = Buffer.concat([Buffer.from(`{"level":"info","message":"chaos {{token}} `), Buffer.from(bytes), Buffer.from(`","projectId":"{{projectId}}"}`)]);
    c.ingest("utf8", `utf8: ${label} in message`, b64(body), REFUSED_JSON);
    if (label === "0xFF" || label === "CESU-8 lone surrogate 0xED 0xA0 0x80") {
      const inKey = Buffer.concat([Buffer.from(`{"level":"info","message":"chaos {{token}}","projectId":"{{projectId}}","context":{"k`), Buffer.from(bytes), Buffer.from(`":1}}`)]);
      c.ingest("utf8", `utf8: ${label} in a context key`, b64(inKey), REFUSED_JSON);
    }
  }
  c.ingest("utf8", "utf8: body ends inside a multi-byte character", b64(Buffer.concat([Buffer.from(eventJson().slice(0, -2)), Buffer.from([0xf0, 0x9f])])), REFUSED_JSON);

  // --- NUL characters and lone surrogates (valid JSON, refused values). ---
  const nulAndSurrogates: [string, string][] = [
    ["NUL in message", `{"level":"info","message":"chaos {{token}} \\u0000","projectId":"{{projectId}}"}`],
    ["NUL in level", `{"level":"info\\u0000","message":"chaos {{token}}","projectId":"{{projectId}}"}`],
    ["NUL in projectId", `{"level":"info","message":"chaos {{token}}","projectId":"{{projectId}}\\u0000"}`],
    ["NUL in a context value", contextWithRaw(`"a\\u0000b"`)],
    ["NUL in a deep context value", contextWithRaw(`{"a":[{"b":["x\\u0000"]}]}`)],
    ["NUL in a context key", eventWithRaw("context", `{"k\\u0000":1,"t":"{{token}}"}`)],
    ["NUL as a top-level key", `{"level":"info","message":"chaos {{token}}","projectId":"{{projectId}}","\\u0000":1}`],
    ["NUL in timestamp", eventWithRaw("timestamp", `"2026-01-31T12:00:00Z\\u0000"`)],
    ["lone high surrogate in message", `{"level":"info","message":"chaos {{token}} \\ud800","projectId":"{{projectId}}"}`],
    ["lone low surrogate in message", `{"level":"info","message":"chaos {{token}} \\udc00x","projectId":"{{projectId}}"}`],
    ["reversed surrogate pair in message", `{"level":"info","message":"chaos {{token}} \\ude00\\ud83d","projectId":"{{projectId}}"}`],
    ["lone surrogate in a context value", contextWithRaw(`"\\udbff"`)],
    ["lone surrogate in a context key", eventWithRaw("context", `{"\\ud800":1,"t":"{{token}}"}`)],
    ["lone surrogate in projectId", `{"level":"info","message":"chaos {{token}}","projectId":"{{projectId}}\\udfff"}`],
  ];
  for (const [label, body] of nulAndSurrogates) c.ingest("strings", `strings: ${label}`, body, INVALID);
  c.batch("strings", "strings: NUL in the 3rd event of a batch", `{"events":[${eventJson()},${eventJson()},{"level":"info","message":"chaos {{token}} \\u0000","projectId":"{{projectId}}"}]}`, INVALID);
  c.batch("strings", "strings: lone surrogate in a batch event's context key", `{"events":[${eventJson()},${eventWithRaw("context", `{"\\udc00":1}`)}]}`, INVALID);

  // --- Numbers that would not survive storage exactly. ---
  const alteredNumbers: [string, string][] = [
    ["1e400 (overflows to Infinity)", "1e400"],
    ["-1e400", "-1e400"],
    ["1e-400 (underflows to 0)", "1e-400"],
    ["12345678901234567890 (beyond 2^53)", "12345678901234567890"],
    ["9007199254740993 (2^53 + 1)", "9007199254740993"],
    ["-9007199254740993", "-9007199254740993"],
    ["0.1000000000000000055511151231257827 (more digits than a double)", "0.1000000000000000055511151231257827"],
    ["3.141592653589793238462643383279", "3.141592653589793238462643383279"],
    ["a 400-digit integer", times("9", 400)],
    ["1.7976931348623159e308 (rounds to Infinity)", "1.7976931348623159e308"],
  ];
  for (const [label, raw] of alteredNumbers) c.ingest("numbers", `numbers: ${label} in context`, contextWithRaw(raw), INVALID);
  c.ingest("numbers", "numbers: 1e400 nested in a context array", contextWithRaw(`{"deep":[[{"x":1e400}]]}`), INVALID);
  c.batch("numbers", "numbers: 12345678901234567890 in the 2nd batch event", `{"events":[${eventJson()},${contextWithRaw("12345678901234567890")}]}`, INVALID);
  // Unix time below 10^12 is read as seconds, fractions allowed (lib/events/schema.ts, as the
  // summary's `since`; the README and docs/api.md still say milliseconds only): 1.5 is 1,500 ms.
  c.ingest("numbers", "numbers: timestamp 1.5 (unix seconds)", eventWithRaw("timestamp", "1.5"), STORED(1));
  for (const [label, raw] of [["1e400", "1e400"], ["-1", "-1"], ["8640000000000001", "8640000000000001"], ["12345678901234567890", "12345678901234567890"], ["a string of digits past year 9999", '"253402300800000"'], ["an ISO date without a zone", '"2026-01-31T12:00:00"'], ["year 0000", '"0000-01-01T00:00:00Z"'], ["year +275760", '"+275760-09-13T00:00:00Z"'], ["31 February", '"2026-02-31T12:00:00Z"'], ["hour 25", '"2026-01-31T25:00:00Z"'], ["an object", '{"$date":1}'], ["true", "true"], ["empty string", '""']] as const) {
    c.ingest("numbers", `numbers: timestamp ${label}`, eventWithRaw("timestamp", raw), INVALID);
  }

  // --- Duplicate keys (JSON.parse would keep the last one silently). ---
  const duplicates: [string, string][] = [
    ["level twice", `{"level":"info","level":"error","message":"chaos {{token}}","projectId":"{{projectId}}"}`],
    ["message twice", `{"level":"info","message":"chaos {{token}}","message":"other","projectId":"{{projectId}}"}`],
    ["projectId twice (other project last)", `{"level":"info","message":"chaos {{token}}","projectId":"{{projectId}}","projectId":"{{otherProjectId}}"}`],
    ["projectId twice (own project last)", `{"level":"info","message":"chaos {{token}}","projectId":"{{otherProjectId}}","projectId":"{{projectId}}"}`],
    ["context twice", `{"level":"info","message":"chaos {{token}}","projectId":"{{projectId}}","context":{"a":1},"context":{"b":2}}`],
    ["a context key twice", eventWithRaw("context", `{"a":1,"a":2,"t":"{{token}}"}`)],
    ["a deep context key twice", eventWithRaw("context", `{"t":"{{token}}","x":{"y":[{"z":1,"z":1}]}}`)],
    ["keys equal after unescaping", eventWithRaw("context", `{"a":1,"\\u0061":2,"t":"{{token}}"}`)],
  ];
  for (const [label, body] of duplicates) c.ingest("duplicates", `duplicates: ${label}`, body, label.startsWith("projectId twice (other") ? { status: [400, 403], code: ["validation_failed", "project_mismatch"] } : INVALID);
  c.batch("duplicates", "duplicates: events key twice", `{"events":[${eventJson()}],"events":[${eventJson()}]}`, INVALID);
  c.batch("duplicates", "duplicates: a key twice inside the 2nd batch event", `{"events":[${eventJson()},{"level":"info","level":"warn","message":"chaos {{token}}","projectId":"{{projectId}}"}]}`, INVALID);
  c.add({ name: "duplicates: name twice in a project body", category: "duplicates", method: "POST", path: "/api/projects", headers: { ...JSON_CT, ...SAME_ORIGIN }, body: `{"name":"chaos {{token}}","name":"other {{token}}"}`, auth: "session", expect: { ...INVALID, status: [400] }, why: "management bodies follow the same JSON rules" });

  // --- Nesting. ---
  const levelRule = { why: "the README: a context at most 32 levels deep, its own object level 1 (docs/api.md, counting the event object as level 1, says one level fewer)" };
  c.ingest("nesting", "nesting: 33 levels (object)", eventWithRaw("context", nestedContext(33, "object")), INVALID, levelRule);
  c.ingest("nesting", "nesting: 33 levels (array)", eventWithRaw("context", nestedContext(33, "array")), INVALID, levelRule);
  for (const levels of [34, 64, 1000, 10_000]) {
    c.ingest("nesting", `nesting: ${levels} levels (object)`, eventWithRaw("context", nestedContext(levels, "object")), INVALID);
    c.ingest("nesting", `nesting: ${levels} levels (array)`, eventWithRaw("context", nestedContext(levels, "array")), INVALID);
  }
  c.ingest("nesting", "nesting: 100,000 levels of arrays", { repeat: { before: `{"level":"info","message":"chaos {{token}}","projectId":"{{projectId}}","context":{"n":`, item: "[", separator: "", after: `${times("]", 100_000)}}}`, times: 100_000 } }, INVALID, { why: "a recursive walk must not overflow the stack (500)" });
  c.ingest("nesting", "nesting: 100,000 unclosed brackets", { repeat: { before: `{"level":"info","message":"chaos {{token}}","projectId":"{{projectId}}","context":{"n":`, item: "[", separator: "", after: "", times: 100_000 } }, { status: [400], code: ["invalid_json", "validation_failed"] }, { why: "both too deep and unterminated: whichever the parser meets first (the depth, 33 brackets in) is the answer" });
  c.ingest("nesting", "nesting: deep message value (not a string)", eventWithRaw("message", `${times("[", 500)}${times("]", 500)}`), INVALID);
  c.batch("nesting", "nesting: 33 levels in a batch event", `{"events":[${eventJson()},${eventWithRaw("context", nestedContext(33, "object"))}]}`, INVALID);
  c.batch("nesting", "nesting: 5,000 levels in a batch event", `{"events":[${eventWithRaw("context", nestedContext(5000, "array"))}]}`, INVALID);
  c.add({ name: "nesting: 10,000 levels in a project body", category: "nesting", method: "POST", path: "/api/projects", headers: { ...JSON_CT, ...SAME_ORIGIN }, body: `{"name":${times("[", 10_000)}${times("]", 10_000)}}`, auth: "session", expect: INVALID });

  // --- Fields: types, values, unknown fields. ---
  const fieldCases: [string, EventFields | string][] = [
    ["level missing", { level: undefined }],
    ["message missing", { message: undefined }],
    ["projectId missing", { projectId: undefined }],
    ["level fatal", { level: "fatal" }],
    ["level in upper case", { level: "ERROR" }],
    ["level with a space", { level: "info " }],
    ["level a number", { level: 1 }],
    ["level null", { level: null }],
    ["level an array", { level: ["info"] }],
    ["message empty", { message: "" }],
    ["message a number", { message: 42 }],
    ["message an object", { message: { text: "chaos {{token}}" } }],
    ["message null", { message: null }],
    ["message of 10,001 characters", { message: times("m", 10_001), context: { t: "{{token}}" } }],
    ["message of 200,000 characters", { message: `chaos {{token}} ${times("m", 200_000)}` }],
    ["projectId empty", { projectId: "" }],
    ["projectId a number", { projectId: 123 }],
    ["projectId of 129 characters", { projectId: times("p", 129) }],
    ["projectId an object", { projectId: { id: "{{projectId}}" } }],
    ["context a string", { context: "chaos {{token}}" }],
    ["context an array", { context: ["chaos {{token}}"] }],
    ["context null", { context: null }],
    ["context a number", { context: 1 }],
    ["unknown field", { extra: 1 }],
    ["unknown field __proto__", `{"level":"info","message":"chaos {{token}}","projectId":"{{projectId}}","__proto__":{"admin":true}}`],
    ["unknown field constructor", { constructor: { prototype: { admin: true } } }],
    ["id and receivedAt set by the client", { id: "00000000-0000-7000-8000-000000000000", receivedAt: "2000-01-01T00:00:00Z" }],
    ["everything wrong at once", { level: "x", message: "", projectId: 1, context: [], timestamp: "yesterday", extra: true }],
    ["5,000 unknown fields", Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`u${i}`, i]))],
  ];
  for (const [label, value] of fieldCases) {
    const body = typeof value === "string" ? value : JSON.stringify(Object.fromEntries(Object.entries(event(value)).filter(([, v]) => v !== undefined)));
    c.ingest("fields", `fields: ${label}`, body, INVALID);
  }
  c.ingest("fields", "fields: projectId of another team's project", eventJson({}, "{{otherProjectId}}"), MISMATCH);
  c.ingest("fields", "fields: projectId that does not exist", eventJson({}, "cm0000000000000000000000x"), MISMATCH);
  c.ingest("fields", "fields: projectId with path characters", eventJson({}, "../{{projectId}}"), { status: [400, 403], code: ["validation_failed", "project_mismatch"] });
  c.ingest("fields", "fields: other key, main project", eventJson(), MISMATCH, { auth: "otherKey" });

  // --- Sizes. ---
  const eventPrefix = `{"level":"info","message":"chaos {{token}}","projectId":"{{projectId}}","context":{"pad":"`;
  c.ingest("size", "size: 256 KiB + 1 byte", { fill: { before: eventPrefix, char: "x", after: `"}}`, totalBytes: 256 * 1024 + 1 } }, TOO_LARGE);
  c.ingest("size", "size: 256 KiB + 1 byte, chunked (no Content-Length)", { fill: { before: eventPrefix, char: "x", after: `"}}`, totalBytes: 256 * 1024 + 1 } }, TOO_LARGE, { transport: "chunked" });
  c.ingest("size", "size: 1 MiB + 1 byte", { fill: { before: eventPrefix, char: "x", after: `"}}`, totalBytes: 1024 * 1024 + 1 } }, TOO_LARGE);
  c.ingest("size", "size: 16 MiB, chunked", { fill: { before: eventPrefix, char: "x", after: `"}}`, totalBytes: 16 * 1024 * 1024 } }, TOO_LARGE, { transport: "chunked", why: "refused while reading, without buffering the excess; the client, still sending, must still get the 413 (not a reset)" });
  c.batch("size", "size: batch of 1 MiB + 1 byte", { fill: { before: `{"events":[${eventPrefix}`, char: "z", after: `"}}]}`, totalBytes: 1024 * 1024 + 1 } }, TOO_LARGE);
  c.batch("size", "size: batch of 1 MiB + 1 byte, chunked", { fill: { before: `{"events":[${eventPrefix}`, char: "z", after: `"}}]}`, totalBytes: 1024 * 1024 + 1 } }, TOO_LARGE, { transport: "chunked" });
  c.batch("size", "size: batch of 8 MiB", { fill: { before: `{"events":[${eventPrefix}`, char: "z", after: `"}}]}`, totalBytes: 8 * 1024 * 1024 } }, TOO_LARGE);
  c.add({ name: "size: project body of 64 KiB + 1 byte", category: "size", method: "POST", path: "/api/projects", headers: { ...JSON_CT, ...SAME_ORIGIN }, body: { fill: { before: `{"name":"chaos {{token}}","pad":"`, char: "p", after: `"}`, totalBytes: 64 * 1024 + 1 } }, auth: "session", expect: TOO_LARGE });
  c.add({ name: "size: invitation body of 1 MiB, chunked", category: "size", method: "POST", path: "/api/projects/{{scratchProjectId}}/invitations", headers: { ...JSON_CT, ...SAME_ORIGIN }, body: { fill: { before: `{"email":"chaos-{{token}}@example.test","pad":"`, char: "p", after: `"}`, totalBytes: 1024 * 1024 } }, auth: "session", transport: "chunked", expect: TOO_LARGE });
  c.ingest("size", "size: declared Content-Length of 10 GB, short body", eventJson(), { status: [413], code: ["payload_too_large"] }, { transport: "raw", framing: "none", headers: { ...JSON_CT, "content-length": "10000000000" }, halfClose: true, why: "refused on the declared length, before reading" });

  // --- Framing lies (raw sockets). ---
  const validEvent = eventJson();
  c.ingest("framing", "framing: Content-Length shorter than the body", validEvent, { ...REFUSED_JSON, transportRefusal: true }, { transport: "raw", framing: "none", headers: { ...JSON_CT, "content-length": "20" }, why: "the app reads 20 bytes (truncated JSON: 400); Node answers the rest, garbage, with a bare 400 that may come first" });
  c.ingest("framing", "framing: Content-Length longer than the body, client hangs up", validEvent, { status: [400, 0], code: ["invalid_json"], transportRefusal: true }, { transport: "raw", framing: "none", headers: { ...JSON_CT, "content-length": "5000" }, halfClose: true, why: "a client that hangs up mid-body: no answer is needed, and it is not a server fault (no error logged)" });
  c.ingest("framing", "framing: chunked and Content-Length together", validEvent, { status: [400], transportRefusal: true }, { transport: "raw", framing: "none", headers: { ...JSON_CT, "transfer-encoding": "chunked", "content-length": "10" }, why: "request smuggling shape: Node refuses it" });
  c.ingest("framing", "framing: chunk size smaller than the chunk", `10\r\n${validEvent}\r\n0\r\n\r\n`, { status: [400, 0], code: ["invalid_json"], transportRefusal: true }, { transport: "raw", framing: "none", headers: { ...JSON_CT, "transfer-encoding": "chunked" } });
  c.ingest("framing", "framing: chunk size not hex", `zz\r\n${validEvent}\r\n0\r\n\r\n`, { status: [400], transportRefusal: true }, { transport: "raw", framing: "none", headers: { ...JSON_CT, "transfer-encoding": "chunked" } });
  c.ingest("framing", "framing: chunked body never finished, client hangs up", `ff\r\n${validEvent}`, { status: [400, 0], code: ["invalid_json"], transportRefusal: true }, { transport: "raw", framing: "none", headers: { ...JSON_CT, "transfer-encoding": "chunked" }, halfClose: true });
  c.ingest("framing", "framing: chunk size of 2^64", `10000000000000000\r\n${validEvent}\r\n0\r\n\r\n`, { status: [400, 413], transportRefusal: true }, { transport: "raw", framing: "none", headers: { ...JSON_CT, "transfer-encoding": "chunked" } });
  c.ingest("framing", "framing: negative Content-Length", validEvent, { status: [400], transportRefusal: true }, { transport: "raw", framing: "none", headers: { ...JSON_CT, "content-length": "-1" } });
  c.ingest("framing", "framing: two different Content-Lengths", validEvent, { status: [400], transportRefusal: true }, { transport: "raw", framing: "none", headers: { ...JSON_CT, "content-length": ["20", "30"] } });
  c.ingest("framing", "framing: Transfer-Encoding gzip, chunked", validEvent, { status: [400, 415, 501], code: ["invalid_json", "unsupported_media_type"], transportRefusal: true }, { transport: "raw", framing: "chunked", headers: { ...JSON_CT, "transfer-encoding": "gzip, chunked" }, why: "the body is not gzip: it must not be stored as if it were" });
  c.ingest("framing", "framing: valid chunked body in tiny chunks", validEvent, STORED(1), { transport: "raw", framing: "chunked" });
  c.ingest("framing", "framing: Content-Encoding gzip on a plain body", validEvent, { status: [400, 415], code: ["invalid_json", "unsupported_media_type"] }, { headers: { "content-encoding": "gzip" }, why: "a coding the service does not decode must be refused, not stored as text" });
  c.ingest("framing", "framing: Expect 100-continue", validEvent, STORED(1), { headers: { expect: "100-continue" } });
  c.ingest("framing", "framing: Expect with an unknown value", validEvent, { status: [417], transportRefusal: true }, { transport: "raw", headers: { ...JSON_CT, expect: "teapot" } });
  c.add({ name: "framing: HTTP/1.0 liveness", category: "framing", method: "GET", path: "/api/health/live", transport: "raw", bytes: "GET /api/health/live HTTP/1.0\r\n\r\n", expect: OK() });
  c.add({ name: "framing: HTTP/2.0 request line", category: "framing", method: "GET", path: "/api/health/live", transport: "raw", bytes: "GET /api/health/live HTTP/2.0\r\nHost: {{host}}\r\n\r\n", expect: { status: [200, 400, 505], transportRefusal: true }, why: "Node's HTTP/1 parser reads the version digits loosely; the app never sees the version" });
  c.add({ name: "framing: HTTP/1.1 without Host", category: "framing", method: "GET", path: "/api/health/live", transport: "raw", bytes: "GET /api/health/live HTTP/1.1\r\nConnection: close\r\n\r\n", expect: { status: [400], transportRefusal: true } });
  c.add({ name: "framing: TLS ClientHello on the plain port", category: "framing", method: "?", path: "", transport: "raw", bytes: b64([0x16, 0x03, 0x01, 0x00, 0xa5, 0x01, 0x00, 0x00, 0xa1, 0x03, 0x03, ...Array.from({ length: 32 }, () => rnd.int(256)), 0x00, 0x00, 0x02, 0x13, 0x01, 0x01, 0x00]), expect: { status: [400, 0], transportRefusal: true } });
  c.add({ name: "framing: request line of random bytes", category: "framing", method: "?", path: "", transport: "raw", bytes: b64([...Array.from({ length: 64 }, () => rnd.int(256)), 0x0d, 0x0a, 0x0d, 0x0a]), expect: { status: [400, 0], transportRefusal: true } });
  c.add({ name: "framing: bare LF line endings", category: "framing", method: "GET", path: "/api/health/live", transport: "raw", bytes: "GET /api/health/live HTTP/1.1\nHost: {{host}}\nConnection: close\n\n", expect: { status: [200, 400], transportRefusal: true } });
  c.add({ name: "framing: header with obsolete line folding", category: "framing", method: "GET", path: "/api/health/live", transport: "raw", bytes: "GET /api/health/live HTTP/1.1\r\nHost: {{host}}\r\nX-Folded: a\r\n b\r\nConnection: close\r\n\r\n", expect: { status: [200, 400], transportRefusal: true } });
  c.add({ name: "framing: NUL in a header name", category: "framing", method: "GET", path: "/api/health/live", transport: "raw", bytes: "GET /api/health/live HTTP/1.1\r\nHost: {{host}}\r\nX-A\u0000B: 1\r\nConnection: close\r\n\r\n", expect: { status: [400], transportRefusal: true } });

  // --- Content types. ---
  const ctCases: [string, string | null][] = [
    ["missing", null],
    ["text/plain", "text/plain"],
    ["form-urlencoded", "application/x-www-form-urlencoded"],
    ["multipart", "multipart/form-data; boundary=x"],
    ["application/jsonx", "application/jsonx"],
    ["json without a type", "json"],
    ["application/", "application/"],
    ["*/*", "*/*"],
    ["two types in one header", "text/plain, application/json"],
    ["application/json+text", "application/json+text"],
    ["an 8 KiB value", `application/${times("x", 8192)}`],
    ["text/json", "text/json"],
  ];
  for (const [label, value] of ctCases) {
    c.add({ name: `content-type: ${label}`, category: "content-type", method: "POST", path: "/api/events", headers: value === null ? {} : { "content-type": value }, body: eventJson(), auth: "key", expect: NOT_JSON_TYPE });
  }
  c.ingest("content-type", "content-type: charset utf-16 on a UTF-8 body", eventJson(), { status: [201, 415], code: ["unsupported_media_type"], stored: 1, exact: true }, { headers: { "content-type": "application/json; charset=utf-16" }, why: "JSON is UTF-8 (RFC 8259); the body is read as UTF-8 or refused, never stored garbled" });
  c.batch("content-type", "content-type: batch as text/plain", JSON.stringify({ events: [event()] }), NOT_JSON_TYPE, { headers: { "content-type": "text/plain" } });
  c.add({ name: "content-type: project body as form data", category: "content-type", method: "POST", path: "/api/projects", headers: { "content-type": "application/x-www-form-urlencoded", ...SAME_ORIGIN }, body: "name=chaos+{{token}}", auth: "session", expect: NOT_JSON_TYPE });
  c.add({ name: "content-type: project body without a type", category: "content-type", method: "POST", path: "/api/projects", headers: SAME_ORIGIN, body: JSON.stringify({ name: "chaos {{token}}" }), auth: "session", expect: NOT_JSON_TYPE });

  // --- Batches. ---
  c.batch("batch", "batch: 1,001 events", { repeat: { before: `{"events":[`, item: eventJson(), separator: ",", after: "]}", times: 1001 } }, INVALID);
  c.batch("batch", "batch: 5,000 invalid events", { repeat: { before: `{"events":[`, item: `{"level":"fatal","message":"","projectId":1,"x":1}`, separator: ",", after: "]}", times: 5000 } }, INVALID, { why: "the answer must stay small: at most 100 problems listed" });
  c.batch("batch", "batch: 1,000 events each with 4 problems", { repeat: { before: `{"events":[`, item: `{"level":"fatal","message":"","projectId":1,"x":1}`, separator: ",", after: "]}", times: 1000 } }, INVALID);
  c.batch("batch", "batch: 999 valid and one invalid", { repeat: { before: `{"events":[{"level":"fatal","message":"chaos {{token}}","projectId":"{{projectId}}"},`, item: eventJson(), separator: ",", after: "]}", times: 999 } }, INVALID, { why: "all or nothing" });
  c.batch("batch", "batch: one event of another project", JSON.stringify({ events: [event(), event({}, "{{otherProjectId}}"), event()] }), MISMATCH);
  c.batch("batch", "batch: empty", `{"events":[]}`, INVALID);
  c.batch("batch", "batch: events an object", `{"events":${eventJson()}}`, INVALID);
  c.batch("batch", "batch: events null", `{"events":null}`, INVALID);
  c.batch("batch", "batch: events missing", `{}`, INVALID);
  c.batch("batch", "batch: unknown envelope field", JSON.stringify({ events: [event()], extra: 1 }), INVALID);
  c.batch("batch", "batch: events of numbers", `{"events":[1,2,3]}`, INVALID);
  c.batch("batch", "batch: events of nulls", `{"events":[null]}`, INVALID);
  c.batch("batch", "batch: body is the array itself", `[${eventJson()}]`, STORED(1), { why: "a bare array is a batch too (what winston's HTTP transport sends)" });
  c.batch("batch", "batch: a single event body", eventJson(), INVALID);
  c.batch("batch", "batch: one event with 5,000 unknown fields", `{"events":[${JSON.stringify(event(Object.fromEntries(Array.from({ length: 5000 }, (_, i) => [`u${i}`, i]))))}]}`, INVALID);
  c.batch("batch", "batch: holes (sparse-looking commas)", `{"events":[${eventJson()},,${eventJson()}]}`, REFUSED_JSON);

  // --- API keys and Authorization. ---
  for (let i = 0; i < 20; i++) {
    const key = forgeKey(rnd.next);
    c.add({ name: `auth: forged well-formed key #${i + 1}`, category: "auth", method: "POST", path: i % 4 === 3 ? "/api/events/batch" : "/api/events", headers: { ...JSON_CT, authorization: `Bearer ${key}` }, body: i % 4 === 3 ? JSON.stringify({ events: [event()] }) : eventJson(), auth: "key", expect: BAD_KEY, why: "valid CRC32 checksum, so it reaches the lookup; no project owns it" });
  }
  const forgedOnce = forgeKey(rnd.next);
  const authCases: [string, string | string[] | null, ChaosExpectation][] = [
    ["no Authorization", null, NO_KEY],
    ["Bearer alone", "Bearer", NO_KEY],
    ["Bearer and spaces", "Bearer    ", NO_KEY],
    ["Basic scheme", "Basic dGx0X3Rlc3Q6", NO_KEY],
    ["Token scheme with the real key", "Token {{key}}", NO_KEY],
    ["key without a scheme", "{{key}}", NO_KEY],
    ["Bearer, key, extra word", "Bearer {{key}} extra", NO_KEY],
    ["Bearer with a comma list", "Bearer {{key}}, Bearer {{otherKey}}", NO_KEY],
    ["key with the last character changed", "Bearer {{key}}!", BAD_KEY],
    ["revoked key", "Bearer {{revokedKey}}", BAD_KEY],
    ["prefix in upper case", `Bearer TLT_${forgedOnce.slice(4)}`, BAD_KEY],
    ["key one character short", `Bearer ${forgedOnce.slice(0, -1)}`, BAD_KEY],
    ["key one character long", `Bearer ${forgedOnce}0`, BAD_KEY],
    ["key with a wrong checksum", `Bearer ${forgedOnce.slice(0, -1)}${forgedOnce.endsWith("A") ? "B" : "A"}`, BAD_KEY],
    ["8 KiB bearer token", `Bearer tlt_${times("A", 8192)}`, BAD_KEY],
    ["SQL in the bearer token", "Bearer tlt_' OR '1'='1' --", NO_KEY],
    ["percent-encoded key", "Bearer tlt%5F{{key}}", BAD_KEY],
    ["key with a trailing tab", "Bearer {{key}}\t", STORED(1)],
    ["two Authorization headers, real key first", ["Bearer {{key}}", "Bearer garbage"], { status: [201, 400], stored: 1 }],
    ["two Authorization headers, real key second", ["Bearer garbage", "Bearer {{key}}"], { status: [400, 401], code: ["invalid_api_key", "missing_api_key"] }],
  ];
  for (const [label, header, expect] of authCases) {
    c.add({ name: `auth: ${label}`, category: "auth", method: "POST", path: "/api/events", headers: { ...JSON_CT, ...(header === null ? {} : { authorization: header }) }, body: eventJson(), auth: header === null ? "none" : "key", expect });
  }
  c.add({ name: "auth: session cookie instead of a key", category: "auth", method: "POST", path: "/api/events", headers: JSON_CT, body: eventJson(), auth: "session", expect: NO_KEY });
  c.add({ name: "auth: key in the query string", category: "auth", method: "POST", path: "/api/events?api_key={{key}}", headers: JSON_CT, body: eventJson(), auth: "none", expect: NO_KEY });
  c.add({ name: "auth: Unicode look-alike key (raw UTF-8 header)", category: "auth", method: "POST", path: "/api/events", transport: "raw", headers: { ...JSON_CT, authorization: "Bearer tlt_ΑΒΓ{{token}}" }, body: eventJson(), auth: "key", expect: { status: [400, 401], code: ["invalid_api_key"], transportRefusal: true }, why: "non-ASCII header bytes: refused by the parser or the key check" });
  for (let i = 0; i < 6; i++) {
    const ip = i === 5 ? "::1, 127.0.0.1, unknown, <script>" : `${rnd.int(223) + 1}.${rnd.int(256)}.${rnd.int(256)}.${rnd.int(256)}`;
    c.add({ name: `auth: forged key with X-Forwarded-For ${i + 1}`, category: "auth", method: "POST", path: "/api/events", headers: { ...JSON_CT, authorization: `Bearer ${forgeKey(rnd.next)}`, "x-forwarded-for": ip, "x-real-ip": ip }, body: eventJson(), auth: "key", expect: BAD_KEY, why: "spoofed client addresses must not let forged keys through" });
  }
  c.add({ name: "auth: valid key with a spoofed X-Forwarded-For", category: "auth", method: "POST", path: "/api/events", headers: { ...JSON_CT, "x-forwarded-for": "10.0.0.1", "x-forwarded-host": "evil.example" }, body: eventJson(), auth: "key", expect: { status: [201], stored: 1, exact: true }, why: "a spoofed address changes nothing for a valid key" });

  // --- Sessions on the management API and the summary. ---
  c.add({ name: "session: none on GET /api/projects", category: "session", method: "GET", path: "/api/projects", expect: UNAUTHENTICATED });
  c.add({ name: "session: forged token", category: "session", method: "GET", path: "/api/projects", headers: { cookie: "authjs.session-token=00000000-0000-4000-8000-000000000000" }, auth: "session", expect: UNAUTHENTICATED });
  c.add({ name: "session: expired token", category: "session", method: "GET", path: "/api/projects", headers: { cookie: "authjs.session-token={{expiredSessionToken}}" }, auth: "session", expect: UNAUTHENTICATED });
  c.add({ name: "session: token with SQL", category: "session", method: "GET", path: "/api/projects", headers: { cookie: "authjs.session-token=' OR 1=1 --" }, auth: "session", expect: UNAUTHENTICATED });
  c.add({ name: "session: 8 KiB token", category: "session", method: "GET", path: "/api/projects", headers: { cookie: `authjs.session-token=${times("a", 8192)}` }, auth: "session", expect: UNAUTHENTICATED });
  c.add({ name: "session: token twice, forged first", category: "session", method: "GET", path: "/api/projects", headers: { cookie: "authjs.session-token=forged; authjs.session-token={{sessionToken}}" }, auth: "session", expect: { status: [200, 401] }, why: "either cookie may win; never a 5xx" });
  c.add({ name: "session: API key on a session route", category: "session", method: "GET", path: "/api/projects", headers: { authorization: "Bearer {{key}}" }, auth: "session", expect: { status: [401], code: ["api_key_not_accepted"] } });
  c.add({ name: "session: API key on the summary", category: "session", method: "GET", path: "/api/ai/summarize", headers: { authorization: "Bearer {{key}}" }, auth: "none", expect: { status: [401], code: ["api_key_not_accepted"] } });
  c.add({ name: "session: Basic auth next to a valid session on the summary", category: "session", method: "GET", path: "/api/ai/summarize", headers: { authorization: "Basic YTpi" }, auth: "session", expect: OK(), why: "only a Bearer header is refused on session routes; the cookie decides" });
  c.add({ name: "session: outsider reads the project", category: "session", method: "GET", path: "/api/projects/{{projectId}}", auth: "otherSession", expect: NOT_FOUND });
  c.add({ name: "session: outsider reads events", category: "session", method: "GET", path: "/api/projects/{{projectId}}/events", auth: "otherSession", expect: NOT_FOUND });
  c.add({ name: "session: outsider reads an event by id", category: "session", method: "GET", path: "/api/projects/{{otherProjectId}}/events/{{eventId}}", auth: "otherSession", expect: NOT_FOUND });
  c.add({ name: "session: outsider summary of the project", category: "session", method: "GET", path: "/api/ai/summarize?projectId={{projectId}}", auth: "otherSession", expect: { status: [403], code: ["forbidden"] } });
  c.add({ name: "session: non-member rotates another team's key", category: "session", method: "POST", path: "/api/projects/{{otherProjectId}}/key", auth: "session", expect: NOT_FOUND, why: "not a member of the other project: 404, and the key stays" });
  c.add({ name: "session: outsider deletes the project", category: "session", method: "DELETE", path: "/api/projects/{{projectId}}", auth: "otherSession", expect: NOT_FOUND });
  c.add({ name: "session: cookie of the other user on the main project's key", category: "session", method: "POST", path: "/api/projects/{{projectId}}/key", headers: SAME_ORIGIN, auth: "otherSession", expect: NOT_FOUND });

  // --- Cross-site state changes with a valid session (CSRF). ---
  const csrfTargets: [string, string, string, string | undefined][] = [
    ["create a project", "POST", "/api/projects", JSON.stringify({ name: "chaos {{token}}" })],
    ["delete a project", "DELETE", "/api/projects/{{scratchProjectId}}", undefined],
    ["rotate a key", "POST", "/api/projects/{{scratchProjectId}}/key", undefined],
    ["invite", "POST", "/api/projects/{{scratchProjectId}}/invitations", JSON.stringify({ email: "chaos-{{token}}@example.test", role: "owner" })],
    ["remove a member", "DELETE", "/api/projects/{{scratchProjectId}}/members/{{memberUserId}}", undefined],
    ["revoke an invitation", "DELETE", "/api/projects/{{scratchProjectId}}/invitations/{{scratchInvitationId}}", undefined],
    ["accept an invitation", "POST", "/api/invitations/{{inviteToken}}/accept", undefined],
    ["resolve an issue", "PATCH", "/api/projects/{{projectId}}/issues/{{issueId}}", JSON.stringify({ status: "ignored" })],
  ];
  const csrfOrigins: [string, Record<string, string>][] = [
    ["Origin of another site", { origin: EVIL }],
    ["Origin null", { origin: "null" }],
    ["Origin on another port", { origin: "http://127.0.0.1:1" }],
    ["Origin with our host as a subdomain", { origin: "http://{{host}}.evil.example" }],
    ["Referer of another site, no Origin", { referer: `${EVIL}/attack.html` }],
    ["Sec-Fetch-Site cross-site with our Origin", { origin: "{{origin}}", "sec-fetch-site": "cross-site" }],
    ["Origin with a file scheme", { origin: "file://" }],
    ["Origin with userinfo", { origin: "http://{{host}}@evil.example" }],
  ];
  for (const [action, method, p, body] of csrfTargets) {
    for (const [label, headers] of csrfOrigins) {
      // Every action gets the plain evil Origin; the other variants rotate over the actions to keep the corpus small.
      if (label !== "Origin of another site" && rnd.next() > 0.45) continue;
      c.add({ name: `csrf: ${action}, ${label}`, category: "csrf", method, path: p, headers: { ...(body ? JSON_CT : {}), ...headers }, body, auth: "session", expect: CROSS_SITE });
    }
  }

  // --- Path tricks. ---
  const pathCases: [string, string, ChaosExpectation][] = [
    ["NUL as a project id", "/api/projects/%00", NOT_FOUND],
    ["NUL after a real id", "/api/projects/{{projectId}}%00", NOT_FOUND],
    ["NUL in the middle of a nested path", "/api/projects/{{projectId}}%00/events", NOT_FOUND],
    ["..%2f traversal", "/api/projects/..%2f..%2f..%2fetc%2fpasswd", NOT_FOUND],
    ["..%5c traversal", "/api/projects/..%5c..%5cwindows", NOT_FOUND],
    ["double-encoded traversal", "/api/projects/%252e%252e%252f", NOT_FOUND],
    ["%2e%2e segment", "/api/projects/%2e%2e/events", { status: [404, 405], code: ["not_found", "method_not_allowed"] }],
    ["encoded slash in the id", "/api/projects/{{projectId}}%2fevents", NOT_FOUND],
    ["invalid percent-encoding", "/api/projects/%zz", { status: [400, 404], code: ["not_found"] }],
    ["percent-encoded invalid UTF-8", "/api/projects/%ff%fe", NOT_FOUND],
    ["percent-encoded lone surrogate", "/api/projects/%ed%a0%80", NOT_FOUND],
    ["id of 100 characters (shape ok, unknown)", `/api/projects/${times("a", 100)}`, NOT_FOUND],
    ["id of 101 characters", `/api/projects/${times("a", 101)}`, NOT_FOUND],
    ["id of 8,000 characters", `/api/projects/${times("a", 8000)}`, NOT_FOUND],
    ["unicode id", "/api/projects/%E2%80%AEcm1", NOT_FOUND],
    ["another team's project", "/api/projects/{{otherProjectId}}", NOT_FOUND],
    ["event id not a UUID", "/api/projects/{{projectId}}/events/not-a-uuid", NOT_FOUND],
    ["event id the nil UUID", "/api/projects/{{projectId}}/events/00000000-0000-0000-0000-000000000000", NOT_FOUND],
    ["event id with NUL", "/api/projects/{{projectId}}/events/{{eventId}}%00", NOT_FOUND],
    ["event id in upper case", "/api/projects/{{projectId}}/events/FFFFFFFF-FFFF-7FFF-BFFF-FFFFFFFFFFFF", NOT_FOUND],
    ["issue id %ff", "/api/projects/{{projectId}}/issues/%ff", NOT_FOUND],
    ["issue id of 10,000 characters", `/api/projects/{{projectId}}/issues/${times("9", 10_000)}`, NOT_FOUND],
    ["trailing slash", "/api/projects/{{projectId}}/", { status: [200, 308] }],
    ["double slash", "/api//projects", { status: [308, 404], code: ["not_found"] }],
    ["dot segment", "/api/projects/./{{projectId}}", { status: [200, 308, 404], code: ["not_found"] }],
    ["query with a NUL", "/api/projects/{{projectId}}/events?q=%00", { status: [400], code: ["validation_failed"] }],
    ["semicolon path parameter", "/api/projects;x=1", { status: [404], code: ["not_found"] }],
  ];
  for (const [label, p, expect] of pathCases) {
    c.add({ name: `path: ${label}`, category: "path", method: "GET", path: p, auth: "session", expect });
  }
  c.add({ name: "path: DELETE member id with NUL", category: "path", method: "DELETE", path: "/api/projects/{{projectId}}/members/%00", auth: "session", expect: NOT_FOUND });
  c.add({ name: "path: DELETE invitation id with quotes", category: "path", method: "DELETE", path: "/api/projects/{{projectId}}/invitations/%27%22", auth: "session", expect: NOT_FOUND });
  c.add({ name: "path: accept with a NUL token", category: "path", method: "POST", path: "/api/invitations/%00/accept", auth: "session", expect: NOT_FOUND });
  c.add({ name: "path: accept with a 10,000-character token", category: "path", method: "POST", path: `/api/invitations/${times("t", 10_000)}/accept`, auth: "session", expect: NOT_FOUND });
  c.add({ name: "path: accept with an unknown 43-character token", category: "path", method: "POST", path: `/api/invitations/${times("A", 43)}/accept`, auth: "session", expect: NOT_FOUND });
  c.add({ name: "path: URL of 100 KiB", category: "path", method: "GET", path: `/api/projects/${times("a", 100 * 1024)}`, auth: "session", expect: { status: [404, 414, 431], code: ["not_found"], transportRefusal: true } });
  c.add({ name: "path: raw space in the path", category: "path", method: "GET", path: "/api/projects/a b", transport: "raw", auth: "session", expect: { status: [400, 404], code: ["not_found"], transportRefusal: true } });
  c.add({ name: "path: raw UTF-8 in the path", category: "path", method: "GET", path: "/api/projects/ünï", transport: "raw", auth: "session", expect: { status: [400, 404], code: ["not_found"], transportRefusal: true } });
  c.add({ name: "path: absolute-form request target", category: "path", method: "GET", path: "http://evil.example/api/projects", transport: "raw", auth: "session", expect: { status: [200, 400, 404], code: ["not_found"], transportRefusal: true }, why: "absolute-form is legal HTTP/1.1: it is served as /api/projects or refused, never redirected to the host it names" });
  c.add({ name: "path: asterisk-form request target", category: "path", method: "OPTIONS", path: "*", transport: "raw", expect: { status: [204, 400, 404], transportRefusal: true, problem: false } });
  c.ingest("path", "path: POST to /api/events/", eventJson(), STORED(1), { path: "/api/events/", why: "no route redirects a trailing slash (Sentry SDKs post with one and do not follow redirects): the same route, stored once" });
  c.ingest("path", "path: POST to /api/events/batch/..", eventJson(), { status: [201, 308, 404, 405], stored: 1, code: ["not_found", "method_not_allowed"] }, { path: "/api/events/batch/..", why: "dot segments resolve to /api/events (a valid event: stored once) or are refused" });

  // --- Query tricks. ---
  const summarizeQueries: [string, string, ChaosExpectation][] = [
    ["limit=1e3", "limit=1e3", INVALID],
    ["limit=0", "limit=0", INVALID],
    ["limit=501", "limit=501", INVALID],
    ["limit=-1", "limit=-1", INVALID],
    ["limit=5.0", "limit=5.0", INVALID],
    ["limit= (empty)", "limit=", INVALID],
    ["limit=0x10", "limit=0x10", INVALID],
    ["limit with a space", "limit=%205", INVALID],
    ["limit of 30 digits", `limit=${times("9", 30)}`, INVALID],
    ["limit=NaN", "limit=NaN", INVALID],
    ["limit twice", "limit=1&limit=2", INVALID],
    ["limit with a NUL", "limit=5%00", INVALID],
    ["since=-1", "since=-1", INVALID],
    ["since=1e10", "since=1e10", INVALID],
    ["since beyond year 9999", "since=8640000000000001", INVALID],
    ["since of 400 digits", `since=${times("9", 400)}`, INVALID],
    ["since an ISO date", "since=2026-01-01", INVALID],
    ["since twice", "since=1&since=2", INVALID],
    ["projectId with a NUL", "projectId=%00", INVALID],
    ["projectId with a NUL after a real id", "projectId={{projectId}}%00", INVALID],
    ["projectId of 201 characters", `projectId=${times("p", 201)}`, INVALID],
    ["projectId empty", "projectId=", INVALID],
    ["projectId twice", "projectId={{projectId}}&projectId={{otherProjectId}}", INVALID],
    ["projectId of another team", "projectId={{otherProjectId}}", { status: [403], code: ["forbidden"] }],
    ["projectId with traversal", "projectId=..%2f..%2f", INVALID],
    ["everything invalid at once", "limit=x&since=y&projectId=%00", INVALID],
    ["unknown parameter is ignored", "limit=5&cachebust=%00%ff", OK()],
    ["array-style name is ignored", "limit[]=5", OK()],
    ["invalid percent-encoding in an unknown name", "%zz=1", OK()],
    ["8 KiB of unknown parameters", Array.from({ length: 800 }, (_, i) => `x${i}=y`).join("&"), OK()],
  ];
  for (const [label, q, expect] of summarizeQueries) {
    c.add({ name: `query: summary ${label}`, category: "query", method: "GET", path: `/api/ai/summarize?${q}`, auth: "session", expect });
  }
  const eventsQueries: [string, string, ChaosExpectation][] = [
    ["limit=1e3", "limit=1e3", INVALID],
    ["limit=201", "limit=201", INVALID],
    ["limit=-5", "limit=-5", INVALID],
    ["since=-1", "since=-1", INVALID],
    ["since of 17 digits", "since=12345678901234567", INVALID],
    ["since 2026-13-45", "since=2026-13-45", INVALID],
    ["since without a zone", "since=2026-01-31T12:00:00", INVALID],
    ["since year 10000", "since=10000-01-01", INVALID],
    ["until before since", "since=2026-02-01&until=2026-01-01", INVALID],
    ["cursor garbage", "cursor=garbage!!", INVALID],
    ["cursor base64 of junk", `cursor=${Buffer.from("v1.x.y.z").toString("base64url")}`, INVALID],
    ["cursor with a NUL", "cursor=%00", INVALID],
    ["cursor of 10,000 characters", `cursor=${times("A", 10_000)}`, INVALID],
    ["q with a NUL", "q=a%00b", INVALID],
    ["q of 201 characters", `q=${times("q", 201)}`, INVALID],
    ["q with LIKE wildcards", "q=%25_%5C", OK()],
    ["q with SQL", "q=%27%3B%20DROP%20TABLE%20events%3B%20--", OK()],
    ["level fatal", "level=fatal", INVALID],
    ["level list with an empty entry", "level=error,,warn", { status: [200, 400], code: ["validation_failed"] }],
    ["level repeated (first is used)", "level=error&level=fatal", { status: [200, 400], code: ["validation_failed"] }],
  ];
  for (const [label, q, expect] of eventsQueries) {
    c.add({ name: `query: events ${label}`, category: "query", method: "GET", path: `/api/projects/{{projectId}}/events?${q}`, auth: "session", expect });
  }
  for (const [label, q, expect] of [
    ["status bogus", "status=bogus", INVALID],
    ["sort bogus", "sort=random()", INVALID],
    ["limit=101", "limit=101", INVALID],
    ["cursor with a slash", "cursor=a/b", INVALID],
    ["until before since", "since=2026-02-01&until=2026-01-01", INVALID],
  ] as [string, string, ChaosExpectation][]) {
    c.add({ name: `query: issues ${label}`, category: "query", method: "GET", path: `/api/projects/{{projectId}}/issues?${q}`, auth: "session", expect });
  }

  // --- Hostile headers. ---
  const idemCases: [string, string, "http" | "raw", ChaosExpectation][] = [
    ["of 201 characters", times("k", 201), "http", INVALID],
    ["with a tab", "chaos\tkey", "http", INVALID],
    ["with Latin-1 é", "chaos-\u00e9", "http", INVALID],
    ["with raw UTF-8", "chaos-ключ", "raw", { ...INVALID, transportRefusal: true }],
    ["with a \\x01 control character", "chaos\u0001key", "raw", { ...INVALID, transportRefusal: true }],
    ["with DEL", "chaos\u007fkey", "raw", { ...INVALID, transportRefusal: true }],
    ["with a NUL", "chaos\u0000key", "raw", { ...INVALID, transportRefusal: true }],
    ["with a bare CR", "chaos\rkey", "raw", { ...INVALID, transportRefusal: true }],
    ["of 8 KiB", times("k", 8192), "http", INVALID],
  ];
  for (const [label, value, transport, expect] of idemCases) {
    c.ingest("header", `header: Idempotency-Key ${label}`, eventJson(), expect, { transport, headers: { "idempotency-key": value } });
  }
  c.ingest("header", "header: Idempotency-Key empty", eventJson(), { ...INVALID, status: [400] }, { transport: "raw", headers: { ...JSON_CT, "idempotency-key": "" } });
  c.ingest("header", "header: two Idempotency-Keys", eventJson(), { status: [201, 400], code: ["validation_failed"], stored: 1 }, { headers: { "idempotency-key": ["chaos-{{token}}-a", "chaos-{{token}}-b"] }, why: "Node joins them with a comma: one 1-200 character key, or refused" });
  c.ingest("auth", "auth: bad key and a bad Idempotency-Key (the key is checked first)", eventJson(), BAD_KEY, { headers: { authorization: `Bearer ${forgeKey(rnd.next)}`, "idempotency-key": "\t" } });
  c.ingest("header", "header: 15 KiB of headers (under Node's limit)", eventJson(), STORED(1), { headers: Object.fromEntries(Array.from({ length: 15 }, (_, i) => [`x-chaos-${i}`, times("h", 1000)])) });
  c.ingest("header", "header: 17 KiB header (over Node's limit)", eventJson(), { status: [431], transportRefusal: true }, { headers: { "x-chaos": times("h", 17 * 1024) } });
  c.ingest("header", "header: 1 MiB header", eventJson(), { status: [431, 400, 0], transportRefusal: true }, { headers: { "x-chaos": times("h", 1024 * 1024) }, why: "Node may reset the connection before the client finished sending" });
  c.ingest("header", "header: 500 small headers", eventJson(), STORED(1), { headers: Object.fromEntries(Array.from({ length: 500 }, (_, i) => [`x-c${i}`, "1"])) });
  c.ingest("header", "header: Host of another site", eventJson(), STORED(1), { headers: { host: "evil.example" } });
  c.ingest("header", "header: X-Forwarded-Proto garbage", eventJson(), STORED(1), { headers: { "x-forwarded-proto": "gopher, javascript:", "forwarded": "for=\"[::1]\";proto=ftp" } });
  c.add({ name: "header: 8 KiB cookie on a public route", category: "header", method: "GET", path: "/api/health/live", headers: { cookie: `a=${times("c", 8192)}` }, expect: OK() });
  c.add({ name: "header: Range on the summary", category: "header", method: "GET", path: "/api/ai/summarize", headers: { range: "bytes=0-0,1-1,2-2" }, auth: "session", expect: { status: [200, 416] } });
  c.add({ name: "header: If-None-Match * on project list", category: "header", method: "GET", path: "/api/projects", headers: { "if-none-match": "*", "if-modified-since": "Thu, 01 Jan 1970 00:00:00 GMT" }, auth: "session", expect: { status: [200, 304] } });
  c.add({ name: "header: X-HTTP-Method-Override DELETE", category: "header", method: "POST", path: "/api/projects/{{scratchProjectId}}/key", headers: { "x-http-method-override": "DELETE", origin: EVIL }, auth: "session", expect: CROSS_SITE });
  c.add({ name: "header: RSC header on an API route", category: "header", method: "GET", path: "/api/projects", headers: { rsc: "1", "next-router-state-tree": "%5B%22%22%5D", "next-action": "deadbeef" }, auth: "session", expect: { status: [200, 307, 400, 404] }, why: "Next.js internals must not turn an API call into a server-action call (a same-site 307 adding _rsc is Next's cache guard)" });
  c.add({ name: "header: Next-Action on an API POST", category: "header", method: "POST", path: "/api/events", headers: { ...JSON_CT, "next-action": "0000000000000000000000000000000000000000" }, body: eventJson(), auth: "key", expect: { status: [201, 400, 404], stored: 1, exact: true } });
  c.add({ name: "header: x-middleware-subrequest (CVE-2025-29927)", category: "header", method: "GET", path: "/projects", headers: { "x-middleware-subrequest": "middleware:middleware:middleware:middleware:middleware:proxy:proxy:proxy:proxy:proxy" }, expect: { status: [307, 308], problem: false }, why: "a forged header must not skip the sign-in redirect" });

  // --- Auth.js routes (not problem details; safe requests only). ---
  const authjs: [string, string, string, Record<string, string>, string | undefined, ChaosAuth, number[]][] = [
    ["csrf token", "GET", "/api/auth/csrf", {}, undefined, "none", [200]],
    ["providers", "GET", "/api/auth/providers", {}, undefined, "none", [200]],
    ["session, signed out", "GET", "/api/auth/session", {}, undefined, "none", [200]],
    ["session, signed in", "GET", "/api/auth/session", {}, undefined, "session", [200]],
    ["session with a Bearer key", "GET", "/api/auth/session", { authorization: "Bearer {{key}}" }, undefined, "none", [200]],
    ["signin page", "GET", "/api/auth/signin", {}, undefined, "none", [302]],
    ["verify-request", "GET", "/api/auth/verify-request", {}, undefined, "none", [302]],
    ["error with a NUL", "GET", "/api/auth/error?error=%00", {}, undefined, "none", [302]],
    ["error with script", "GET", "/api/auth/error?error=%3Cscript%3E", {}, undefined, "none", [302]],
    ["unknown action", "GET", "/api/auth/nope", {}, undefined, "none", [400, 404]],
    ["unknown provider callback", "GET", "/api/auth/callback/evil", {}, undefined, "none", [302, 400, 404]],
    ["callback without token", "GET", "/api/auth/callback/nodemailer", {}, undefined, "none", [302, 303]],
    ["callback with a NUL token", "GET", "/api/auth/callback/nodemailer?token=%00&email=%00", {}, undefined, "none", [302, 303]],
    ["callback with a forged token", "GET", "/api/auth/callback/nodemailer?token=abc&email=a%40example.test&callbackUrl=https%3A%2F%2Fevil.example", {}, undefined, "none", [302, 303]],
    ["sign-in request without csrf", "POST", "/api/auth/signin/nodemailer", { "content-type": "application/x-www-form-urlencoded" }, "email=chaos-{{token}}%40example.test", "none", [302]],
    ["sign-in request as JSON", "POST", "/api/auth/signin/nodemailer", JSON_CT, JSON.stringify({ email: "chaos-{{token}}@example.test" }), "none", [302, 400]],
    ["sign-in request with a spoofed X-Forwarded-For", "POST", "/api/auth/signin/nodemailer", { "content-type": "application/x-www-form-urlencoded", "x-forwarded-for": "1.2.3.4, 5.6.7.8" }, "email=chaos%40example.test&csrfToken=forged", "none", [302]],
    ["sign-in request with a 1 MiB form", "POST", "/api/auth/signin/nodemailer", { "content-type": "application/x-www-form-urlencoded" }, `email=${times("e", 1024 * 1024)}`, "none", [302, 400, 413]],
    ["signout without csrf", "POST", "/api/auth/signout", { "content-type": "application/x-www-form-urlencoded" }, "", "session", [302]],
    ["signout page", "GET", "/api/auth/signout", {}, undefined, "none", [200]],
    ["TRACE on the session route", "TRACE", "/api/auth/session", {}, undefined, "none", [400, 405]],
  ];
  for (const [label, method, p, headers, body, auth, status] of authjs) {
    c.add({ name: `authjs: ${label}`, category: "authjs", method, path: p, headers, body, auth, expect: { status, problem: false } });
  }

  // --- Unknown paths. ---
  for (const method of ["GET", "POST", "PUT", "PATCH", "DELETE", "TRACE", "PROPFIND"]) {
    c.add({ name: `unknown: ${method} /api/nope`, category: "unknown", method, path: "/api/nope", headers: method === "GET" ? {} : JSON_CT, body: method === "GET" || method === "TRACE" ? undefined : eventJson(), auth: "key", expect: { status: method === "TRACE" || method === "PROPFIND" ? [404, 405] : [404], code: ["not_found", "method_not_allowed"] } });
  }
  for (const p of ["/api/events/batch/extra", "/api/projects/{{projectId}}/nope", "/api/health", "/api/health/live/x", "/api/v1/events", "/api/.env"]) {
    c.add({ name: `unknown: GET ${p}`, category: "unknown", method: "GET", path: p, auth: "session", expect: NOT_FOUND });
  }
  c.add({ name: "unknown: GET /api/events%2fbatch", category: "unknown", method: "GET", path: "/api/events%2fbatch", auth: "key", expect: { status: [404, 405], code: ["not_found", "method_not_allowed"] }, why: "an encoded slash may or may not select the batch route; either refuses GET" });
  c.add({ name: "unknown: GET /api", category: "unknown", method: "GET", path: "/api", expect: { status: [404], problem: false } });
  for (const p of ["/.env", "/.git/config", "/wp-login.php", "/_next/../package.json", "/server.js", "/%2e%2e/%2e%2e/etc/passwd", "/_next/static/../../../.env"]) {
    c.add({ name: `unknown: page ${p}`, category: "unknown", method: "GET", path: p, expect: { status: [307, 308, 400, 404], problem: false } });
  }

  // --- Mutations: each hostile value in each field of a valid event, in a seeded order. ---
  const hostile: { label: string; raw: string; verdict: "invalid" | "json" | "string" }[] = [
    { label: "NUL escape", raw: `"x\\u0000y"`, verdict: "invalid" },
    { label: "lone surrogate", raw: `"\\ud83d"`, verdict: "invalid" },
    { label: "1e400", raw: "1e400", verdict: "invalid" },
    { label: "2^64", raw: "18446744073709551616", verdict: "invalid" },
    { label: "truncated string", raw: `"abc`, verdict: "json" },
    { label: "NaN", raw: "NaN", verdict: "json" },
    { label: "33-level object", raw: `${times('{"n":', 32)}1${times("}", 32)}`, verdict: "invalid" },
    { label: "duplicate keys", raw: `{"d":1,"d":2}`, verdict: "invalid" },
    { label: "emoji string", raw: `"🦀 {{token}}"`, verdict: "string" },
    { label: "SQL string", raw: `"'); DROP TABLE events; --"`, verdict: "string" },
    { label: "HTML string", raw: `"<img src=x onerror=alert(1)>"`, verdict: "string" },
    { label: "a tlt_ key-shaped string", raw: `"tlt_${times("k", 38)}"`, verdict: "string" },
  ];
  const fields = ["context value", "deep context value", "message", "level", "timestamp"] as const;
  const combos = hostile.flatMap((value) => fields.map((field) => ({ value, field })));
  for (let i = combos.length - 1; i > 0; i--) {
    const j = rnd.int(i + 1);
    [combos[i], combos[j]] = [combos[j]!, combos[i]!];
  }
  for (const { value, field } of combos) {
    const members: Record<string, string> = { level: `"info"`, message: `"chaos {{token}}"`, projectId: `"{{projectId}}"`, context: `{"t":"{{token}}"}` };
    if (field === "context value") members.context = `{"t":"{{token}}","v":${value.raw}}`;
    else if (field === "deep context value") members.context = `{"t":"{{token}}","a":[{"b":{"c":[${value.raw}]}}]}`;
    else members[field] = value.raw;
    const body = `{${Object.entries(members).map(([k, v]) => `"${k}":${v}`).join(",")}}`;
    // Only strings are accepted, and only as a context value or a message; no hostile value is a level or a time.
    const accepted = value.verdict === "string" && (field === "context value" || field === "deep context value" || field === "message");
    const expect = value.verdict === "json" ? REFUSED_JSON : accepted ? STORED(1) : INVALID;
    c.ingest("mutation", `mutation: ${value.label} as ${field}`, body, expect);
  }

  // The auth entries go last, followed by one valid request: the forged keys
  // (remembered as unknown) must not have disturbed the real one.
  c.add({ name: "auth: the real key after the forged ones", category: "auth", method: "POST", path: "/api/events", headers: JSON_CT, body: eventJson(), auth: "key", expect: STORED(1), why: "unknown keys are remembered by their hash: a flood of them leaves valid keys working" });
  const entries = [...c.entries].sort((a, b) => Number(a.category === "auth") - Number(b.category === "auth"));
  return { generatedBy: "npm run chaos:corpus (harness/chaos/corpus.ts)", seed, entries };
}

function main(): void {
  const corpus = generateCorpus();
  const text = `${JSON.stringify(corpus, null, 1)}\n`;
  fs.mkdirSync(path.dirname(CORPUS_PATH), { recursive: true });
  fs.writeFileSync(CORPUS_PATH, text);
  const byCategory = new Map<string, number>();
  for (const e of corpus.entries) byCategory.set(e.category, (byCategory.get(e.category) ?? 0) + 1);
  console.log(`wrote ${path.relative(process.cwd(), CORPUS_PATH)}: ${corpus.entries.length} entries, ${(Buffer.byteLength(text) / 1024).toFixed(0)} KiB`);
  console.log([...byCategory].map(([k, n]) => `${k} ${n}`).join(", "));
}

if (process.argv[1] && path.resolve(process.argv[1]) === path.resolve(import.meta.dirname, "corpus.ts")) main();
