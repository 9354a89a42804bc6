import { describe, expect, it } from "vitest";
import { AppError } from "@/lib/http/errors";
import { quoteUnsafeIntegers } from "@/lib/otlp/decode-json";
import { otlpFormatOf, parseOtlpLogs, type OtlpLogsResult } from "@/lib/otlp/logs";
import { jsonBody } from "@/tests/fixtures/otlp/requests";

const parseText = (text: string): OtlpLogsResult => parseOtlpLogs(new TextEncoder().encode(text), "json", "p");
const parseJson = (value: unknown): OtlpLogsResult => parseOtlpLogs(jsonBody(value), "json", "p");
const records = (...logRecords: unknown[]) => ({ resourceLogs: [{ scopeLogs: [{ logRecords }] }] });

function refusal(run: () => unknown): AppError {
  try {
    run();
  } catch (error) {
    if (error instanceof AppError) return error;
    throw error;
  }
  throw new Error("expected an AppError");
}

describe("otlpFormatOf", () => {
  it("reads protobuf and JSON content types, parameters and case aside; anything else is a 415", () => {
    expect(otlpFormatOf("application/x-protobuf")).toBe("protobuf");
    expect(otlpFormatOf("application/protobuf")).toBe("protobuf");
    expect(otlpFormatOf("Application/JSON; charset=utf-8")).toBe("json");
    for (const type of [null, "", "text/plain", "application/grpc", "application/x-ndjson"]) {
      expect(refusal(() => otlpFormatOf(type))).toMatchObject({ status: 415, code: "unsupported_media_type" });
    }
  });
});

describe("OTLP/JSON as the OTLP/HTTP specification writes it", () => {
  it("accepts the proto field names too (time_unix_nano, string_value, ...), as protobuf's JSON parsers do; camelCase wins when both are there", () => {
    const { events } = parseJson({
      resource_logs: [
        {
          resource: { attributes: [{ key: "service.version", value: { string_value: "9" } }] },
          scope_logs: [
            {
              log_records: [
                {
                  time_unix_nano: "1795860000123000000",
                  severity_number: 17,
                  severityNumber: 9,
                  severity_text: "X",
                  body: { kvlist_value: { values: [{ key: "a", value: { int_value: "1" } }] } },
                  trace_id: "5b8efff798038103d269b633813fc60c",
                },
              ],
            },
          ],
        },
      ],
    });
    expect(events[0]).toMatchObject({
      level: "info",
      message: '{"a":1}',
      release: "9",
      timestamp: new Date(1795860000123),
      context: { otel: { severityNumber: 9, severityText: "X", traceId: "5b8efff798038103d269b633813fc60c" } },
    });
  });

  it("reads 64-bit integers from strings or numbers, keeping every digit of bare numbers past 2^53", () => {
    const { events } = parseText(
      '{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"timeUnixNano":1795860000123456789,"attributes":[' +
        '{"key":"a","value":{"intValue":9007199254740993}},{"key":"b","value":{"intValue":"12"}},{"key":"c","value":{"intValue":-9223372036854775808}},' +
        '{"key":"d","value":{"intValue":7}},{"key":"e","value":{"stringValue":"12345678901234567890"}}]}]}]}]}',
    );
    expect(events[0]!.timestamp).toEqual(new Date(1795860000123));
    expect(events[0]!.context!.attributes).toEqual({ a: "9007199254740993", b: 12, c: "-9223372036854775808", d: 7, e: "12345678901234567890" });
  });

  it("takes severity names as well as numbers (OTLP says numbers; names are protobuf's JSON mapping)", () => {
    const { events, rejected, errorMessage } = parseJson(records({ severityNumber: "SEVERITY_NUMBER_WARN2" }, { severityNumber: "SEVERITY_NUMBER_BOGUS" }));
    expect(events.map((e) => e.level)).toEqual(["warn"]);
    expect(rejected).toBe(1);
    expect(errorMessage).toContain("logRecords[1]: severityNumber: Must be a SeverityNumber");
  });

  it("doubles: numbers, numeric strings, and NaN/Infinity as protobuf's JSON mapping writes them (kept as strings)", () => {
    const { events } = parseJson(
      records({
        attributes: [
          { key: "a", value: { doubleValue: 1.25 } },
          { key: "b", value: { doubleValue: "2.5" } },
          { key: "c", value: { doubleValue: "NaN" } },
          { key: "d", value: { doubleValue: "-Infinity" } },
        ],
      }),
    );
    expect(events[0]!.context!.attributes).toEqual({ a: 1.25, b: 2.5, c: "NaN", d: "-Infinity" });
  });

  it("bytes: standard or URL-safe base64, padded or not (stored as standard base64)", () => {
    const { events } = parseJson(records({ attributes: [{ key: "a", value: { bytesValue: "3q2-7w" } }, { key: "b", value: { bytesValue: "3q2+7w==" } }] }));
    expect(events[0]!.context!.attributes).toEqual({ a: "3q2+7w==", b: "3q2+7w==" });
  });

  it("ignores unknown fields at every level and reads null as absent", () => {
    const { events, rejected } = parseJson({
      resourceLogs: [
        {
          resource: { attributes: null, entityRefs: [{ type: "service" }] },
          schemaUrl: "https://opentelemetry.io/schemas/1.26.0",
          futureField: { x: 1 },
          scopeLogs: [{ scope: null, logRecords: [{ body: { stringValue: "hi", newKind: 3 }, attributes: null, traceId: null, somethingNew: true }] }],
        },
      ],
      extra: [],
    });
    expect(rejected).toBe(0);
    expect(events[0]).toMatchObject({ message: "hi", context: { otel: {} } });
  });

  it("an id that is not hex of the right length is left out, not a rejection", () => {
    const { events } = parseJson(records({ traceId: "W4/v95gDgQPSabYzgT/GDA==", spanId: "xyz" }));
    expect(events[0]!.context!.otel).toEqual({});
  });
});

describe("a record with the wrong types is rejected alone, naming the field", () => {
  const cases: Array<[unknown, string]> = [
    [{ severityNumber: 1.5 }, "severityNumber: Must be a SeverityNumber"],
    [{ severityNumber: 2 ** 40 }, "severityNumber: Must be a SeverityNumber"],
    [{ severityText: 5 }, "severityText: Must be a string."],
    [{ attributes: "x" }, "attributes: Must be an array of {key, value} objects."],
    [{ attributes: [{ key: 1 }] }, "attributes.0.key: Must be a string."],
    [{ body: { boolValue: "yes" } }, "body.boolValue: Must be true or false."],
    [{ body: { intValue: "9223372036854775808" } }, "body.intValue: Must fit in a signed 64-bit integer."],
    [{ body: { intValue: 1e30 } }, "body.intValue: Must be an integer"],
    [{ body: { intValue: "12abc" } }, "body.intValue: Must be an integer (a number or a decimal string)."],
    [{ timeUnixNano: "18446744073709551616" }, "timeUnixNano: Must fit in an unsigned 64-bit integer."],
    [{ timeUnixNano: -1 }, "timeUnixNano: Must fit in an unsigned 64-bit integer."],
    [{ body: { bytesValue: "!!!" } }, "body.bytesValue: Must be base64."],
    [{ body: { arrayValue: { values: {} } } }, "body.arrayValue.values: Must be an array."],
    [{ traceId: 7 }, "traceId: Must be a hex string."],
    [{ flags: -1 }, "flags: Must fit in an unsigned 32-bit integer."],
    ["a string", "record: Must be an object."],
    [null, "record: Must be an object."],
  ];
  for (const [record, reason] of cases) {
    it(`${JSON.stringify(record)} -> ${reason}`, () => {
      const { events, rejected, errorMessage } = parseJson(records({ body: { stringValue: "kept" } }, record));
      expect(events.map((e) => e.message)).toEqual(["kept"]);
      expect(rejected).toBe(1);
      expect(errorMessage).toContain(`resourceLogs[0].scopeLogs[0].logRecords[1]: ${reason}`);
    });
  }

  it("a lone surrogate escape (\\ud800) in a string is rejected: it is not text", () => {
    const { rejected, errorMessage } = parseText('{"resourceLogs":[{"scopeLogs":[{"logRecords":[{"body":{"stringValue":"a\\ud800b"}}]}]}]}');
    expect(rejected).toBe(1);
    expect(errorMessage).toContain("lone UTF-16 surrogate");
  });
});

describe("a body that is not an OTLP/JSON request is refused as a whole", () => {
  it("not UTF-8, empty, or not JSON: 400 invalid_json", () => {
    expect(refusal(() => parseOtlpLogs(new Uint8Array([0x7b, 0xff, 0x7d]), "json", "p"))).toMatchObject({ status: 400, code: "invalid_json", message: "The request body is not valid UTF-8." });
    expect(refusal(() => parseText("  "))).toMatchObject({ status: 400, code: "invalid_json" });
    expect(refusal(() => parseText('{"resourceLogs": [}'))).toMatchObject({ status: 400, code: "invalid_json" });
    expect(refusal(() => parseText('{"resourceLogs": "'))).toMatchObject({ status: 400, code: "invalid_json" });
  });

  it("the wrong shape above the records: 400 validation_failed with the path", () => {
    expect(refusal(() => parseJson([]))).toMatchObject({ status: 400, code: "validation_failed", errors: [{ path: "body", message: "Must be an object." }] });
    expect(refusal(() => parseJson({ resourceLogs: {} }))).toMatchObject({ errors: [{ path: "resourceLogs", message: "Must be an array." }] });
    expect(refusal(() => parseJson({ resourceLogs: [{ scopeLogs: [{ logRecords: 5 }] }] }))).toMatchObject({
      errors: [{ path: "resourceLogs.0.scopeLogs.0.logRecords", message: "Must be an array of log records." }],
    });
    expect(refusal(() => parseJson({ resourceLogs: [{ resource: { attributes: [{ key: 3 }] } }] }))).toMatchObject({
      errors: [{ path: "resourceLogs.0.resource.attributes.0.key", message: "Must be a string." }],
    });
  });
});

describe("quoteUnsafeIntegers", () => {
  it("quotes only bare integers a double cannot hold, never text inside strings or numbers with a fraction or exponent", () => {
    expect(quoteUnsafeIntegers('{"a":9007199254740993,"b":"9007199254740993","c":9007199254740991,"d":1.5e300,"e":-18446744073709551615}')).toBe(
      '{"a":"9007199254740993","b":"9007199254740993","c":9007199254740991,"d":1.5e300,"e":"-18446744073709551615"}',
    );
    expect(quoteUnsafeIntegers('{"a\\"b":"x\\\\","n":123456789012345678901}')).toBe('{"a\\"b":"x\\\\","n":"123456789012345678901"}');
    const plain = '{"resourceLogs":[{"scopeLogs":[]}]}';
    expect(quoteUnsafeIntegers(plain)).toBe(plain);
  });
});
