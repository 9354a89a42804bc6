import { readFileSync } from "node:fs";
import path from "node:path";
import { describe, expect, it } from "vitest";
import { resolveSentryCredentials } from "@/lib/sentry/auth";
import { readSentryBody } from "@/lib/sentry/body";
import { parseEnvelope } from "@/lib/sentry/envelope";
import { envelopeToEvents, type SentryIngest } from "@/lib/sentry/items";
import { expectStorable } from "@/tests/fixtures/sentry/expect-storable";

/**
 * What real SDKs send (captured by tests/fixtures/sentry/capture-node.mjs
 * and capture-ruby.rb), read as the routes will: the request's body through
 * its Content-Encoding, the envelope, the credentials, the events.
 */

const dir = path.join(__dirname, "../fixtures/sentry");
const KEY = "0123456789abcdefABCDEF0123456789";
const CLIENT = "203.0.113.9";

async function receive(name: string) {
  const meta = JSON.parse(readFileSync(path.join(dir, `${name}.json`), "utf8")) as { url: string; headers: Record<string, string> };
  const file = name.endsWith("gzip") ? `${name}.envelope.gz` : `${name}.envelope`;
  const raw = readFileSync(path.join(dir, file));
  const headers = Object.fromEntries(Object.entries(meta.headers).filter(([h]) => !["content-length", "transfer-encoding", "connection"].includes(h)));
  const request = new Request(`http://localhost${meta.url}`, { method: "POST", headers, body: new Uint8Array(raw) });
  const body = await readSentryBody(request);
  const envelope = parseEnvelope(body);
  const credentials = resolveSentryCredentials(request, envelope.header.dsn);
  const result: SentryIngest = envelopeToEvents(envelope, { projectId: "project-1", clientAddress: CLIENT });
  result.events.forEach(expectStorable);
  return { raw, body, envelope, credentials, result, payload: JSON.parse(body.toString("utf8").trimEnd().split("\n").at(-1)!) };
}

const contextOf = (result: SentryIngest, i = 0) => result.events[i]!.event.context as Record<string, any>;

describe("@sentry/node 11.12.0", () => {
  it("an exception with a cause: outermost Type: value, the chain in Sentry order with frames and source lines, breadcrumbs, fields", async () => {
    const { credentials, result, payload, envelope } = await receive("node-exception-cause-event");
    expect(credentials).toMatchObject({ publicKey: KEY, source: "query", client: "sentry.javascript.node/11.12.0" });
    expect(result.dropped).toEqual({});
    expect(result.eventId).toBe(envelope.header.eventId);
    const { eventId, event } = result.events[0]!;
    expect(eventId).toBe(payload.event_id);
    expect(event).toMatchObject({
      level: "error",
      message: "Error: Could not charge order ord_8f3k2a1c",
      projectId: "project-1",
      release: "shop@1.4.2",
      environment: "staging",
      tags: { region: "eu-west-1", build: "1234" },
      user: { id: "42", email: "ada@example.com", ip_address: CLIENT },
      fingerprint: null,
    });
    expect(event.timestamp!.getTime()).toBe(Math.trunc(payload.timestamp * 1000));
    const context = contextOf(result);
    expect(context.exception.values.map((v: any) => v.type)).toEqual(["SyntaxError", "Error"]);
    const frames = context.exception.values[1].stacktrace.frames;
    expect(frames).toEqual(payload.exception.values[1].stacktrace.frames);
    expect(frames.at(-1)).toMatchObject({ function: "chargeCard", in_app: true, context_line: expect.stringContaining("throw new Error") });
    expect(context.breadcrumbs.values.map((b: any) => b.message ?? b.category)).toEqual(["user signed in", "http"]);
    expect(context.extra).toEqual({ attempt: 3, cart: { items: 2 } });
    expect(context.contexts.runtime.name).toBe("node");
    expect([context.platform, context.server_name, context.sdk.name]).toEqual(["node", "web-1", "sentry.javascript.node"]);
    expect(context.sentry).toEqual({ event_id: eventId, level: "error" });
    expect(context.modules).toBeUndefined();
    expect(context._telltale).toBeUndefined();
  });

  it("a TypeError as Node phrases it", async () => {
    const { result } = await receive("node-type-error-event");
    expect(result.events[0]!.event.message).toBe("TypeError: Cannot read properties of undefined (reading 'price')");
  });

  it.each([
    ["fatal", "error"],
    ["error", "error"],
    ["warning", "warn"],
    ["info", "info"],
    ["debug", "info"],
    ["log", "info"],
  ])("captureMessage at %s is a %s event, the original level kept", async (sent, level) => {
    const { result } = await receive(`node-message-${sent}-event`);
    const { event } = result.events[0]!;
    expect([event.level, event.message]).toEqual([level, `Checkout slow for order ord_1 (${sent})`]);
    expect(contextOf(result).sentry.level).toBe(sent);
  });

  it("Sentry.logger logs: one event each, at their level, with their attributes", async () => {
    const { result, payload } = await receive("node-logs-log");
    expect(result.events.map((e) => [e.event.level, e.event.message])).toEqual([
      ["info", "Payment accepted"],
      ["error", "Payment ord_10 refused by stripe"],
      ["warn", "Cache miss rate high"],
    ]);
    const first = result.events[0]!.event;
    expect(first).toMatchObject({ release: "shop@1.4.2", environment: "staging", user: { id: "42", email: "ada@example.com" }, tags: null, fingerprint: null });
    expect(first.timestamp!.getTime()).toBe(Math.trunc(payload.items[0].timestamp * 1000));
    const context = contextOf(result);
    expect(context.attributes).toMatchObject({ orderId: "ord_9", amount: 12.5, retries: 2, captured: true, "server.address": "web-1" });
    expect(context.sentry).toMatchObject({ item: "log", level: "info", release: "shop@1.4.2", "sdk.name": "sentry.javascript.node" });
    expect(context.trace_id).toBe(payload.items[0].trace_id);
    expect(contextOf(result, 1).sentry).toMatchObject({ "message.template": "Payment %s refused by %s", "message.parameter.0": "ord_10" });
    // Ids are stable for a resent envelope, distinct within one.
    expect(new Set(result.events.map((e) => e.eventId)).size).toBe(3);
    expect((await receive("node-logs-log")).result.events.map((e) => e.eventId)).toEqual(result.events.map((e) => e.eventId));
  });

  it("session updates are dropped and counted", async () => {
    for (const [name, type] of [["node-exception-cause-session", "session"], ["node-logs-sessions", "sessions"]]) {
      const { result } = await receive(name!);
      expect(result).toEqual({ eventId: null, events: [], dropped: { [type!]: 1 } });
    }
  });

  it("through a tunnel: no credentials in the request, the key from the envelope's dsn", async () => {
    const { credentials, result } = await receive("node-tunnel-event");
    expect(credentials).toMatchObject({ publicKey: KEY, source: "dsn", projectNumber: 42 });
    expect(result.events[0]!.event.message).toBe("RangeError: Invalid array length");
  });
});

describe("sentry-ruby 5.3.0", () => {
  it("X-Sentry-Auth, the dsn in the envelope agreeing, an empty Content-Encoding, a Ruby exception chain", async () => {
    const { credentials, result } = await receive("ruby-exception-cause");
    expect(credentials).toMatchObject({ publicKey: KEY, source: "x-sentry-auth", client: "sentry-ruby/5.3.0", projectNumber: 42 });
    const { event } = result.events[0]!;
    expect(event).toMatchObject({
      level: "error",
      message: "InvoiceError: Invoice 9 has no total",
      release: "billing@2.0.1",
      environment: "production",
      tags: { queue: "invoices", attempt: "2" },
      user: { id: "7", username: "grace" },
      fingerprint: null, // ruby sends [] when none is set
    });
    expect(event.timestamp!.toISOString()).toMatch(/^2026-11-27T10:11:\d\d\.000Z$/);
    const context = contextOf(result);
    expect(context.exception.values.map((v: any) => v.type)).toEqual(["KeyError", "InvoiceError"]);
    expect(context.breadcrumbs.values[0]).toMatchObject({ category: "sql", message: "SELECT * FROM invoices WHERE id = 9" });
    expect(context.threads).toBeUndefined(); // ids without stacks
    expect(context.extra).toBeUndefined(); // sent empty
    expect(context.logentry).toBeUndefined(); // "message": "" is no message
  });

  it("a message: its stack is in threads, which are kept", async () => {
    const { result } = await receive("ruby-message-warning");
    const { event } = result.events[0]!;
    expect([event.level, event.message]).toEqual(["warn", "Nightly export finished late"]);
    expect(contextOf(result).threads.values[0].stacktrace.frames[0].function).toBe("<main>");
  });

  it("past 30 KB the SDK gzips: the body decodes to the same envelope", async () => {
    const { raw, body, result } = await receive("ruby-large-gzip");
    expect(raw[0]).toBe(0x1f); // gzip magic
    expect(body.length).toBeGreaterThan(30 * 1024);
    expect(result.events[0]!.event.message).toBe("ArgumentError: Export row 812 is malformed");
    expect(contextOf(result).extra.rows).toHaveLength(900);
  });
});
