import { describe, expect, it } from "vitest";
import { MAX_DEPTH, MAX_MESSAGE_CHARS } from "@/lib/events/schema";
import { MAX_RECORD_ATTRIBUTES } from "@/lib/otlp/limits";
import { parseOtlpLogs, type OtlpEvent, type OtlpLogsResult } from "@/lib/otlp/logs";
import { levelOf } from "@/lib/otlp/map";
import { attrs, jsonBody, protobufBody, request, type JsonAnyValue, type JsonLogRecord, type JsonRequest } from "@/tests/fixtures/otlp/requests";

/** Parses the request as protobuf and as JSON; both must agree, and the protobuf result is returned. */
function parseBoth(req: JsonRequest): OtlpLogsResult {
  const fromProtobuf = parseOtlpLogs(protobufBody(req), "protobuf", "p");
  const fromJson = parseOtlpLogs(jsonBody(req), "json", "p");
  expect(fromJson).toEqual(fromProtobuf);
  return fromProtobuf;
}

function one(record: JsonLogRecord, resource: Record<string, string> = {}, scope = {}): OtlpEvent {
  const { events, rejected, errorMessage } = parseBoth(request([record], resource, scope));
  expect({ rejected, errorMessage }).toEqual({ rejected: 0, errorMessage: "" });
  return events[0]!;
}

function rejectionOf(record: JsonLogRecord, resource: Record<string, string> = {}): string {
  const { events, rejected, errorMessage } = parseBoth(request([{ body: { stringValue: "fine" } }, record], resource));
  expect(events.map((e) => e.message)).toEqual(resource && Object.keys(resource).length ? [] : ["fine"]);
  expect(rejected).toBeGreaterThan(0);
  return errorMessage;
}

const nest = (levels: number, leaf: JsonAnyValue = { stringValue: "x" }): JsonAnyValue =>
  levels === 0 ? leaf : { kvlistValue: { values: [{ key: "k", value: nest(levels - 1, leaf) }] } };

describe("level", () => {
  it("follows OpenTelemetry's severity number ranges: 17-24 error, 13-16 warn, 1-12 info", () => {
    const levels = Array.from({ length: 24 }, (_, i) => levelOf(i + 1, "", false));
    expect(levels).toEqual([...Array(12).fill("info"), ...Array(4).fill("warn"), ...Array(8).fill("error")]);
  });

  it("reads the severity text when the number is unspecified (0) or out of range, as logging libraries name levels", () => {
    const cases: Array<[string, string]> = [
      ["ERROR", "error"], ["Error", "error"], ["err", "error"], ["FATAL", "error"], ["fatal3", "error"], ["CRITICAL", "error"],
      ["crit", "error"], ["emerg", "error"], ["alert", "error"], ["panic", "error"], ["SEVERE", "error"],
      ["WARN", "warn"], ["warning", "warn"], ["Warn2", "warn"],
      ["INFO", "info"], ["debug", "info"], ["trace", "info"], ["notice", "info"], ["", "info"],
    ];
    for (const [text, level] of cases) {
      expect(levelOf(0, text, false), text).toBe(level);
      expect(levelOf(99, text, false), text).toBe(level);
    }
  });

  it("the number wins over the text; an exception with no severity at all is an error", () => {
    expect(one({ severityNumber: 9, severityText: "ERROR", body: { stringValue: "x" } }).level).toBe("info");
    expect(one({ attributes: attrs({ "exception.type": "Boom" }) }).level).toBe("error");
    expect(one({ severityText: "INFO", attributes: attrs({ "exception.type": "Boom" }) }).level).toBe("info");
  });

  it("keeps the original severity in context.otel", () => {
    expect(one({ severityNumber: 21, severityText: "FATAL", body: { stringValue: "x" } }).context!.otel).toEqual({ severityNumber: 21, severityText: "FATAL" });
  });
});

describe("message", () => {
  it("is the body: a string as sent (big integers and bytes are strings: decimal, base64), any other kind as its JSON text", () => {
    const bodies: Array<[JsonAnyValue, string]> = [
      [{ stringValue: "line one\nline two" }, "line one\nline two"],
      [{ intValue: "42" }, "42"],
      [{ intValue: "-9223372036854775808" }, "-9223372036854775808"],
      [{ doubleValue: 2.5 }, "2.5"],
      [{ boolValue: false }, "false"],
      [{ bytesValue: "3q2+7w==" }, "3q2+7w=="], // base64
      [{ arrayValue: { values: [{ stringValue: "a" }, { intValue: "1" }, {}] } }, '["a",1,null]'],
      [{ kvlistValue: { values: [{ key: "user", value: { kvlistValue: { values: [{ key: "id", value: { intValue: "7" } }] } } }] } }, '{"user":{"id":7}}'],
    ];
    for (const [body, message] of bodies) expect(one({ body }).message, JSON.stringify(body)).toBe(message);
  });

  it("without a body: the event name, else the severity text, else <no message>", () => {
    expect(one({ eventName: "browser.click", severityText: "INFO" }).message).toBe("browser.click");
    expect(one({ severityText: "INFO", body: { stringValue: "" } }).message).toBe("INFO");
    expect(one({ body: {} }).message).toBe("<no message>");
    expect(one({}).message).toBe("<no message>");
  });

  it("exception.type and exception.message give `Type: message` (either alone when the other is missing)", () => {
    expect(one({ attributes: attrs({ "exception.type": "KeyError", "exception.message": "'user'" }) }).message).toBe("KeyError: 'user'");
    expect(one({ attributes: attrs({ "exception.type": "KeyError" }) }).message).toBe("KeyError");
    expect(one({ attributes: attrs({ "exception.message": "connection reset" }) }).message).toBe("connection reset");
  });

  it("the stack goes to context.stacktrace, where grouping reads it, and is not stored twice; the body stays in the context", () => {
    const stack = 'Traceback (most recent call last):\n  File "/app/views.py", line 12, in show\n    user = users[id]\nKeyError: 7';
    const event = one({
      severityNumber: 17,
      body: { stringValue: "lookup failed" },
      attributes: attrs({ "exception.type": "KeyError", "exception.message": "7", "exception.stacktrace": stack, "http.route": "/users/:id" }),
    });
    expect(event.message).toBe("KeyError: 7");
    expect(event.context).toMatchObject({
      stacktrace: stack,
      body: "lookup failed",
      attributes: { "exception.type": "KeyError", "exception.message": "7", "http.route": "/users/:id" },
    });
    expect(Object.keys(event.context!.attributes as object)).not.toContain("exception.stacktrace");
  });

  it("a body that is the message is not repeated in the context", () => {
    expect(one({ body: { stringValue: "hello" } }).context).not.toHaveProperty("body");
  });
});

describe("release, environment, tags, user", () => {
  it("deployment.environment.name (else the older deployment.environment) is the environment; service.version the release", () => {
    expect(one({}, { "deployment.environment.name": "prod", "deployment.environment": "old", "service.version": "1.2.3" })).toMatchObject({
      environment: "prod",
      release: "1.2.3",
    });
    expect(one({}, { "deployment.environment": "staging" }).environment).toBe("staging");
    // On the record when the resource has none (some bridges put it there).
    expect(one({ attributes: attrs({ "deployment.environment.name": "qa" }) }).environment).toBe("qa");
  });

  it("service.name is a tag and stays in the resource, never the environment", () => {
    const event = one({}, { "service.name": "billing" });
    expect(event.environment).toBeNull();
    expect(event.tags).toEqual({ service: "billing" });
    expect(event.context!.resource).toEqual({ "service.name": "billing" });
  });

  it("values outside the contract's lengths are left out of the fields (kept in the context), not rejected", () => {
    const long = "x".repeat(201);
    const event = one({ severityText: long }, { "deployment.environment.name": "e".repeat(65), "service.version": long, "service.name": long });
    expect([event.environment, event.release, event.tags]).toEqual([null, null, null]);
    expect(event.context!.resource).toMatchObject({ "service.version": long });
  });

  it("tags: service, scope (the logger's name), host and the severity text, within the contract (<= 50 keys of 1-32 characters, values 1-200)", () => {
    const event = one({ severityText: "WARN" }, { "service.name": "api", "host.name": "web-3" }, { name: "app.http", version: "4" });
    expect(event.tags).toEqual({ service: "api", scope: "app.http", host: "web-3", severity: "WARN" });
    for (const [key, value] of Object.entries(event.tags!)) {
      expect(key.length).toBeGreaterThanOrEqual(1);
      expect(key.length).toBeLessThanOrEqual(32);
      expect(value.length).toBeLessThanOrEqual(200);
    }
  });

  it("user.id, user.email, user.name (or the older enduser.id) are the user", () => {
    expect(one({ attributes: attrs({ "user.id": "42", "user.email": "a@b.c", "user.name": "ana" }) }).user).toEqual({ id: "42", email: "a@b.c", username: "ana" });
    expect(one({ attributes: attrs({ "enduser.id": "7" }) }).user).toEqual({ id: "7" });
    expect(one({}).user).toBeNull();
  });
});

describe("time and trace", () => {
  const at = (iso: string) => (BigInt(Date.parse(iso)) * 1_000_000n).toString();

  it("timeUnixNano is the timestamp; when 0, observedTimeUnixNano; when neither, null (the server's time is used)", () => {
    expect(one({ timeUnixNano: at("2026-03-01T12:00:00.5Z"), observedTimeUnixNano: at("2026-03-01T12:00:01Z") }).timestamp).toEqual(new Date("2026-03-01T12:00:00.5Z"));
    expect(one({ timeUnixNano: "0", observedTimeUnixNano: at("2026-03-01T12:00:01Z") }).timestamp).toEqual(new Date("2026-03-01T12:00:01Z"));
    expect(one({}).timestamp).toBeNull();
  });

  it("the largest time OTLP can carry (2^64-1 ns, in 2554) is still the client's timestamp: the store decides whether to believe it", () => {
    expect(one({ timeUnixNano: "18446744073709551615" }).timestamp).toEqual(new Date("2554-07-21T23:34:33.709Z"));
  });

  it("trace and span ids are kept as lowercase hex; invalid ones (all zeroes, wrong length) are left out", () => {
    expect(one({ traceId: "5B8EFFF798038103D269B633813FC60C", spanId: "EEE19B7EC3C1B174", flags: 1 }).context!.otel).toEqual({
      traceId: "5b8efff798038103d269b633813fc60c",
      spanId: "eee19b7ec3c1b174",
      flags: 1,
    });
    expect(one({ traceId: "0".repeat(32), spanId: "abcd" }).context!.otel).toEqual({});
  });
});

describe("context", () => {
  it("holds the record's attributes, the resource, the scope and the OpenTelemetry fields, each under its own key", () => {
    const event = one(
      { severityNumber: 9, body: { stringValue: "x" }, attributes: attrs({ a: 1, b: "two" }), droppedAttributesCount: 3, eventName: "e" },
      { "service.name": "s" },
      { name: "lib", version: "1.0" },
    );
    expect(event.context).toEqual({
      attributes: { a: 1, b: "two" },
      resource: { "service.name": "s" },
      scope: { name: "lib", version: "1.0" },
      otel: { severityNumber: 9, eventName: "e", droppedAttributesCount: 3 },
    });
  });

  it("an attribute named __proto__ is kept as a value, not turned into a prototype", () => {
    const event = one({ attributes: [{ key: "__proto__", value: { stringValue: "polluted?" } }] });
    const attributes = event.context!.attributes as Record<string, unknown>;
    expect(Object.getOwnPropertyDescriptor(attributes, "__proto__")?.value).toBe("polluted?");
    expect(Object.getPrototypeOf(attributes)).toBe(Object.prototype);
    expect(JSON.stringify(attributes)).toBe('{"__proto__":"polluted?"}');
  });

  it("records of several resources and scopes each carry their own", () => {
    const req: JsonRequest = {
      resourceLogs: [
        { resource: { attributes: attrs({ "service.name": "a" }) }, scopeLogs: [{ scope: { name: "x" }, logRecords: [{ body: { stringValue: "1" } }] }, { scope: { name: "y" }, logRecords: [{ body: { stringValue: "2" } }] }] },
        { resource: { attributes: attrs({ "service.name": "b" }) }, scopeLogs: [{ logRecords: [{ body: { stringValue: "3" } }] }] },
      ],
    };
    expect(parseBoth(req).events.map((e) => [e.message, e.tags])).toEqual([
      ["1", { service: "a", scope: "x" }],
      ["2", { service: "a", scope: "y" }],
      ["3", { service: "b" }],
    ]);
  });

  it("an empty request (or one without records) is a success with nothing to store", () => {
    expect(parseBoth({ resourceLogs: [] })).toEqual({ events: [], rejected: 0, errorMessage: "" });
    expect(parseOtlpLogs(new Uint8Array(0), "protobuf", "p")).toEqual({ events: [], rejected: 0, errorMessage: "" });
    expect(parseOtlpLogs(jsonBody({}), "json", "p")).toEqual({ events: [], rejected: 0, errorMessage: "" });
  });
});

describe("a record the contract refuses is rejected alone, with the reason", () => {
  it(`a message over ${MAX_MESSAGE_CHARS.toLocaleString("en-US")} characters (counted as characters, not UTF-16 units)`, () => {
    expect(rejectionOf({ body: { stringValue: "x".repeat(MAX_MESSAGE_CHARS + 1) } })).toBe(
      "1 of 2 log records rejected; the others were stored. resourceLogs[0].scopeLogs[0].logRecords[1]: its message is longer than 10,000 characters.",
    );
    expect(one({ body: { stringValue: "x".repeat(MAX_MESSAGE_CHARS) } }).message).toHaveLength(MAX_MESSAGE_CHARS);
    expect(one({ body: { stringValue: "😀".repeat(MAX_MESSAGE_CHARS) } }).message).toHaveLength(2 * MAX_MESSAGE_CHARS);
    // A structured body counts as its JSON text.
    expect(rejectionOf({ body: { kvlistValue: { values: [{ key: "k", value: { stringValue: "x".repeat(MAX_MESSAGE_CHARS) } }] } } })).toContain("longer than 10,000");
  });

  it("the NUL character anywhere: the body, an attribute value, an attribute name", () => {
    expect(rejectionOf({ body: { stringValue: "a\u0000b" } })).toContain("NUL character");
    expect(rejectionOf({ attributes: attrs({ path: "/tmp/\u0000" }) })).toContain("NUL character");
    expect(rejectionOf({ attributes: attrs({ "bad\u0000key": "v" }) })).toContain("an attribute name contains the NUL character");
    expect(rejectionOf({ severityText: "ERR\u0000" })).toContain("NUL character");
  });

  it("a NUL in a resource attribute rejects that resource's records, and only those", () => {
    const req: JsonRequest = {
      resourceLogs: [
        { resource: { attributes: attrs({ "host.name": "a\u0000" }) }, scopeLogs: [{ logRecords: [{ body: { stringValue: "1" } }, { body: { stringValue: "2" } }] }] },
        { resource: { attributes: attrs({ "host.name": "ok" }) }, scopeLogs: [{ logRecords: [{ body: { stringValue: "3" } }] }] },
      ],
    };
    const result = parseBoth(req);
    expect(result.events.map((e) => e.message)).toEqual(["3"]);
    expect(result.rejected).toBe(2);
    expect(result.errorMessage).toContain("resourceLogs[0].scopeLogs[0].logRecords[1]: its resource: it contains the NUL character");
  });

  it(`attributes nested deeper than the context's ${MAX_DEPTH} levels (exactly ${MAX_DEPTH} is accepted)`, () => {
    // context (1) > attributes (2) > the value's kvlists (3 ...).
    expect(one({ attributes: [{ key: "deep", value: nest(MAX_DEPTH - 2) }] }).context).toBeTruthy();
    expect(rejectionOf({ attributes: [{ key: "deep", value: nest(MAX_DEPTH - 1) }] })).toContain(`nest deeper than ${MAX_DEPTH} levels`);
  });

  it(`more than ${MAX_RECORD_ATTRIBUTES} attributes`, () => {
    const many = Array.from({ length: MAX_RECORD_ATTRIBUTES + 1 }, (_, i) => ({ key: `a${i}`, value: { intValue: String(i) } }));
    expect(rejectionOf({ attributes: many })).toContain(`it has ${MAX_RECORD_ATTRIBUTES + 1} attributes`);
    expect(one({ attributes: many.slice(1) }).context!.attributes).toBeTruthy();
  });

  it("a context over 1 MiB once mapped", () => {
    expect(rejectionOf({ attributes: attrs({ a: "x".repeat(600_000), b: "y".repeat(600_000) }) })).toContain("larger than 1 MiB");
  });

  it("the answer counts every rejection and quotes the first five", () => {
    const records: JsonLogRecord[] = Array.from({ length: 9 }, (_, i) => ({ body: { stringValue: i % 3 === 0 ? "ok" : `bad\u0000${i}` } }));
    const { events, rejected, errorMessage } = parseBoth(request(records));
    expect(events).toHaveLength(3);
    expect(rejected).toBe(6);
    expect(errorMessage).toMatch(/^6 of 9 log records rejected; the others were stored\. /);
    expect(errorMessage.match(/logRecords\[\d\]/g)).toEqual(["logRecords[1]", "logRecords[2]", "logRecords[4]", "logRecords[5]", "logRecords[7]"]);
    expect(errorMessage).toMatch(/NUL character \(U\+0000\), which cannot be stored\. \(1 more not listed\.\)$/);
  });
});
