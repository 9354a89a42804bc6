import { describe, expect, it } from "vitest";
import { AppError } from "@/lib/http/errors";
import { MAX_ENVELOPE_HEADER_BYTES, MAX_ENVELOPE_ITEMS, parseEnvelope } from "@/lib/sentry/envelope";
import { envelopeToEvents, MAX_EVENTS_PER_ENVELOPE, storeBodyToEvents } from "@/lib/sentry/items";
import { expectStorable } from "@/tests/fixtures/sentry/expect-storable";

const ID = "9ec79c33ec9942ab8353589fcb2e04dc";
const header = `{"event_id":"${ID}","dsn":"https://e12d836b15bb49d7bbf99e64295d995b@telltale.example.com/42"}`;
const env = (...parts: Array<string | Buffer>) => Buffer.concat(parts.map((p) => (typeof p === "string" ? Buffer.from(p) : p)));
const context = { projectId: "project-1", clientAddress: "198.51.100.7" };

function malformed(body: Buffer | string): AppError {
  try {
    parseEnvelope(typeof body === "string" ? Buffer.from(body) : body);
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    const appError = error as AppError;
    expect([appError.status, appError.code]).toEqual([400, "invalid_json"]);
    expect(appError.message).toMatch(/^The envelope is malformed: /);
    return appError;
  }
  throw new Error("the envelope was accepted");
}

function refused(run: () => unknown, status: number): AppError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).status).toBe(status);
    return error as AppError;
  }
  throw new Error("accepted");
}

describe("parseEnvelope: the format", () => {
  it("reads items with a length (binary, newlines inside) and without one (up to the newline)", () => {
    const binary = Buffer.from([0xef, 0xbb, 0xbf, 0x48, 0x69, 0x0d, 0x0a, 0x0a, 0x00, 0xff]);
    const body = env(
      `${header}\n`,
      `{"type":"attachment","length":${binary.length},"content_type":"text/plain","filename":"hello.txt"}\n`,
      binary,
      "\n",
      '{"type":"event","length":41,"content_type":"application/json"}\n',
      '{"message":"hello world","level":"error"}\n',
      '{"type":"session"}\n',
      '{"sid":"x","status":"ok"}\n',
    );
    const { header: h, items } = parseEnvelope(body);
    expect([h.eventId, h.dsn]).toEqual([ID, "https://e12d836b15bb49d7bbf99e64295d995b@telltale.example.com/42"]);
    expect(items.map((i) => [i.position, i.type, i.payload.length])).toEqual([
      [1, "attachment", 10],
      [2, "event", 41],
      [3, "session", 25],
    ]);
    expect(items[0]!.payload.equals(binary)).toBe(true);
    expect(items[0]!.headers.filename).toBe("hello.txt");
    expect(JSON.parse(items[1]!.payload.toString())).toEqual({ message: "hello world", level: "error" });
  });

  it("the last newline is optional, blank lines and a header-only envelope are fine, items may be empty", () => {
    expect(parseEnvelope(Buffer.from(header)).items).toEqual([]);
    expect(parseEnvelope(Buffer.from(`${header}\n`)).items).toEqual([]);
    expect(parseEnvelope(Buffer.from(`\n  ${header}\n\n\n`)).items).toEqual([]);
    const items = parseEnvelope(Buffer.from(`${header}\n{"type":"attachment","length":0}\n\n{"type":"attachment","length":0}`)).items;
    expect(items.map((i) => i.payload.length)).toEqual([0, 0]);
    const implicit = parseEnvelope(Buffer.from(`${header}\n{"type":"attachment"}`)).items;
    expect(implicit.map((i) => i.payload.length)).toEqual([0]);
    const noNewline = parseEnvelope(Buffer.from(`${header}\n{"type":"event"}\n{"message":"x"}`)).items;
    expect(noNewline[0]!.payload.toString()).toBe('{"message":"x"}');
    const crlf = parseEnvelope(Buffer.from(`${header}\r\n{"type":"event"}\r\n{"message":"x"}\r\n`)).items;
    expect(JSON.parse(crlf[0]!.payload.toString())).toEqual({ message: "x" });
  });

  it("an event_id with dashes is normalized; no event_id or dsn is null", () => {
    expect(parseEnvelope(Buffer.from('{"event_id":"9EC79C33-EC99-42AB-8353-589FCB2E04DC"}')).header.eventId).toBe(ID);
    expect(parseEnvelope(Buffer.from("{}")).header).toMatchObject({ eventId: null, dsn: null, sentAt: null });
  });

  it("unknown item types are items like the others", () => {
    expect(parseEnvelope(Buffer.from(`${header}\n{"type":"from_the_future","length":3}\nabc\n`)).items[0]!.type).toBe("from_the_future");
  });
});

describe("parseEnvelope: malformed envelopes are a 400 saying what is wrong", () => {
  it.each([
    ["an empty body", "", /the body is empty/],
    ["only blank lines", "\n\n \r\n", /the body is empty/],
    ["a header that is not JSON", "hello\n", /its header is not valid JSON/],
    ["a header that is an array", "[1,2]\n", /its header is not a JSON object/],
    ["a header that is null", "null\n", /its header is not a JSON object/],
    ["an invalid event_id", '{"event_id":"not-an-id"}\n', /"event_id" is not 32 hexadecimal digits/],
    ["an event_id of 31 digits", '{"event_id":"9ec79c33ec9942ab8353589fcb2e04d"}\n', /"event_id"/],
    ["a dsn that is not a string", '{"dsn":42}\n', /"dsn" is not a string/],
    ["an item header that is not JSON", `${header}\n{"type":"event"\n{}\n`, /item 1's header is not valid JSON/],
    ["an item header that is a string", `${header}\n"event"\n{}\n`, /item 1's header is not a JSON object/],
    ["an item without a type", `${header}\n{"length":2}\n{}\n`, /item 1's header has no "type"/],
    ["an item whose type is a number", `${header}\n{"type":7}\n{}\n`, /has no "type"/],
    ["an item whose type is empty", `${header}\n{"type":" "}\n{}\n`, /has no "type"/],
    ["a negative length", `${header}\n{"type":"event","length":-1}\n{}\n`, /"length" that is not a whole number/],
    ["a fractional length", `${header}\n{"type":"event","length":1.5}\n{}\n`, /"length" that is not a whole number/],
    ["a length as a string", `${header}\n{"type":"event","length":"2"}\n{}\n`, /"length" that is not a whole number/],
    ["a length past 2^53", `${header}\n{"type":"event","length":1e20}\n{}\n`, /"length" that is not a whole number/],
    ["a length past the end", `${header}\n{"type":"event","length":100}\n{}\n`, /declares 100 bytes, but only 3 remain/],
    ["a length shorter than the payload", `${header}\n{"type":"event","length":2}\n{"a":1}\n`, /are not followed by a newline/],
    ["a second item cut mid-payload", `${header}\n{"type":"event","length":2}\n{}\n{"type":"attachment","length":10}\nabc`, /item 2 \(attachment\) declares 10 bytes, but only 3 remain/],
    ["an item header cut mid-way", `${header}\n{"type":"event","len`, /item 1's header is not valid JSON/],
  ])("%s", (_name, body, detail) => {
    expect(malformed(body).message).toMatch(detail);
  });

  it("a header longer than 64 KiB is refused without scanning the rest of the body", () => {
    const long = `{"event_id":"${ID}","pad":"${"x".repeat(MAX_ENVELOPE_HEADER_BYTES)}"}\n`;
    expect(malformed(long).message).toMatch(/its header is longer than 65536 bytes/);
    const longItem = `${header}\n{"type":"event","pad":"${"y".repeat(MAX_ENVELOPE_HEADER_BYTES)}"}\n{}\n`;
    expect(malformed(longItem).message).toMatch(/item 1's header is longer than 65536 bytes/);
    // 20 MiB without a newline: refused from its first 64 KiB.
    expect(malformed(Buffer.alloc(20 * 1024 * 1024, 0x61)).message).toMatch(/its header is longer/);
  });

  it("10,000 items are refused: at most 1,000", () => {
    const body = header + "\n" + '{"type":"session","length":2}\n{}\n'.repeat(10_000);
    expect(malformed(body).message).toMatch(`it has more than ${MAX_ENVELOPE_ITEMS} items`);
    expect(parseEnvelope(Buffer.from(header + "\n" + '{"type":"session","length":2}\n{}\n'.repeat(MAX_ENVELOPE_ITEMS))).items).toHaveLength(MAX_ENVELOPE_ITEMS);
  });

  it("item types with odd characters are quoted safely in details", () => {
    const error = malformed(`${header}\n{"type":"\\u0000\\n${"z".repeat(100)}","length":5}\n{}\n`);
    expect(error.message).toMatch(/item 1 \(\?\?z+…\) declares 5 bytes/);
  });
});

describe("envelopeToEvents: what each item type becomes", () => {
  const item = (type: string, payload: string) => `{"type":"${type}","length":${Buffer.byteLength(payload)}}\n${payload}\n`;

  it("events and logs become events; every other type is dropped and counted, unknown ones as 'unknown'", () => {
    const dropped = [
      "transaction", "span", "session", "sessions", "client_report", "attachment", "profile", "profile_chunk", "replay_event",
      "replay_recording", "replay_video", "check_in", "statsd", "feedback", "user_report", "otel_log", "security",
    ];
    const body =
      `${header}\n` +
      item("event", '{"message":"one","level":"warning"}') +
      item("log", '{"items":[{"timestamp":1795774290.2,"level":"info","body":"log one"},{"timestamp":1795774290.3,"level":"error","body":"log two"}]}') +
      dropped.map((type) => item(type, "{}")).join("") +
      item("attachment", "binary\u0000data") +
      item("from_the_future", "{}") +
      item("X-Weird type", "{}");
    const result = envelopeToEvents(parseEnvelope(Buffer.from(body)), context);
    expect(result.eventId).toBe(ID);
    expect(result.events.map((e) => [e.event.level, e.event.message])).toEqual([
      ["warn", "one"],
      ["info", "log one"],
      ["error", "log two"],
    ]);
    expect(result.events[0]!.eventId).toBe(ID); // the header's id, the payload having none
    expect(result.dropped).toEqual({ ...Object.fromEntries(dropped.map((t) => [t, 1])), attachment: 2, unknown: 2 });
    result.events.forEach(expectStorable);
  });

  it("an event item that holds a transaction is a dropped transaction", () => {
    const result = envelopeToEvents(parseEnvelope(Buffer.from(`${header}\n${item("event", '{"type":"transaction","spans":[]}')}`)), context);
    expect([result.events, result.dropped]).toEqual([[], { transaction: 1 }]);
  });

  it("two event items with one event_id store once", () => {
    const payload = `{"event_id":"${"a".repeat(32)}","message":"twice"}`;
    const result = envelopeToEvents(parseEnvelope(Buffer.from(`{}\n${item("event", payload)}${item("event", payload)}`)), context);
    expect(result.events.map((e) => e.eventId)).toEqual(["a".repeat(32)]);
    expect(result.dropped).toEqual({ event: 1 });
    expect(result.eventId).toBe("a".repeat(32));
  });

  it("an envelope of sessions only answers a null id and stores nothing", () => {
    const result = envelopeToEvents(parseEnvelope(Buffer.from(`{"sent_at":"2026-11-27T10:11:23.045Z"}\n${item("sessions", '{"aggregates":[]}')}`)), context);
    expect(result).toEqual({ eventId: null, events: [], dropped: { sessions: 1 } });
  });

  it("an event payload that is not a JSON object, or empty, is a 400 naming the item", () => {
    for (const [payload, detail] of [
      ["{not json", /^Item 2 \(event\) is not valid JSON\./],
      ["[1,2]", /^Item 2 \(event\) is not a JSON object\.$/],
      ["", /^Item 2 \(event\) is empty\.$/],
      ['{"event_id":"zzz"}', /^Item 2 \(event\) has an event_id that is not 32 hexadecimal digits/],
    ] as const) {
      const body = `${header}\n${item("session", "{}")}${item("event", payload)}`;
      const error = refused(() => envelopeToEvents(parseEnvelope(Buffer.from(body)), context), 400);
      expect(error.message).toMatch(detail);
    }
    const badLog = refused(() => envelopeToEvents(parseEnvelope(Buffer.from(`${header}\n${item("log", '{"items":{}}')}`)), context), 400);
    expect(badLog.message).toMatch(/^Item 1 \(log\) is not a JSON object with an "items" array/);
    const badRecord = refused(() => envelopeToEvents(parseEnvelope(Buffer.from(`${header}\n${item("log", '{"items":[{"body":"ok"},7]}')}`)), context), 400);
    expect(badRecord.message).toBe("Item 1 (log), log 1 is not a JSON object.");
  });

  it(`more than ${MAX_EVENTS_PER_ENVELOPE} events and logs in one envelope is a 413`, () => {
    const logs = JSON.stringify({ items: Array.from({ length: MAX_EVENTS_PER_ENVELOPE }, (_, i) => ({ level: "info", body: `log ${i}` })) });
    const fits = envelopeToEvents(parseEnvelope(Buffer.from(`{}\n${item("log", logs)}`)), context);
    expect(fits.events).toHaveLength(MAX_EVENTS_PER_ENVELOPE);
    const error = refused(() => envelopeToEvents(parseEnvelope(Buffer.from(`{}\n${item("log", logs)}${item("event", '{"message":"one more"}')}`)), context), 413);
    expect(error.code).toBe("payload_too_large");
  });

  it("store bodies: one event; a transaction is dropped; malformed ones are a 400", () => {
    const stored = storeBodyToEvents(Buffer.from(`{"event_id":"${ID}","message":"from store","level":"info"}`), context);
    expect([stored.eventId, stored.events.map((e) => e.event.message), stored.dropped]).toEqual([ID, ["from store"], {}]);
    expect(storeBodyToEvents(Buffer.from('{"type":"transaction"}'), context)).toEqual({ eventId: null, events: [], dropped: { transaction: 1 } });
    expect(refused(() => storeBodyToEvents(Buffer.from("  "), context), 400).message).toBe("The request body is empty.");
    expect(refused(() => storeBodyToEvents(Buffer.from('"text"'), context), 400).message).toBe("The request body is not a JSON object.");
  });
});

describe("parseEnvelope: a body cut at the decoded limit", () => {
  const event = '{"type":"event"}\n{"message":"before the attachment"}\n';
  const cutAt = (body: Buffer, n: number) => body.subarray(0, n);

  it("keeps the items before the cut and names the cut one; envelopeToEvents stores the event and counts the attachment", () => {
    const whole = env(`${header}\n`, event, '{"type":"attachment","length":1000}\n', Buffer.alloc(1000, 97), "\n", '{"type":"event"}\n{"message":"never read"}\n');
    const envelope = parseEnvelope(cutAt(whole, whole.length - 600), true);
    expect(envelope.items.map((i) => i.type)).toEqual(["event"]);
    expect(envelope.cut).toEqual({ position: 2, type: "attachment" });
    const ingest = envelopeToEvents(envelope, context);
    expect(ingest.events.map((e) => e.event.message)).toEqual(["before the attachment"]);
    expect(ingest.dropped).toEqual({ attachment: 1 });
    // The same body not cut is whole, and the cut one is malformed when nobody says it was cut.
    expect(parseEnvelope(whole, true).cut).toBeNull();
    malformed(cutAt(whole, whole.length - 600));
  });

  it("an event or log cut, or a header cut, is a 413; so is a cut body that is no envelope", () => {
    const cutEvent = parseEnvelope(env(`${header}\n`, '{"type":"event","length":5000}\n{"message":"'), true);
    expect(cutEvent.cut).toEqual({ position: 1, type: "event" });
    expect(refused(() => envelopeToEvents(cutEvent, context), 413).code).toBe("payload_too_large");
    const cutLog = parseEnvelope(env(`${header}\n`, '{"type":"log"}\n{"items":[{"body":"x'), true);
    refused(() => envelopeToEvents(cutLog, context), 413);
    const cutHeader = parseEnvelope(env(`${header}\n`, event, '{"type":"attach'), true);
    expect(cutHeader.cut).toEqual({ position: 2, type: null });
    refused(() => envelopeToEvents(cutHeader, context), 413);
    refused(() => parseEnvelope(Buffer.alloc(MAX_ENVELOPE_HEADER_BYTES * 2), true), 413);
  });
});
