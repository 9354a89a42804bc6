import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { MAX_DEPTH } from "@/lib/events/schema";
import { AppError } from "@/lib/http/errors";
import { MAX_JSON_DEPTH, MAX_JSON_VALUES, MAX_LOG_RECORDS, MAX_OTLP_BODY_BYTES, MAX_PROTOBUF_MESSAGES } from "@/lib/otlp/limits";
import { parseOtlpLogs, type OtlpFormat, type OtlpLogsResult } from "@/lib/otlp/logs";
import { loadOtlpFixtures } from "@/tests/fixtures/otlp/load";
import { jsonBody, protobufBody, request, type JsonAnyValue, type JsonKeyValue, type JsonLogRecord } from "@/tests/fixtures/otlp/requests";

/**
 * Hostile input: every body gets a defined outcome, a result or an AppError
 * (400 or 413), never another exception. The limits are checked before the
 * work they bound, so none of these needs more than the body's own size.
 */
type Outcome = { ok: OtlpLogsResult } | { status: number; code: string; detail: string; problems: string[] };

function outcome(body: Uint8Array, format: OtlpFormat): Outcome {
  try {
    return { ok: parseOtlpLogs(body, format, "p") };
  } catch (error) {
    if (error instanceof AppError) return { status: error.status, code: error.code, detail: error.message, problems: (error.errors ?? []).map((p) => `${p.path}: ${p.message}`) };
    throw error;
  }
}

function expectDefined(o: Outcome): void {
  if ("status" in o) expect([400, 413]).toContain(o.status);
}

// ---- The protobuf wire format, written by hand for the bodies no encoder makes ----
function varint(n: number | bigint): number[] {
  let v = BigInt(n);
  const out: number[] = [];
  do {
    const byte = Number(v & 0x7fn);
    v >>= 7n;
    out.push(v > 0n ? byte | 0x80 : byte);
  } while (v > 0n);
  return out;
}
const field = (number: number, wireType: number) => varint((number << 3) | wireType);
const lengthDelimited = (number: number, bytes: number[]) => [...field(number, 2), ...varint(bytes.length), ...bytes];
const utf8 = (s: string) => [...Buffer.from(s)];
/** ExportLogsServiceRequest { resource_logs { scope_logs { log_records: records } } } */
const wrapRecords = (records: number[][]) => lengthDelimited(1, lengthDelimited(2, records.flatMap((r) => lengthDelimited(2, r))));
const bytesOf = (list: number[]) => Uint8Array.from(list);

describe("protobuf", () => {
  it("arbitrary bytes: a result or a 400/413, nothing else", () => {
    fc.assert(fc.property(fc.uint8Array({ maxLength: 4096 }), (bytes) => expectDefined(outcome(bytes, "protobuf"))), { numRuns: 2000 });
  });

  it("the real exporters' requests with bytes changed at random: a result or a 400/413", () => {
    const bodies = loadOtlpFixtures().filter((f) => f.format === "protobuf").map((f) => f.body);
    fc.assert(
      fc.property(fc.constantFrom(...bodies), fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 8 }), (body, changes) => {
        const copy = Buffer.from(body);
        for (const [at, value] of changes) copy[at % copy.length] = value;
        expectDefined(outcome(copy, "protobuf"));
      }),
      { numRuns: 1000 },
    );
  });

  it("every truncation of a real request is a 400 or a shorter valid request, never a throw", () => {
    const body = loadOtlpFixtures().find((f) => f.name === "sdk-proto")!.body;
    let refused = 0;
    for (let length = 0; length < body.length; length++) {
      const o = outcome(body.subarray(0, length), "protobuf");
      expectDefined(o);
      if ("status" in o) {
        refused++;
        expect(o).toMatchObject({ status: 400, code: "validation_failed" });
      }
    }
    expect(refused).toBeGreaterThan(body.length * 0.9);
  });

  it("a length prefix past the end of the body (up to 2^64) is a 400, read without allocating it", () => {
    for (const length of [100, 2 ** 31, 2 ** 32 + 5, 2n ** 63n, 2n ** 64n - 1n]) {
      const o = outcome(bytesOf([...field(1, 2), ...varint(length), 1, 2, 3]), "protobuf");
      expect(o).toMatchObject({ status: 400, code: "validation_failed" });
    }
    // A nested message that claims more than its parent holds.
    expect(outcome(bytesOf(lengthDelimited(1, [...field(2, 2), ...varint(50), 0, 0])), "protobuf")).toMatchObject({ status: 400 });
    // A varint that never ends.
    expect(outcome(bytesOf([...field(1, 0), ...Array(11).fill(0xff)]), "protobuf")).toMatchObject({ status: 400 });
  });

  it("a known field with the wrong wire type is skipped as protobuf requires (an unknown field), not misread", () => {
    const o = outcome(
      bytesOf([
        ...field(1, 0), ...varint(5), // resource_logs as a varint
        ...wrapRecords([[...field(5, 0), 1, ...field(2, 2), 1, 0x41, ...lengthDelimited(5, lengthDelimited(1, utf8("body")))]]),
      ]),
      "protobuf",
    );
    // The record's body (field 5 as a varint) and severity (field 2 as bytes) were skipped; the real body (field 5, bytes) was read.
    expect(o).toMatchObject({ ok: { rejected: 0, events: [{ message: "body", level: "info" }] } });
  });

  it("invalid UTF-8 in a string field is a 400 (protobuf strings are UTF-8), wherever it is", () => {
    const bad = [0x61, 0xff, 0xfe, 0x62];
    const bodies = [
      wrapRecords([lengthDelimited(5, lengthDelimited(1, bad))]), // body
      wrapRecords([lengthDelimited(3, bad)]), // severity_text
      wrapRecords([lengthDelimited(6, lengthDelimited(1, bad))]), // an attribute's key
      lengthDelimited(1, lengthDelimited(2, lengthDelimited(1, lengthDelimited(1, bad)))), // the scope's name
    ];
    for (const body of bodies) {
      expect(outcome(bytesOf(body), "protobuf")).toMatchObject({ status: 400, code: "validation_failed", detail: expect.stringContaining("not valid UTF-8") });
    }
  });

  it(`AnyValue nesting: past the context's ${MAX_DEPTH} levels the record alone is rejected; past protobuf's 100 levels the request is a 400`, () => {
    // AnyValue { kvlist_value { values { key, value: AnyValue ... } } }: three protobuf levels each.
    const nest = (levels: number): number[] =>
      levels === 0 ? lengthDelimited(1, utf8("x")) : lengthDelimited(6, lengthDelimited(1, [...lengthDelimited(1, utf8("k")), ...lengthDelimited(2, nest(levels - 1))]));
    const withDepth = (levels: number) =>
      bytesOf(wrapRecords([lengthDelimited(5, lengthDelimited(1, utf8("ok"))), lengthDelimited(6, [...lengthDelimited(1, utf8("deep")), ...lengthDelimited(2, nest(levels))])]));
    expect(outcome(withDepth(30), "protobuf")).toMatchObject({ ok: { rejected: 0 } });
    expect(outcome(withDepth(31), "protobuf")).toMatchObject({ ok: { rejected: 1, events: [{ message: "ok" }], errorMessage: expect.stringContaining(`nest deeper than ${MAX_DEPTH} levels`) } });
    expect(outcome(withDepth(32), "protobuf")).toMatchObject({ status: 400, detail: expect.stringContaining("deeper than 100 levels") });
    // A hand-made nesting far past any limit: refused before anything is built.
    let deep = lengthDelimited(1, utf8("x"));
    for (let i = 0; i < 300; i++) deep = lengthDelimited(5, lengthDelimited(1, deep)); // AnyValue.array_value.values...
    expect(outcome(bytesOf(wrapRecords([lengthDelimited(5, deep)])), "protobuf")).toMatchObject({ status: 400 });
  });

  /** `count` copies of a two-byte empty message under field `number`, wrapped in `parents` (outermost first), built in one buffer. */
  function repeatedEmpty(number: number, count: number, parents: number[]): Uint8Array {
    let body = Buffer.alloc(count * 2, Buffer.from([...field(number, 2), 0]));
    for (const parent of parents.toReversed()) body = Buffer.concat([Buffer.from([...field(parent, 2), ...varint(body.length)]), body]);
    return body;
  }

  it(`100,000 log records: a 413 (at most ${MAX_LOG_RECORDS.toLocaleString("en-US")} per request), counted before decoding`, () => {
    // ExportLogsServiceRequest.resource_logs(1).scope_logs(2).log_records(2) x N
    expect(outcome(repeatedEmpty(2, 100_000, [1, 2]), "protobuf")).toMatchObject({
      status: 413,
      code: "payload_too_large",
      detail: expect.stringContaining("10,000 log records"),
    });
    expect(outcome(repeatedEmpty(2, MAX_LOG_RECORDS, [1, 2]), "protobuf")).toMatchObject({ ok: { rejected: 0 } });
  });

  it(`one record with ${(MAX_PROTOBUF_MESSAGES + 1).toLocaleString("en-US")} empty attributes: a 413, counted before decoding`, () => {
    // ... log_records(2).attributes(6) x N
    expect(outcome(repeatedEmpty(6, MAX_PROTOBUF_MESSAGES + 1, [1, 2, 2]), "protobuf")).toMatchObject({ status: 413, detail: expect.stringContaining("protobuf messages") });
  });

  it(`a body over ${MAX_OTLP_BODY_BYTES / 1024 / 1024} MiB (decoded) is a 413 in either format`, () => {
    const big = new Uint8Array(MAX_OTLP_BODY_BYTES + 1);
    expect(outcome(big, "protobuf")).toMatchObject({ status: 413 });
    expect(outcome(big, "json")).toMatchObject({ status: 413 });
  });
});

describe("JSON", () => {
  it("arbitrary JSON values: a result or a 400/413", () => {
    fc.assert(fc.property(fc.json({ maxDepth: 6 }), (text) => expectDefined(outcome(new TextEncoder().encode(text), "json"))), { numRuns: 1000 });
  });

  it("arbitrary text and bytes: a result or a 400/413", () => {
    fc.assert(fc.property(fc.string({ unit: "binary", maxLength: 300 }), (text) => expectDefined(outcome(new TextEncoder().encode(text), "json"))), { numRuns: 1000 });
    fc.assert(fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => expectDefined(outcome(bytes, "json"))), { numRuns: 1000 });
  });

  it("any value in a record's place rejects that record alone; the good record beside it is stored", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 5 }), (junk) => {
        const o = outcome(jsonBody({ resourceLogs: [{ scopeLogs: [{ logRecords: [{ body: { stringValue: "good" } }, junk] }] }] }), "json");
        expect("ok" in o && o.ok.events.some((e) => e.message === "good")).toBe(true);
      }),
      { numRuns: 500 },
    );
  });

  it(`nesting past ${MAX_JSON_DEPTH} containers is a 400 before parsing; deep AnyValue within it rejects the record only`, () => {
    expect(outcome(new TextEncoder().encode("[".repeat(100_000) + "]".repeat(100_000)), "json")).toMatchObject({
      status: 400,
      code: "validation_failed",
      problems: [`body: Nesting is deeper than ${MAX_JSON_DEPTH} levels.`],
    });
    expect(outcome(new TextEncoder().encode(`{"resourceLogs":${"[".repeat(MAX_JSON_DEPTH)}${"]".repeat(MAX_JSON_DEPTH)}}`), "json")).toMatchObject({ status: 400 });
    const nest = (levels: number): JsonAnyValue => (levels === 0 ? { stringValue: "x" } : { kvlistValue: { values: [{ key: "k", value: nest(levels - 1) }] } });
    expect(outcome(jsonBody(request([{ attributes: [{ key: "deep", value: nest(33) }] }])), "json")).toMatchObject({ ok: { rejected: 1 } });
  });

  it("100,000 log records: a 413", () => {
    const text = `{"resourceLogs":[{"scopeLogs":[{"logRecords":[${Array(100_000).fill("{}").join(",")}]}]}]}`;
    expect(outcome(new TextEncoder().encode(text), "json")).toMatchObject({ status: 413, detail: expect.stringContaining("log records") });
  });

  it(`more than ${MAX_JSON_VALUES.toLocaleString("en-US")} values: a 413 before JSON.parse builds them`, () => {
    const text = `{"resourceLogs":[${Array(MAX_JSON_VALUES + 1).fill("0").join(",")}]}`;
    expect(outcome(new TextEncoder().encode(text), "json")).toMatchObject({ status: 413, detail: expect.stringContaining("JSON values") });
  });
});

describe("protobuf and JSON decode the same request to the same events", () => {
  // Doubles JSON cannot write as numbers go as protobuf's JSON mapping writes them; -0 is just 0 in JSON.
  const double = fc.double().map((d): JsonAnyValue => ({ doubleValue: Number.isFinite(d) ? (Object.is(d, -0) ? 0 : d) : String(d) }));
  const { value: anyValue } = fc.letrec<{ value: JsonAnyValue }>((tie) => ({
    value: fc.oneof(
      { depthSize: "small" },
      fc.string({ unit: "binary", maxLength: 20 }).map((s) => ({ stringValue: s })),
      fc.boolean().map((b) => ({ boolValue: b })),
      fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }).map((n) => ({ intValue: n.toString() })),
      double,
      fc.uint8Array({ maxLength: 12 }).map((b) => ({ bytesValue: Buffer.from(b).toString("base64") })),
      fc.constant({}),
      fc.array(tie("value"), { maxLength: 3 }).map((values) => ({ arrayValue: { values } })),
      fc.array(fc.record({ key: fc.string({ maxLength: 8 }), value: tie("value") }), { maxLength: 3 }).map((values) => ({ kvlistValue: { values } })),
    ),
  }));
  const keyValues = fc.array(fc.record({ key: fc.string({ unit: "binary", maxLength: 10 }), value: anyValue }), { maxLength: 6 }) as fc.Arbitrary<JsonKeyValue[]>;
  const hex = (bytes: number) => fc.uint8Array({ minLength: bytes, maxLength: bytes }).map((b) => Buffer.from(b).toString("hex"));
  const record: fc.Arbitrary<JsonLogRecord> = fc.record(
    {
      timeUnixNano: fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }).map(String),
      observedTimeUnixNano: fc.bigInt({ min: 0n, max: 2n ** 64n - 1n }).map(String),
      severityNumber: fc.integer({ min: 0, max: 30 }),
      severityText: fc.constantFrom("", "INFO", "warn", "Error", "FATAL", "x\u0000"),
      body: anyValue,
      attributes: keyValues,
      droppedAttributesCount: fc.nat(),
      flags: fc.nat(),
      traceId: hex(16),
      spanId: hex(8),
      eventName: fc.string({ maxLength: 10 }),
    },
    { requiredKeys: [] },
  );

  it("for any records, attributes and values (property)", () => {
    fc.assert(
      fc.property(fc.array(record, { maxLength: 6 }), keyValues, (records, resource) => {
        const req = { resourceLogs: [{ resource: { attributes: resource }, scopeLogs: [{ scope: { name: "s" }, logRecords: records }] }] };
        expect(parseOtlpLogs(jsonBody(req), "json", "p")).toEqual(parseOtlpLogs(protobufBody(req), "protobuf", "p"));
      }),
      { numRuns: 300 },
    );
  });
});
