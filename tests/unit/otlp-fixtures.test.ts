import { describe, expect, it } from "vitest";
import { encodeOtlpLogsResponse, otlpFormatOf, parseOtlpLogs, type OtlpEvent } from "@/lib/otlp/logs";
import { loadOtlpFixture, loadOtlpFixtures } from "@/tests/fixtures/otlp/load";

// The requests the real clients sent (tests/fixtures/otlp/capture.ts made them).
const STACK = [
  "TypeError: Cannot read properties of undefined (reading 'id')",
  "    at chargeCard (/srv/shop/src/payments.js:42:17)",
  "    at async placeOrder (/srv/shop/src/orders.js:88:5)",
  "    at async Server.handle (/srv/shop/node_modules/fastify/lib/route.js:301:9)",
].join("\n");
const TIME = new Date("2026-11-28T10:00:00.123Z");
const SHOP_API_RESOURCE = {
  "service.name": "shop-api",
  "service.version": "2.14.0",
  "deployment.environment.name": "production",
  "host.name": "web-1",
};

function parse(name: string) {
  const fixture = loadOtlpFixture(name);
  return parseOtlpLogs(fixture.body, otlpFormatOf(fixture.contentType), "proj_1");
}

describe("the OpenTelemetry JS SDK's requests", () => {
  it("were captured from every exporter, plain and gzip, with the content types the route sees", () => {
    const fixtures = loadOtlpFixtures();
    expect(fixtures.map((f) => [f.name, f.contentType, f.contentEncoding])).toEqual([
      ["sdk-json", "application/json", null],
      ["sdk-json-gzip", "application/json", "gzip"],
      ["sdk-proto", "application/x-protobuf", null],
      ["sdk-proto-gzip", "application/x-protobuf", "gzip"],
      ["pino-proto", "application/x-protobuf", null],
    ]);
    // The gzip ones really are compressed (magic bytes), so the route's decoding is exercised by them.
    for (const f of fixtures.filter((f) => f.contentEncoding === "gzip")) expect([...f.raw.subarray(0, 2)]).toEqual([0x1f, 0x8b]);
  });

  for (const name of ["sdk-proto", "sdk-proto-gzip", "sdk-json", "sdk-json-gzip"]) {
    it(`${name}: six records, none rejected, levels and messages as the SDK logged them`, () => {
      const { events, rejected, errorMessage } = parse(name);
      expect(rejected).toBe(0);
      expect(errorMessage).toBe("");
      expect(events.map((e) => [e.level, e.message])).toEqual([
        ["info", "order placed"],
        ["error", "TypeError: Cannot read properties of undefined (reading 'id')"],
        ["warn", '{"event":"retry","attempt":3,"backoff":[100,200,400]}'],
        ["error", "disk full"], // no severity number: severityText FATAL
        ["info", "session.start"], // no body: the event name
        ["info", "héllo wörld ✓ 🚀"],
      ]);
      for (const event of events) {
        expect(event.projectId).toBe("proj_1");
        expect(event.timestamp).toEqual(TIME);
        expect(event.release).toBe("2.14.0");
        expect(event.environment).toBe("production");
        expect(event.fingerprint).toBeNull();
        expect(event.tags).toMatchObject({ service: "shop-api", scope: "shop.orders", host: "web-1" });
        expect(event.context).toMatchObject({ resource: SHOP_API_RESOURCE, scope: { name: "shop.orders", version: "1.2.3" } });
      }
    });
  }

  it("keeps every AnyValue kind of the attributes as JSON, the trace context, and the user", () => {
    const [first] = parse("sdk-proto").events as [OtlpEvent];
    expect(first.context).toEqual({
      attributes: {
        "order.id": "ord_81723",
        "order.paid": true,
        "order.items": 3,
        "order.total": 129.95,
        "order.discount": -5,
        // 2^60: past 2^53, so kept as a decimal string, every digit exact.
        "order.sequence": "1152921504606846976",
        "order.tags": ["gift", 2, false],
        "order.customer": { tier: "gold", address: { city: "Lyon", zip: "69002" } },
        "order.signature": "AAEC+v8=",
        "user.id": "u_1009",
        "user.email": "ana@example.com",
      },
      resource: SHOP_API_RESOURCE,
      scope: { name: "shop.orders", version: "1.2.3" },
      otel: {
        severityNumber: 9,
        severityText: "INFO",
        traceId: "5b8efff798038103d269b633813fc60c",
        spanId: "eee19b7ec3c1b174",
        flags: 1,
        observedTime: "2026-11-28T10:00:00.125Z",
      },
    });
    expect(first.user).toEqual({ id: "u_1009", email: "ana@example.com" });
    expect(first.tags).toEqual({ service: "shop-api", scope: "shop.orders", host: "web-1", severity: "INFO" });
  });

  it("the JSON exporter's 2^60 arrives as the number JavaScript wrote (1152921504606847000), kept as a string rather than rounded again", () => {
    const [first] = parse("sdk-json").events as [OtlpEvent];
    expect((first.context!.attributes as Record<string, unknown>)["order.sequence"]).toBe("1152921504606847000");
  });

  it("an exception gives the message `Type: message`, its stack goes to context.stacktrace (once), the body stays in the context", () => {
    for (const name of ["sdk-proto", "sdk-json"]) {
      const error = parse(name).events[1]!;
      expect(error.context).toMatchObject({
        stacktrace: STACK,
        body: "payment failed",
        attributes: {
          "payment.provider": "stripe",
          "exception.type": "TypeError",
          "exception.message": "Cannot read properties of undefined (reading 'id')",
        },
        otel: { severityNumber: 17, severityText: "ERROR" },
      });
      expect(error.context!.attributes).not.toHaveProperty(["exception.stacktrace"]);
    }
  });

  it("protobuf and JSON of the same records map to the same events (but for what JSON.stringify rounded)", () => {
    const withoutSequence = (events: OtlpEvent[]) =>
      events.map((e) => {
        const attributes = { ...(e.context?.attributes as object) } as Record<string, unknown>;
        delete attributes["order.sequence"];
        return { ...e, context: { ...e.context, attributes } };
      });
    expect(withoutSequence(parse("sdk-json").events)).toEqual(withoutSequence(parse("sdk-proto").events));
    expect(parse("sdk-json-gzip")).toEqual(parse("sdk-json"));
    expect(parse("sdk-proto-gzip")).toEqual(parse("sdk-proto"));
  });
});

describe("pino-opentelemetry-transport's request", () => {
  it("maps pino's levels through the severity numbers it sends (fatal -> error, trace -> info), text kept", () => {
    const { events, rejected } = parse("pino-proto");
    expect(rejected).toBe(0);
    expect(events.map((e) => [e.level, e.message, (e.context!.otel as { severityText: string }).severityText])).toEqual([
      ["info", "order placed", "info"],
      ["error", "charge failed", "error"],
      ["warn", "slow response", "warn"],
      ["error", "out of memory", "fatal"],
      ["info", "trace detail", "trace"],
    ]);
  });

  it("takes the older deployment.environment, service.version, and pino's serialized `err` stack for grouping", () => {
    const { events } = parse("pino-proto");
    for (const event of events) {
      expect(event.environment).toBe("staging");
      expect(event.release).toBe("2.14.0");
      expect(event.tags).toMatchObject({ service: "shop-worker" });
      expect(event.timestamp).toEqual(TIME);
    }
    const failed = events[1]!;
    expect(failed.context).toMatchObject({
      stacktrace: STACK,
      attributes: { err: { type: "TypeError", message: "Cannot read properties of undefined (reading 'id')", stack: STACK } },
    });
    expect(events[0]!.context).toMatchObject({ attributes: { orderId: 42 } });
  });
});

describe("the answer", () => {
  it("is an empty ExportLogsServiceResponse on full success (protobuf: no bytes; JSON: {})", () => {
    const proto = encodeOtlpLogsResponse({ rejected: 0, errorMessage: "" }, "protobuf");
    expect([proto.body.byteLength, proto.contentType]).toEqual([0, "application/x-protobuf"]);
    const json = encodeOtlpLogsResponse({ rejected: 0, errorMessage: "" }, "json");
    expect(json.contentType).toBe("application/json");
    expect(new TextDecoder().decode(json.body)).toBe("{}");
  });

  it("carries partialSuccess with the count (an int64: a string in JSON) and the reasons", () => {
    const json = encodeOtlpLogsResponse({ rejected: 2, errorMessage: "2 of 5 log records rejected" }, "json");
    expect(JSON.parse(new TextDecoder().decode(json.body))).toEqual({
      partialSuccess: { rejectedLogRecords: "2", errorMessage: "2 of 5 log records rejected" },
    });
    // field 1 (partial_success, length 31) { field 1 varint 2, field 2 string }
    const proto = encodeOtlpLogsResponse({ rejected: 2, errorMessage: "2 of 5 log records rejected" }, "protobuf");
    expect(Buffer.from(proto.body).toString("hex")).toBe(`0a1f0802121b${Buffer.from("2 of 5 log records rejected").toString("hex")}`);
  });
});
