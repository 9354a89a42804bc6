/**
 * What the client makes of an application's input: every event it builds
 * passes the server's own validation (one invalid event fails a whole batch),
 * exceptions carry their stack and cause chain, oversized events are cut.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { buildEvent, serializeEvent } from "@/packages/client/src/event";
import { eventInputSchema, validateEvent } from "@/lib/events/schema";
import { parseStrictJson } from "@/lib/http/strict-json";
import type { CallOptions, EventInput } from "@/packages/client/src/types";

const NOW = Date.UTC(2026, 10, 27, 12, 0, 0);

/** The fields today's server schema knows (release, tags, ... once the server has them). */
const serverFields = new Set(Object.keys(eventInputSchema.shape));
function asServerSees(event: EventInput): Record<string, unknown> {
  return Object.fromEntries(Object.entries(event).filter(([key]) => serverFields.has(key)));
}

/** The event as the server reads it: strict JSON (exact numbers, depth), then the schema. */
function serverProblems(event: EventInput) {
  const serialized = serializeEvent(event, 262_144);
  expect(serialized).not.toBeNull();
  const parsed = parseStrictJson(serialized!.json, { maxDepth: 33 });
  const value = asServerSees(parsed.value as EventInput);
  return [...parsed.problems, ...validateEvent(value).problems];
}

describe("every event the client builds is one the server accepts", () => {
  it("for any message, context and options (property test)", () => {
    const anyValue = fc.oneof(
      fc.anything({ maxDepth: 40, withBigInt: true, withDate: true, withMap: true, withSet: true, withTypedArray: true, withNullPrototype: true, withObjectString: true, withSparseArray: true, withUnicodeString: true }),
      fc.string({ unit: "binary" }),
      fc.double(),
      fc.bigInt(),
      fc.letrec((tie) => ({ deep: fc.oneof({ depthSize: "small" }, fc.constant(1), fc.array(tie("deep"), { maxLength: 2 })) })).deep,
    );
    const options: fc.Arbitrary<CallOptions> = fc.record(
      {
        release: fc.string({ unit: "binary", maxLength: 300 }),
        environment: fc.string({ unit: "binary", maxLength: 100 }),
        tags: fc.dictionary(fc.string({ unit: "binary", maxLength: 40 }), fc.oneof(fc.string({ unit: "binary", maxLength: 250 }), fc.integer(), fc.boolean()), { maxKeys: 70 }),
        user: fc.record({ id: fc.string({ unit: "binary" }), email: fc.string(), username: fc.string({ maxLength: 300 }), ip_address: fc.string() }, { requiredKeys: [] }),
        fingerprint: fc.array(fc.string({ unit: "binary", maxLength: 250 }), { maxLength: 12 }),
        timestamp: fc.oneof(fc.date({ noInvalidDate: false }), fc.double(), fc.string()),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(fc.constantFrom("error", "warn", "info", "fatal", "debug", "trace", "http", "silly", ""), anyValue, anyValue, options, fc.boolean(), (level, message, context, opts, exception) => {
        const event = buildEvent({ level, message, context, options: opts, exception }, "proj_1", { release: "1.0.0", tags: { region: "eu" } }, NOW);
        expect(serverProblems(event)).toEqual([]);
      }),
      { numRuns: 400 },
    );
  });

  it("for shapes a property run found: an empty object then a string in an array", () => {
    const event = buildEvent({ level: "error", message: 1, context: [[new Map(), new Date(0)]] }, "p", {}, NOW);
    expect(event.context).toEqual({ value: [[{}, "1970-01-01T00:00:00.000Z"]] });
    expect(serverProblems(event)).toEqual([]);
  });

  it("for text the server refuses raw: NUL, lone surrogates, over 10,000 characters, unsafe integers, 40 levels deep", () => {
    let deep: unknown = "bottom";
    for (let i = 0; i < 40; i++) deep = { d: deep };
    const event = buildEvent(
      { level: "error", message: `a\u0000b\ud800${"x".repeat(20_000)}`, context: { deep, big: 2 ** 60, huge: 1e300, nan: NaN, "k\u0000": "\udc00" } },
      "p",
      {},
      NOW,
    );
    expect(serverProblems(event)).toEqual([]);
    expect(Array.from(event.message)).toHaveLength(10_000);
    expect(event.message.startsWith("a\uFFFDb\uFFFD")).toBe(true);
    expect(event.context).toMatchObject({ big: String(2 ** 60), huge: 1e300, nan: "NaN", "k\uFFFD": "\uFFFD" });
    // The context is level 1; containers past the server's 32 levels are cut, the 32nd kept.
    let node = event.context!.deep as Record<string, unknown> | string;
    let levels = 1;
    while (typeof node === "object") {
      node = node.d as Record<string, unknown> | string;
      levels++;
    }
    expect(node).toBe("[nested too deep]");
    expect(levels).toBe(32);
  });
});

describe("captureException", () => {
  it("sends `Type: message`, the stack in context.stack, the cause chain and the error's own properties", () => {
    const root = new RangeError("disk full");
    const middle = new TypeError("write failed", { cause: root });
    const outer = Object.assign(new Error("save failed", { cause: middle }), { code: "E_SAVE", retryable: false });
    const event = buildEvent({ level: "error", message: outer, context: { orderId: 42 }, exception: true }, "p", {}, NOW);
    expect(event.level).toBe("error");
    expect(event.message).toBe("Error: save failed");
    expect(event.context).toMatchObject({
      orderId: 42,
      stack: outer.stack,
      error: { type: "Error", message: "save failed", code: "E_SAVE", retryable: false },
      cause: [
        { type: "TypeError", message: "write failed", stack: middle.stack },
        { type: "RangeError", message: "disk full", stack: root.stack },
      ],
    });
  });

  it("names a subclass by its class, reads AggregateError's errors, and stops at a cycle", () => {
    class PaymentError extends Error {}
    const a = new Error("a");
    const b = new Error("b", { cause: a });
    (a as { cause?: unknown }).cause = b;
    const aggregate = new AggregateError([new PaymentError("card declined"), b], "2 payments failed");
    const event = buildEvent({ level: "error", message: aggregate, exception: true }, "p", {}, NOW);
    expect(event.message).toBe("AggregateError: 2 payments failed");
    const errors = event.context!.errors as { type: string; message: string; cause?: { type: string; message: string }[] }[];
    expect(errors.map((e) => `${e.type}: ${e.message}`)).toEqual(["PaymentError: card declined", "Error: b"]);
    expect(errors[1]!.cause!.map((c) => c.message)).toEqual(["a", "the cause chain loops back to an error above"]);
    expect(serverProblems(event)).toEqual([]);

    const self = new Error("self");
    (self as { cause?: unknown }).cause = self;
    const selfEvent = buildEvent({ level: "error", message: self, exception: true }, "p", {}, NOW);
    expect(selfEvent.context!.cause).toEqual([{ type: "Circular", message: "the cause chain loops back to an error above" }]);
  });

  it("keeps a cause chain bounded at 8", () => {
    let error = new Error("level 0");
    for (let i = 1; i <= 20; i++) error = new Error(`level ${i}`, { cause: error });
    const event = buildEvent({ level: "error", message: error, exception: true }, "p", {}, NOW);
    expect(event.context!.cause).toHaveLength(8);
  });

  it("takes a thrown string or object", () => {
    expect(buildEvent({ level: "error", message: "oops", exception: true }, "p", {}, NOW)).toMatchObject({ message: "Error: oops", context: { thrown: "oops" } });
    expect(buildEvent({ level: "error", message: { code: 7 }, exception: true }, "p", {}, NOW)).toMatchObject({ message: 'Non-Error thrown: {"code":7}', context: { thrown: { code: 7 } } });
  });

  it("an Error passed as a log call's context gives its stack too", () => {
    const err = new Error("inner");
    const event = buildEvent({ level: "warn", message: "retrying", context: err }, "p", {}, NOW);
    expect(event).toMatchObject({ level: "warn", message: "retrying", context: { stack: err.stack, error: { type: "Error", message: "inner" } } });
  });
});

describe("levels, defaults and per-call fields", () => {
  it("maps other loggers' level names and keeps the original", () => {
    const cases = [["fatal", "error"], ["critical", "error"], ["warning", "warn"], ["debug", "info"], ["trace", "info"], ["http", "info"], ["error", "error"]];
    for (const [name, level] of cases) {
      const event = buildEvent({ level: name!, message: "m" }, "p", {}, NOW);
      expect(event.level).toBe(level);
      if (name !== level) expect(event.context).toEqual({ level: name });
      else expect(event.context).toBeUndefined();
    }
  });

  it("sends release, environment, tags and user only when set; the call's win, tags merge", () => {
    const bare = buildEvent({ level: "info", message: "m" }, "p", {}, NOW);
    expect(Object.keys(bare).sort()).toEqual(["level", "message", "projectId", "timestamp"]);
    const event = buildEvent(
      { level: "info", message: "m", options: { release: "2.0.0", tags: { route: "/pay", region: "us" }, user: { id: "u1" }, fingerprint: ["pay"], timestamp: new Date(NOW - 5_000) } },
      "p",
      { release: "1.0.0", environment: "production", tags: { region: "eu", host: "a1" }, user: { email: "x@example.test" } },
      NOW,
    );
    expect(event).toMatchObject({ release: "2.0.0", environment: "production", tags: { route: "/pay", region: "us", host: "a1" }, user: { id: "u1" }, fingerprint: ["pay"], timestamp: new Date(NOW - 5_000).toISOString() });
  });
});

describe("size", () => {
  it("cuts an event over maxEventBytes to fit, saying so, and keeps the stack", () => {
    const error = new Error("big");
    const event = buildEvent({ level: "error", message: error, context: { payload: "p".repeat(400_000), rows: Array.from({ length: 5_000 }, (_, i) => ({ i })) }, exception: true }, "p", {}, NOW);
    const serialized = serializeEvent(event, 262_144)!;
    expect(serialized.truncated).toBe(true);
    expect(serialized.bytes).toBeLessThanOrEqual(262_144);
    expect(serialized.bytes).toBe(Buffer.byteLength(serialized.json));
    const sent = JSON.parse(serialized.json) as EventInput;
    expect(sent.context!.stack).toBe(error.stack);
    expect(String(sent.context!.telltale_truncated)).toMatch(/to fit the 262144-byte event limit/);
    expect(serverProblems(sent)).toEqual([]);
  });

  it("counts bytes as UTF-8", () => {
    const event = buildEvent({ level: "info", message: "é😀", context: { s: "ü".repeat(10) } }, "p", {}, NOW);
    const serialized = serializeEvent(event, 262_144)!;
    expect(serialized.bytes).toBe(Buffer.byteLength(serialized.json, "utf8"));
  });
});
