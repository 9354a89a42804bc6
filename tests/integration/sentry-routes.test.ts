/**
 * The Sentry routes through their handlers, on the test database: what a
 * real SDK sent (captured fixtures), credentials in every place an SDK puts
 * them, CORS, and the hostile cases (another project's key, malformed and
 * compressed bodies, a bomb, 500 concurrent retries of one event_id).
 */
import fs from "node:fs";
import path from "node:path";
import { brotliCompressSync, deflateSync, gzipSync } from "node:zlib";
import { describe, expect, it } from "vitest";
import { OPTIONS as preflight, POST as postEnvelope } from "@/app/api/[projectNumber]/envelope/route";
import { POST as postStore } from "@/app/api/[projectNumber]/store/route";
import { prisma } from "@/lib/db/client";
import { readOrCreatePublicKey } from "@/lib/projects/dsn";
import { CLIENT_ADDRESS_HEADER, trustClientAddressHeader } from "@/lib/http/client-address";
import { makeProject } from "@/tests/helpers/ingest";

// Each project's requests come from an address of their own, so one test's
// 500 retries do not spend the next test's per-client limit.
trustClientAddressHeader();

const FIXTURES = path.resolve(import.meta.dirname, "../fixtures/sentry");
const fixture = (name: string) => fs.readFileSync(path.join(FIXTURES, name));

async function sentryProject(label: string) {
  const p = await makeProject(label);
  const publicKey = (await readOrCreatePublicKey(p.id))!;
  const { number } = await prisma.project.findUniqueOrThrow({ where: { id: p.id }, select: { number: true } });
  return { ...p, publicKey, number };
}

/** A fixture envelope with its header's dsn (key and project number 42) swapped for a project's. */
function envelopeFor(name: string, publicKey: string, projectNumber?: number): Buffer {
  let text = fixture(name).toString("utf8").replaceAll("0123456789abcdefABCDEF0123456789", publicKey);
  if (projectNumber !== undefined) text = text.replace(/("dsn":"[^"]*)\/42"/, `$1/${projectNumber}"`);
  return Buffer.from(text);
}

type Send = { number: number | string; body: Buffer | string; query?: string; headers?: Record<string, string>; endpoint?: "envelope" | "store" };

async function send({ number, body, query = "", headers = {}, endpoint = "envelope" }: Send) {
  const address = { [CLIENT_ADDRESS_HEADER]: `10.0.${Number(number) % 250}.${Math.floor(Number(number) / 250) % 250}` };
  const request = new Request(`http://localhost/api/${number}/${endpoint}/${query}`, { method: "POST", headers: { ...address, ...headers }, body: typeof body === "string" ? body : new Uint8Array(body) });
  const handler = endpoint === "envelope" ? postEnvelope : postStore;
  const res = await handler(request, { params: Promise.resolve({ projectNumber: String(number) }) });
  const text = await res.text();
  return { res, status: res.status, body: text ? JSON.parse(text) : null };
}

const keyQuery = (key: string) => `?sentry_version=7&sentry_key=${key}&sentry_client=sentry.javascript.node%2F11.12.0`;

describe("Sentry routes", () => {
  it("limit browsers per address, not servers: a traced server's transactions do not get its errors refused", async () => {
    const p = await sentryProject("sentry-client-limit");
    const body = envelopeFor("node-exception-cause-event.envelope", p.publicKey);
    const burst = (headers: Record<string, string>) => Promise.all(Array.from({ length: 120 }, () => send({ number: p.number, body, query: keyQuery(p.publicKey), headers })));
    // A server SDK sends no Origin: 120 at once from one address, past the browsers' 50 per second and 100 per 10 s.
    expect(new Set((await burst({})).map((a) => a.status))).toEqual(new Set([200]));
    const fromPage = await burst({ origin: "https://shop.example" });
    const refused = fromPage.filter((a) => a.status === 429);
    expect(refused.length).toBeGreaterThanOrEqual(20);
    expect(refused[0]!.res.headers.get("x-sentry-rate-limits")).toContain("client_quota");
  });

  it("store a real @sentry/node exception with its cause chain, release, environment and frames, and answer its event_id", async () => {
    const p = await sentryProject("sentry-node");
    const answer = await send({ number: p.number, body: envelopeFor("node-exception-cause-event.envelope", p.publicKey), query: keyQuery(p.publicKey) });
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ id: "fe160e639aaa4897969962f62a6e9ddf" });
    const events = await prisma.event.findMany({ where: { projectId: p.id } });
    expect(events).toHaveLength(1);
    const event = events[0]!;
    expect(event.level).toBe("error");
    expect(event.message).toMatch(/^[A-Za-z]*Error: /);
    expect([event.release, event.environment]).toEqual(["shop@1.4.2", "staging"]);
    const exception = (event.context as { exception: { values: { type: string; stacktrace?: { frames: unknown[] } }[] } }).exception;
    expect(exception.values.length).toBeGreaterThanOrEqual(2);
    expect(exception.values.every((v) => (v.stacktrace?.frames.length ?? 0) > 0)).toBe(true);
  });

  it("take the key from X-Sentry-Auth with a gzip body (as sentry-ruby sends), and from the envelope's dsn alone (a tunnel)", async () => {
    const p = await sentryProject("sentry-ruby");
    const ruby = envelopeFor("ruby-exception-cause.envelope", p.publicKey, p.number);
    // The dsn of another project number than the path's is refused.
    const elsewhere = await send({ number: p.number, body: envelopeFor("ruby-exception-cause.envelope", p.publicKey), headers: { "x-sentry-auth": `Sentry sentry_key=${p.publicKey}` } });
    expect([elsewhere.status, elsewhere.body.code]).toEqual([403, "project_mismatch"]);
    const viaHeader = await send({
      number: p.number,
      body: gzipSync(ruby),
      headers: { "x-sentry-auth": `Sentry sentry_version=7, sentry_client=sentry-ruby/5.3.0, sentry_key=${p.publicKey}`, "content-encoding": "gzip", "content-type": "application/x-sentry-envelope" },
    });
    expect(viaHeader.status).toBe(200);
    const tunnelled = envelopeFor("node-message-error-event.envelope", p.publicKey)
      .toString("utf8")
      .replace(/^\{/, `{"dsn":"http://${p.publicKey}@localhost/${p.number}",`);
    const viaDsn = await send({ number: p.number, body: brotliCompressSync(Buffer.from(tunnelled)), headers: { "content-encoding": "br" } });
    expect(viaDsn.status).toBe(200);
    expect(await prisma.event.count({ where: { projectId: p.id } })).toBe(2);
  });

  it("take /store/ bodies: one event as JSON", async () => {
    const p = await sentryProject("sentry-store");
    const event = { event_id: "0f1e2d3c4b5a69788796a5b4c3d2e1f0", level: "warning", message: "Disk almost full", platform: "python", tags: { host: "db-1" } };
    const answer = await send({ number: p.number, endpoint: "store", body: JSON.stringify(event), query: keyQuery(p.publicKey) });
    expect([answer.status, answer.body]).toEqual([200, { id: "0f1e2d3c4b5a69788796a5b4c3d2e1f0" }]);
    const stored = await prisma.event.findFirstOrThrow({ where: { projectId: p.id } });
    expect([stored.level, stored.message, stored.tags]).toEqual(["warn", "Disk almost full", { host: "db-1" }]);
  });

  it("take /store/ bodies as the old SDKs send them: base64 of zlib-compressed JSON, no Content-Encoding (raven-node 2.6.4, captured)", async () => {
    const p = await sentryProject("sentry-raven");
    const headers = (key: string) => ({
      "x-sentry-auth": `Sentry sentry_version=5, sentry_timestamp=1795809603674, sentry_client=raven-node/2.6.4, sentry_key=${key}`,
      "content-type": "application/octet-stream",
    });
    const failure = await send({ number: p.number, endpoint: "store", body: fixture("raven-node-exception.store"), headers: headers(p.publicKey) });
    expect([failure.status, failure.body]).toEqual([200, { id: "29d72ac72ab8460287819886c208986a" }]);
    const message = await send({ number: p.number, endpoint: "store", body: fixture("raven-node-message.store"), headers: headers(p.publicKey) });
    expect([message.status, message.body]).toEqual([200, { id: "10bc96b01c0d470fbf889df70dbc9e6c" }]);
    const stored = await prisma.event.findMany({ where: { projectId: p.id }, orderBy: { message: "asc" } });
    expect(stored.map((e) => [e.level, e.message, e.release, e.environment, e.user])).toEqual([
      ["warn", "Nightly export finished late", "legacy@0.9.1", "production", { id: "7", email: "grace@example.com" }],
      ["error", "TypeError: Invoice 9 has no total", "legacy@0.9.1", "production", { id: "7", email: "grace@example.com" }],
    ]);
    const frames = (stored[1]!.context as any).exception.values[0].stacktrace.frames as { function?: string }[];
    expect(frames.some((f) => f.function === "chargeInvoice")).toBe(true);

    // Base64 of JSON without zlib is read too; base64 that inflates past the limit is a 413, base64 of anything else a 400.
    const plain = await send({ number: p.number, endpoint: "store", body: Buffer.from('{"message":"plain base64"}').toString("base64"), headers: headers(p.publicKey) });
    expect(plain.status).toBe(200);
    const bomb = await send({ number: p.number, endpoint: "store", body: deflateSync(Buffer.alloc(30 * 1024 * 1024, 0x20)).toString("base64"), headers: headers(p.publicKey) });
    expect([bomb.status, bomb.body.code]).toEqual([413, "payload_too_large"]);
    const junk = await send({ number: p.number, endpoint: "store", body: "bm90IHpsaWI=", headers: headers(p.publicKey) });
    expect([junk.status, junk.body.code]).toEqual([400, "invalid_json"]);
    expect(await prisma.event.count({ where: { projectId: p.id } })).toBe(3);
  });

  it("store the event of an envelope cut at the decoded limit inside a large attachment, counting the attachment dropped (@sentry/node, 25 MiB, captured)", async () => {
    const p = await sentryProject("sentry-large-attachment");
    const body = fixture("node-large-attachment.envelope.gz");
    const answer = await send({ number: p.number, body, query: keyQuery(p.publicKey), headers: { "content-encoding": "gzip" } });
    expect([answer.status, answer.body]).toEqual([200, { id: "ef0ac0527c2244d5911d14f4c98e3b5b" }]);
    const stored = await prisma.event.findMany({ where: { projectId: p.id }, select: { message: true } });
    expect(stored).toEqual([{ message: "Error: Export failed; the log is attached" }]);
    const dropped = await prisma.droppedItemCount.findMany({ where: { projectId: p.id }, select: { itemType: true, count: true } });
    expect(dropped).toEqual([{ itemType: "attachment", count: 1 }]);

    // An event (or log) that does not fit is still a 413, and so is a body that is no envelope up to the cut.
    const bigEvent = gzipSync(`{}\n{"type":"event"}\n{"message":"big","extra":{"blob":"${"x".repeat(21 * 1024 * 1024)}"}}\n`);
    const refused = await send({ number: p.number, body: bigEvent, query: keyQuery(p.publicKey), headers: { "content-encoding": "gzip" } });
    expect([refused.status, refused.body.code]).toEqual([413, "payload_too_large"]);
    expect(await prisma.event.count({ where: { projectId: p.id } })).toBe(1);
  });

  it("make two issues of two bugs in two anonymous route handlers of one file, each failing twice (@sentry/node, captured)", async () => {
    const p = await sentryProject("sentry-handlers");
    for (const n of [1, 2, 3, 4]) {
      const answer = await send({ number: p.number, body: envelopeFor(`node-handlers-${n}.envelope`, p.publicKey), query: keyQuery(p.publicKey) });
      expect(answer.status).toBe(200);
    }
    const issues = await prisma.issue.findMany({ where: { projectId: p.id }, select: { title: true, count: true }, orderBy: { title: "asc" } });
    expect(issues.map((i) => [i.title, Number(i.count)])).toEqual([
      ["TypeError: Cannot read properties of undefined (reading 'map')", 2],
      ["TypeError: Cannot read properties of undefined (reading 'price')", 2],
    ]);
  });

  it("drop and count what Telltale does not store (sessions, client reports), answering 200", async () => {
    const p = await sentryProject("sentry-dropped");
    const answer = await send({ number: p.number, body: envelopeFor("node-message-error-sessions.envelope", p.publicKey), query: keyQuery(p.publicKey) });
    expect(answer.status).toBe(200);
    expect(await prisma.event.count({ where: { projectId: p.id } })).toBe(0);
    const dropped = await prisma.droppedItemCount.findMany({ where: { projectId: p.id }, select: { itemType: true, count: true } });
    expect(dropped.length).toBeGreaterThan(0);
    expect(dropped.every((d) => d.count > 0)).toBe(true);
  });

  it("refuse another project's key (403), an unknown key (401), a project number that is not a number (404), with nothing stored", async () => {
    const p = await sentryProject("sentry-mine");
    const other = await sentryProject("sentry-theirs");
    const body = envelopeFor("node-message-error-event.envelope", other.publicKey);
    const wrongProject = await send({ number: p.number, body, query: keyQuery(other.publicKey) });
    expect([wrongProject.status, wrongProject.body.code]).toEqual([403, "project_mismatch"]);
    const forged = await send({ number: p.number, body, query: keyQuery("A".repeat(32)) });
    expect([forged.status, forged.body.code]).toEqual([401, "invalid_api_key"]);
    // A secret key is not a public key.
    const secret = await send({ number: p.number, body, query: keyQuery(p.apiKey) });
    expect(secret.status).toBe(401);
    expect((await send({ number: "abc", body, query: keyQuery(p.publicKey) })).status).toBe(404);
    expect(await prisma.event.count({ where: { projectId: { in: [p.id, other.id] } } })).toBe(0);
  });

  it("answer malformed and truncated envelopes 400 and a decompression bomb 413, never 500", async () => {
    const p = await sentryProject("sentry-hostile");
    const q = keyQuery(p.publicKey);
    const good = envelopeFor("node-message-error-event.envelope", p.publicKey);
    for (const body of ["not an envelope", '{"event_id":"x"}\n{"type":"event","length":500}\n{}', good.subarray(0, good.length - 40)]) {
      const answer = await send({ number: p.number, body, query: q });
      expect(answer.status, String(body).slice(0, 40)).toBe(400);
    }
    const bomb = await send({ number: p.number, body: fixture("bomb-1gib.br"), query: q, headers: { "content-encoding": "br" } });
    expect([bomb.status, bomb.body.code]).toEqual([413, "payload_too_large"]);
    const cut = await send({ number: p.number, body: gzipSync(good).subarray(0, 60), query: q, headers: { "content-encoding": "gzip" } });
    expect(cut.status).toBe(400);
    expect(await prisma.event.count({ where: { projectId: p.id } })).toBe(0);
  });

  it("store one row for 500 concurrent retries of one event_id", async () => {
    const p = await sentryProject("sentry-retries");
    const body = envelopeFor("node-message-error-event.envelope", p.publicKey);
    const answers = await Promise.all(Array.from({ length: 500 }, () => send({ number: p.number, body, query: keyQuery(p.publicKey) })));
    const statuses = new Set(answers.map((a) => a.status));
    // Every retry gets the first answer, or (while the first is being stored) a 503 to retry.
    expect([...statuses].every((s) => s === 200 || s === 503 || s === 429)).toBe(true);
    expect(answers.some((a) => a.status === 200)).toBe(true);
    expect(await prisma.event.count({ where: { projectId: p.id } })).toBe(1);
  });

  it("let a page of another origin read the answer (CORS), answer preflights, and refuse origins a project does not allow", async () => {
    const p = await sentryProject("sentry-cors");
    const body = envelopeFor("node-message-error-event.envelope", p.publicKey);
    const fromPage = await send({ number: p.number, body, query: keyQuery(p.publicKey), headers: { origin: "https://shop.example", "content-type": "text/plain;charset=UTF-8" } });
    expect(fromPage.status).toBe(200);
    expect(fromPage.res.headers.get("access-control-allow-origin")).toBe("https://shop.example");
    expect(fromPage.res.headers.get("access-control-expose-headers")).toMatch(/X-Sentry-Rate-Limits/);

    const options = await preflight(new Request(`http://localhost/api/${p.number}/envelope/`, {
      method: "OPTIONS",
      headers: { origin: "https://shop.example", "access-control-request-method": "POST", "access-control-request-headers": "content-type" },
    }), { params: Promise.resolve({ projectNumber: String(p.number) }) });
    expect(options.status).toBe(204);
    expect(options.headers.get("access-control-allow-methods")).toMatch(/POST/);

    await prisma.project.update({ where: { id: p.id }, data: { allowedOrigins: ["https://app.example"] } });
    const { forgetProjectKeys } = await import("@/lib/keys/service");
    forgetProjectKeys(p.id);
    const refused = await send({ number: p.number, body, query: keyQuery(p.publicKey), headers: { origin: "https://evil.example" } });
    expect([refused.status, refused.body.code]).toEqual([403, "forbidden"]);
    // Errors carry CORS headers too, so the SDK can read why.
    expect(refused.res.headers.get("access-control-allow-origin")).toBe("https://evil.example");
    const allowed = await send({ number: p.number, body: envelopeFor("node-message-warning-event.envelope", p.publicKey), query: keyQuery(p.publicKey), headers: { origin: "https://app.example" } });
    expect(allowed.status).toBe(200);
  });
});
