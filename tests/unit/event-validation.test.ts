import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ingestBody, parseEventBatchBody as parseBatch, parseEventBody as parseEvent } from "@/lib/ingest/ingest";
import {
  EVENT_LEVELS,
  eventInputSchema,
  MAX_ENVIRONMENT_CHARS,
  MAX_FINGERPRINT_PART_CHARS,
  MAX_FINGERPRINT_PARTS,
  MAX_MESSAGE_CHARS,
  MAX_RELEASE_CHARS,
  MAX_TAG_KEY_CHARS,
  MAX_TAG_VALUE_CHARS,
  MAX_USER_FIELD_CHARS,
  TOO_DEEP,
  validateEvent,
} from "@/lib/events/schema";
import { MAX_ID_CHARS, zodProblems } from "@/lib/http/input";

// Bodies as read from the wire, without strict-parsing problems (those are tested below).
const parseEventBody = (value: unknown) => parseEvent({ value, problems: [] });
const parseEventBatchBody = (value: unknown) => parseBatch({ value, problems: [] });
import { idempotencyKeyOf } from "@/lib/http/input";

const parseIdempotencyKey = (value: string | null) =>
  idempotencyKeyOf(new Request("http://x/", { headers: value === null ? {} : { "idempotency-key": value } }));
import { AppError } from "@/lib/http/errors";

const valid = { level: "error", message: "Payment failed", projectId: "p1" };

function problemsOf(fn: () => unknown) {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    const e = error as AppError;
    expect(e.status).toBe(400);
    expect(e.code).toBe("validation_failed");
    return e.errors ?? [];
  }
  throw new Error("expected a validation error");
}

function nested(depth: number): Record<string, unknown> {
  let value: Record<string, unknown> = {};
  for (let i = 1; i < depth; i++) value = { a: value };
  return value;
}

describe("event validation", () => {
  it("accepts a minimal event and the optional fields", () => {
    expect(parseEventBody(valid)).toEqual({ ...valid, context: null, timestamp: null, fingerprint: null, release: null, environment: null, tags: null, user: null });
    const full = parseEventBody({ ...valid, context: { user: { id: 1 }, tags: ["a"], ok: true, n: null }, timestamp: "2026-01-02T03:04:05.678+01:00" });
    expect(full.context).toEqual({ user: { id: 1 }, tags: ["a"], ok: true, n: null });
    expect(full.timestamp?.toISOString()).toBe("2026-01-02T02:04:05.678Z");
    expect(parseEventBody({ ...valid, timestamp: 1767225600000 }).timestamp?.toISOString()).toBe("2026-01-01T00:00:00.000Z");
    expect(parseEventBody({ ...valid, fingerprint: ["checkout", "stripe-timeout"] }).fingerprint).toEqual(["checkout", "stripe-timeout"]);
  });

  it("reads a unix timestamp below 10^12 as seconds (fractions allowed), from 10^12 up as milliseconds", () => {
    expect(parseEventBody({ ...valid, timestamp: 1767225600 }).timestamp?.toISOString()).toBe("2026-01-01T00:00:00.000Z");
    expect(parseEventBody({ ...valid, timestamp: 1767225600.25 }).timestamp?.toISOString()).toBe("2026-01-01T00:00:00.250Z");
    expect(parseEventBody({ ...valid, timestamp: 253_402_300_799 }).timestamp?.toISOString()).toBe("9999-12-31T23:59:59.000Z");
    expect(problemsOf(() => parseEventBody({ ...valid, timestamp: 999_999_999_999 }))[0]!.path).toBe("timestamp"); // seconds: year 33658
    expect(parseEventBody({ ...valid, timestamp: 1_000_000_000_000 }).timestamp?.toISOString()).toBe("2001-09-09T01:46:40.000Z");
    expect(parseEventBody({ ...valid, timestamp: 0 }).timestamp?.toISOString()).toBe("1970-01-01T00:00:00.000Z");
  });

  it("accepts release, environment, tags and user, and stores an empty tags object or user as absent", () => {
    const event = parseEventBody({
      ...valid,
      release: "web@2.4.1",
      environment: "production",
      tags: { region: "eu-west-1", "feature.flag": "on" },
      user: { id: "42", email: "ada@example.com", username: "ada", ip_address: "203.0.113.9" },
    });
    expect(event).toMatchObject({
      release: "web@2.4.1",
      environment: "production",
      tags: { region: "eu-west-1", "feature.flag": "on" },
      user: { id: "42", email: "ada@example.com", username: "ada", ip_address: "203.0.113.9" },
    });
    expect(parseEventBody({ ...valid, tags: {}, user: {} })).toMatchObject({ tags: null, user: null });
    const fiftyTags = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, "v"]));
    expect(Object.keys(parseEventBody({ ...valid, tags: fiftyTags }).tags!)).toHaveLength(50);
  });

  it("names each bad release, environment, tag and user field", () => {
    const problems = problemsOf(() =>
      parseEventBody({
        ...valid,
        release: "r".repeat(201),
        environment: "",
        tags: { ["k".repeat(33)]: "v", ok: 7, empty: "", long: "v".repeat(201) },
        user: { id: 42, name: "Ada" },
      }),
    );
    const paths = problems.map((p) => p.path).sort();
    expect(paths).toEqual(["environment", "release", "tags.empty", `tags.${"k".repeat(33)}`, "tags.long", "tags.ok", "user.id", "user.name"].sort());
    expect(problems.find((p) => p.path === "user.name")!.message).toBe("Unknown field.");
    // A bad tag name says what names may be, not that tags must be an object.
    expect(problems.find((p) => p.path === `tags.${"k".repeat(33)}`)!.message).toBe("Tag names have 1 to 32 characters.");
    expect(problemsOf(() => parseEventBody({ ...valid, tags: { "": "x" } }))).toEqual([{ path: "tags", message: "Tag names have 1 to 32 characters." }]);
    const tooMany = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, "v"]));
    expect(problemsOf(() => parseEventBody({ ...valid, tags: tooMany }))).toEqual([{ path: "tags", message: "Must have at most 50 tags." }]);
    for (const bad of [["a"], "x", null]) {
      expect(problemsOf(() => parseEventBody({ ...valid, tags: bad }))[0]!.path, JSON.stringify(bad)).toBe("tags");
      expect(problemsOf(() => parseEventBody({ ...valid, user: bad }))[0]!.path, JSON.stringify(bad)).toBe("user");
    }
  });

  it("refuses a fingerprint that is not 1 to 8 strings of 1 to 200 characters", () => {
    for (const fingerprint of [[], [""], ["x".repeat(201)], Array(9).fill("a"), "a", [1], null]) {
      expect(problemsOf(() => parseEventBody({ ...valid, fingerprint }))[0]!.path, JSON.stringify(fingerprint)).toMatch(/^fingerprint/);
    }
    expect(parseEventBody({ ...valid, fingerprint: Array(8).fill("x".repeat(200)) }).fingerprint).toHaveLength(8);
  });

  it("lists every problem at once", () => {
    const problems = problemsOf(() => parseEventBody({ level: "fatal", message: "", context: [1], extra: 1, other: 2 }));
    expect(problems).toEqual(
      expect.arrayContaining([
        { path: "level", message: "Must be one of error, warn, info." },
        { path: "message", message: "Must not be empty." },
        { path: "projectId", message: "Required." },
        { path: "context", message: expect.stringContaining("JSON object") },
        { path: "extra", message: "Unknown field." },
        { path: "other", message: "Unknown field." },
      ]),
    );
    expect(problems).toHaveLength(6);
  });

  it.each([
    ["an array", [valid]],
    ["a string", "hello"],
    ["a number", 42],
    ["null", null],
  ])("rejects a body that is %s", (_name, body) => {
    const problems = problemsOf(() => parseEventBody(body));
    expect(problems[0]!.message).toMatch(/JSON object/);
  });

  it("rejects wrong types", () => {
    const problems = problemsOf(() => parseEventBody({ level: 1, message: 2, projectId: 3, context: "x", timestamp: true }));
    expect(problems.map((p) => p.path).sort()).toEqual(["context", "level", "message", "projectId", "timestamp"]);
  });

  it("limits the message to 10,000 characters, counting code points", () => {
    expect(parseEventBody({ ...valid, message: "x".repeat(10_000) }).message).toHaveLength(10_000);
    expect(parseEventBody({ ...valid, message: "😀".repeat(10_000) }).message).toHaveLength(20_000);
    expect(problemsOf(() => parseEventBody({ ...valid, message: "x".repeat(10_001) }))).toEqual([
      { path: "message", message: "Must be at most 10000 characters." },
    ]);
  });

  it("rejects NUL characters anywhere, with their path", () => {
    const problems = problemsOf(() => parseEventBody({ ...valid, message: "a\u0000b", context: { deep: ["ok", "x\u0000"], ["k\u0000"]: 1 } }));
    expect(problems.map((p) => p.path)).toEqual(expect.arrayContaining(["message", "context.deep.1", "context.k\\u0000"]));
  });

  it("finds a NUL or a lone surrogate at any path of any context, and accepts contexts without one (property)", () => {
    const bad = fc.constantFrom("x\u0000y", "\ud800", "a\udfffb");
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), fc.array(fc.nat(), { maxLength: 6 }), bad, fc.boolean(), (context, route, text, asKey) => {
        // Without a bad string: accepted as it is.
        const clean = { ...valid, context: { value: context } };
        if (!JSON.stringify(context).includes("\\u")) expect(parseEventBody(clean).context).toEqual({ value: context });
        // The bad string placed down `route` (as a value, or as a field name): refused at that path.
        const path = ["context", "value"];
        const root: Record<string, unknown> = { value: structuredClone(context) };
        let parent: Record<string, unknown> | unknown[] = root;
        let key: string | number = "value";
        for (const step of route) {
          const here: unknown = (parent as Record<string | number, unknown>)[key];
          if (Array.isArray(here) && here.length > 0) {
            key = step % here.length;
          } else if (here && typeof here === "object" && Object.keys(here).length > 0) {
            const keys = Object.keys(here);
            key = keys[step % keys.length]!;
          } else break;
          parent = here as Record<string, unknown> | unknown[];
          path.push(String(key));
        }
        if (asKey) {
          (parent as Record<string | number, unknown>)[key] = { [text]: 1 };
          path.push(text.replace(/\u0000/g, "\\u0000"));
        } else {
          (parent as Record<string | number, unknown>)[key] = text;
        }
        const problems = problemsOf(() => parseEventBody({ ...valid, context: root }));
        const expected = asKey ? path.join(".").toWellFormed() : path.join(".");
        expect(problems.map((p) => p.path)).toContain(expected);
      }),
      { numRuns: 300 },
    );
  });

  it("allows 32 levels of nesting and rejects 33", () => {
    // The event object is level 1, so its context may hold 31 levels.
    // A context of exactly 32 levels is accepted; 33 is not.
    expect(parseEventBody({ ...valid, context: nested(32) }).context).toBeTruthy();
    const problems = problemsOf(() => parseEventBody({ ...valid, context: nested(33) }));
    expect(problems).toHaveLength(1);
    expect(problems[0]!.message).toMatch(/deeper than 32/);
  });

  it("rejects timestamps that are neither ISO 8601 with a zone nor a unix time in years 1970 to 9999", () => {
    for (const timestamp of ["yesterday", "2026-01-01", "2026-01-01T00:00:00", -1, 9e15, 253402300800000]) {
      expect(problemsOf(() => parseEventBody({ ...valid, timestamp }))[0]!.path).toBe("timestamp");
    }
  });
});

describe("batch validation", () => {
  it("accepts 1 to 1,000 events", () => {
    expect(parseEventBatchBody({ events: [valid] })).toHaveLength(1);
    expect(parseEventBatchBody({ events: Array(1000).fill(valid) })).toHaveLength(1000);
  });

  it("rejects an empty, oversized or malformed envelope", () => {
    expect(problemsOf(() => parseEventBatchBody({ events: [] }))[0]!.path).toBe("events");
    expect(problemsOf(() => parseEventBatchBody({ events: Array(1001).fill(valid) }))[0]!.path).toBe("events");
    expect(problemsOf(() => parseEventBatchBody("events"))[0]!.message).toMatch(/"events"/);
    // A bare array is a batch too (log shippers send one).
    expect(parseEventBatchBody([valid, valid])).toHaveLength(2);
    expect(problemsOf(() => parseEventBatchBody({ events: [valid], more: 1 }))).toEqual([{ path: "more", message: "Unknown field." }]);
  });

  it("names each bad event's path", () => {
    const problems = problemsOf(() => parseEventBatchBody({ events: [valid, valid, valid, { ...valid, level: "fatal" }, { ...valid, message: "" }] }));
    expect(problems).toEqual([
      { path: "events.3.level", message: "Must be one of error, warn, info." },
      { path: "events.4.message", message: "Must not be empty." },
    ]);
  });
});

describe("Idempotency-Key header", () => {
  it("accepts 1 to 200 printable characters and nothing else", () => {
    expect(parseIdempotencyKey(null)).toBeUndefined();
    expect(parseIdempotencyKey("order-123")).toBe("order-123");
    expect(parseIdempotencyKey("x".repeat(200))).toHaveLength(200);
    for (const bad of ["", "x".repeat(201), "tab\there", "é"]) {
      expect(problemsOf(() => parseIdempotencyKey(bad))[0]!.path).toBe("Idempotency-Key");
    }
  });
});

describe("events read from JSON text (the raw walk skipped when the text vouches)", () => {
  const read = (text: string, batch = false) =>
    (batch ? ingestBody.batch : ingestBody.single)(new Request("http://x/", { method: "POST", headers: { "content-type": "application/json" }, body: text }));
  const outcome = (fn: () => unknown) => {
    try {
      return { value: fn() };
    } catch (error) {
      return { problems: (error as AppError).errors };
    }
  };

  it("gives what the full check gives, with or without escapes, for single events and batches (property)", async () => {
    const text = fc.oneof(fc.string(), fc.constantFrom("x\u0000y", "\ud800", "a\udfffb", "é\\u", "\u2028"));
    const context = fc.dictionary(text, fc.jsonValue({ maxDepth: 4 }).chain((v) => fc.oneof(fc.constant(v), text)), { maxKeys: 5 });
    await fc.assert(
      fc.asyncProperty(context, text, async (ctx, message) => {
        const event = { ...valid, message: message || "m", context: ctx };
        // The same body without what reading vouched for: every event walked.
        const single = await read(JSON.stringify(event));
        expect(outcome(() => parseEvent(single))).toEqual(outcome(() => parseEvent({ value: single.value, problems: single.problems })));
        const batch = await read(JSON.stringify({ events: [event, valid] }), true);
        expect(outcome(() => parseBatch(batch))).toEqual(outcome(() => parseBatch({ value: batch.value, problems: batch.problems })));
        // A text with an escape vouches for nothing.
        if (JSON.stringify(event).includes("\\u")) expect(single.plain).toBeUndefined();
      }),
      { numRuns: 300 },
    );
  });

  it("still refuses a context nested too deep in a bare array or NDJSON batch, whose text allows one level more", async () => {
    const deep = { ...valid, context: nested(33) };
    const body = await read(JSON.stringify([deep]), true);
    expect(body.plain).toBeDefined();
    expect(problemsOf(() => parseBatch(body)).map((p) => p.message)).toContain(TOO_DEEP);
    const wrapped = await read(JSON.stringify({ events: [deep] }), true);
    expect(problemsOf(() => parseBatch(wrapped)).map((p) => p.message)).toContain(TOO_DEEP);
    const single = await read(JSON.stringify(deep));
    expect(problemsOf(() => parseEvent(single)).map((p) => p.message)).toContain(TOO_DEEP);
  });
});

describe("validation without zod for plainly valid events", () => {
  /** The event, or the problems, that zod's schema alone gives (what validateEvent did for every event). */
  const byZod = (input: unknown) => {
    const parsed = eventInputSchema.safeParse(input);
    if (!parsed.success) return { problems: zodProblems(parsed.error.issues, { prefix: "" }) };
    const { level, message, projectId, timestamp, fingerprint, release, environment, tags, user } = parsed.data;
    return {
      event: {
        level,
        message,
        projectId,
        context: (input as { context?: Record<string, unknown> }).context ?? null,
        timestamp: timestamp === undefined ? null : new Date(timestamp),
        fingerprint: fingerprint ?? null,
        release: release ?? null,
        environment: environment ?? null,
        tags: tags && Object.keys(tags).length > 0 ? tags : null,
        user: user && Object.keys(user).length > 0 ? user : null,
      },
    };
  };
  /** validateEvent's answer, with key order made visible. */
  const answer = (result: { event?: unknown; problems: unknown[] }) =>
    result.event ? { event: result.event, order: JSON.stringify(result.event), protos: protosOf(result.event as Record<string, unknown>) } : { problems: result.problems };
  const protosOf = (event: Record<string, unknown>) => ["tags", "user"].map((k) => (event[k] ? Object.getPrototypeOf(event[k]) === Object.prototype : null));

  // Mostly valid values (so that both ways build events), now and then anything else.
  const text = (max: number) =>
    fc.oneof(
      { weight: 8, arbitrary: fc.string({ minLength: 1, maxLength: max }) },
      { weight: 1, arbitrary: fc.string({ maxLength: max + 2 }) },
      { weight: 1, arbitrary: fc.constantFrom("", "__proto__", "constructor", "toString", "x".repeat(max), "x".repeat(max + 1)) },
    );
  const anyValue = fc.oneof(fc.jsonValue({ maxDepth: 2 }), fc.constant(undefined));
  const field = <T>(arb: fc.Arbitrary<T>) => fc.oneof({ weight: 12, arbitrary: arb }, { weight: 1, arbitrary: anyValue });
  const ABSENT = Symbol("absent");
  const optional = <T>(arb: fc.Arbitrary<T>) => fc.option(field(arb), { nil: ABSENT, freq: 3 });
  const record = (keys: fc.Arbitrary<string>, values: fc.Arbitrary<unknown>, maxKeys: number) =>
    fc.oneof(
      { weight: 8, arbitrary: fc.dictionary(keys, values, { maxKeys }) },
      // An own "__proto__" key, as JSON.parse makes one.
      { weight: 1, arbitrary: fc.dictionary(keys, values, { maxKeys }).map((d) => Object.assign(JSON.parse('{"__proto__": "x"}') as object, d)) },
    );
  const eventArb = fc
    .record({
      level: field(fc.constantFrom(...EVENT_LEVELS, "warning")),
      message: field(text(20)),
      projectId: field(text(MAX_ID_CHARS)),
      context: optional(fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 3 }), { maxKeys: 4 })),
      timestamp: optional(
        fc.oneof(
          fc.date({ min: new Date(-62_200_000_000_000), max: new Date(253_500_000_000_000), noInvalidDate: true }).map((d) => d.toISOString()),
          fc.constantFrom("2026-01-02T03:04:05+01:00", "2026-01-02T03:04:05", "2026-01-02", "2026-13-02T03:04:05Z", "0000-01-01T00:00:00Z", "+010000-01-01T00:00:00Z"),
          fc.oneof(fc.double({ min: -10, max: 3e14, noNaN: true }), fc.constantFrom(0, 999_999_999_999, 1e12, 253_402_300_799, 253_402_300_800)),
        ),
      ),
      fingerprint: optional(fc.array(text(MAX_FINGERPRINT_PART_CHARS), { maxLength: MAX_FINGERPRINT_PARTS + 1 })),
      release: optional(text(MAX_RELEASE_CHARS)),
      environment: optional(text(MAX_ENVIRONMENT_CHARS)),
      tags: optional(record(text(MAX_TAG_KEY_CHARS), fc.oneof({ weight: 8, arbitrary: text(MAX_TAG_VALUE_CHARS) }, { weight: 1, arbitrary: fc.integer() }), 6)),
      user: optional(
        record(
          fc.constantFrom("id", "email", "username", "ip_address", "id", "email", "name"),
          fc.oneof({ weight: 8, arbitrary: text(MAX_USER_FIELD_CHARS) }, { weight: 1, arbitrary: fc.constant(undefined) }),
          4,
        ),
      ),
      extra: fc.oneof({ weight: 19, arbitrary: fc.constant(ABSENT) }, { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 1 }) }),
    })
    .map((fields) => Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== ABSENT)));

  it("gives the event, or the problems, that zod gives (property)", () => {
    let accepted = 0;
    fc.assert(
      fc.property(eventArb, (input) => {
        const expected = byZod(input);
        if (expected.event) accepted++;
        expect(answer(validateEvent(input, "", { textChecked: true }))).toEqual(expected.event ? answer({ event: expected.event, problems: [] }) : { problems: expected.problems });
      }),
      { numRuns: 3000 },
    );
    // Both answers were compared often enough.
    expect(accepted).toBeGreaterThan(200);
  });

  it("gives zod's answer for long messages, fifty-one tags, arrays and other shapes", () => {
    const inputs: unknown[] = [
      null,
      [],
      "event",
      { ...valid, message: "é".repeat(MAX_MESSAGE_CHARS + 1) },
      { ...valid, message: "😀".repeat(MAX_MESSAGE_CHARS / 2 + 1) },
      { ...valid, tags: Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, "v"])) },
      { ...valid, tags: [] },
      { ...valid, user: [] },
      { ...valid, context: [] },
      { ...valid, context: null },
      { ...valid, fingerprint: [] },
      { ...valid, timestamp: Infinity },
      { ...valid, timestamp: null },
      Object.assign(Object.create(null), valid),
    ];
    for (const input of inputs) {
      const expected = byZod(input);
      expect(answer(validateEvent(input))).toEqual(expected.event ? answer({ event: expected.event, problems: [] }) : { problems: expected.problems });
    }
  });
});
