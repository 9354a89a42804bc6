import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { groupingKey } from "@/lib/grouping/key";
import { AppError } from "@/lib/http/errors";
import { parseEnvelope } from "@/lib/sentry/envelope";
import { envelopeToEvents, storeBodyToEvents, type SentryIngest } from "@/lib/sentry/items";
import { mapSentryEvent } from "@/lib/sentry/map-event";
import { MAX_EVENT_BYTES } from "@/lib/sentry/types";
import { expectStorable } from "@/tests/fixtures/sentry/expect-storable";

/**
 * A hostile corpus: each input has a defined outcome, a 400/413 AppError
 * or events the store accepts, never another exception. Bodies are given as
 * the bytes an SDK (or an attacker) would send.
 */

const ctx = { projectId: "project-1", clientAddress: "198.51.100.7" };
const store = (text: string | Buffer): SentryIngest => {
  const result = storeBodyToEvents(typeof text === "string" ? Buffer.from(text) : text, ctx);
  result.events.forEach(expectStorable);
  return result;
};
const one = (text: string | Buffer) => store(text).events[0]!.event;
const contextOf = (text: string | Buffer) => one(text).context as Record<string, any>;

describe("text the store refuses is repaired, not refused", () => {
  it("NUL characters, in values and keys, become U+FFFD", () => {
    const text = '{"message":"a\\u0000b","release":"r\\u0000","tags":{"k\\u0000":"v\\u0000"},"user":{"email":"x\\u0000@y"},"extra":{"s":"\\u0000","k\\u0000ey":1}}';
    const event = one(text);
    expect([event.message, event.release, event.tags, event.user?.email]).toEqual(["a\uFFFDb", "r\uFFFD", { "k\uFFFD": "v\uFFFD" }, "x\uFFFD@y"]);
    expect(event.context!.extra).toEqual({ s: "\uFFFD", "k\uFFFDey": 1 });
    expect((event.context as any)._telltale.trimmed).toEqual(["text: 2 strings of the context with NUL characters or lone surrogates repaired (U+FFFD)"]);
  });

  it("lone surrogates become U+FFFD; pairs stay", () => {
    const event = one('{"message":"\\ud800 and \\udfff and \\ud83d\\ude00","extra":{"\\udc00":"x\\ud800"},"environment":"\\ud800"}');
    expect(event.message).toBe("\uFFFD and \uFFFD and 😀");
    expect(event.context!.extra).toEqual({ "\uFFFD": "x\uFFFD" });
    expect(event.environment).toBe("\uFFFD");
  });

  it("a raw NUL byte is not JSON: a 400 in a payload or a header; in an attachment it is just a byte", () => {
    // In these literals \u0000 is the raw character, not the JSON escape.
    for (const text of ['{"message":"a\u0000b"}', '{"message":"x"}\u0000']) {
      expect(() => storeBodyToEvents(Buffer.from(text), ctx)).toThrow("The request body is not valid JSON.");
    }
    expect(() => parseEnvelope(Buffer.from('{"event_id":\u0000}\n'))).toThrow("its header is not valid JSON");
    const attachment = Buffer.concat([Buffer.from('{}\n{"type":"attachment","length":3}\n'), Buffer.from([0, 0, 0]), Buffer.from("\n")]);
    expect(envelopeToEvents(parseEnvelope(attachment), ctx).dropped).toEqual({ attachment: 1 });
  });

  it("invalid UTF-8 bytes become U+FFFD", () => {
    const body = Buffer.concat([Buffer.from('{"message":"caf'), Buffer.from([0xc3, 0x28, 0xff, 0xfe]), Buffer.from('","extra":{"b":"'), Buffer.from([0xed, 0xa0, 0x80]), Buffer.from('"}}')]);
    const event = one(body);
    expect(event.message).toMatch(/^caf\uFFFD\(\uFFFD\uFFFD$/);
    expect((event.context!.extra as any).b).toMatch(/^\uFFFD+$/);
  });

  it("numbers JSON would alter, and integers past 2^53 however written, are kept as their exact text", () => {
    const event = one(
      '{"message":"n","user":{"id":12345678901234567890},"tags":{"order":98765432109876543210},"extra":{"big":12345678901234567890,"neg":-9007199254740993,"huge":1e400,"tiny":1e-400,"precise":0.1000000000000000055511151231257827,"ok":1.5,"safe":9007199254740991,"exp":1e21}}',
    );
    expect(event.user).toEqual({ id: "12345678901234567890" });
    expect(event.tags).toEqual({ order: "98765432109876543210" });
    expect(event.context!.extra).toEqual({
      big: "12345678901234567890",
      neg: "-9007199254740993",
      huge: "1e400",
      tiny: "1e-400",
      precise: "0.1000000000000000055511151231257827",
      ok: 1.5,
      safe: 9007199254740991,
      exp: "1e21", // exact, but an integer past 2^53 all the same
    });
  });

  it("a key given twice keeps its last value, as JSON.parse does", () => {
    const event = one('{"message":"first","message":"second","extra":{"a":1,"a":2},"tags":{"t":"x","t":"y"}}');
    expect([event.message, event.context!.extra, event.tags]).toEqual(["second", { a: 2 }, { t: "y" }]);
  });

  it("__proto__ keys stay data, never a prototype", () => {
    const event = one('{"message":"p","extra":{"__proto__":{"polluted":true}},"tags":{"__proto__":"x"},"user":{"__proto__":{"id":"1"},"id":"2"},"request":{"headers":{"__proto__":"h"}}}');
    expect(Object.getPrototypeOf(event.context!.extra)).toBe(Object.prototype);
    expect(Object.hasOwn(event.context!.extra as object, "__proto__")).toBe(true);
    expect(event.tags).toEqual(JSON.parse('{"__proto__":"x"}'));
    expect(event.user).toEqual({ id: "2" });
    expect(({} as any).polluted).toBeUndefined();
    expect(JSON.stringify((event.context as any).request)).toBe('{"headers":{"__proto__":"h"}}');
  });
});

describe("nesting is cut at 32 levels", () => {
  it("10,000 levels of extra become [Array] at level 33", () => {
    const deep = "[".repeat(10_000) + "]".repeat(10_000);
    const context = contextOf(`{"message":"deep","extra":{"x":${deep}}}`);
    // context (1) > extra (2) > x (3) > ... the array at level 33 is cut.
    let node: any = context.extra.x;
    let depth = 3;
    while (Array.isArray(node)) {
      node = node[0];
      depth++;
    }
    expect([node, depth]).toEqual(["[Array]", 33]);
    expect(context._telltale.trimmed).toEqual(['nesting: 1 value deeper than 32 levels replaced by "[Object]" or "[Array]"']);
  });

  it("a million levels anywhere JSON.stringify would meet them (params, log bodies and attributes, dropped tags, user fields) is no stack overflow", () => {
    const deep = "[".repeat(1_000_000) + "]".repeat(1_000_000);
    const event = one(`{"logentry":{"message":"got %s","params":[${deep}]},"tags":{"t":${deep}},"user":{"id":"1","data":${deep}}}`);
    expect(event.message).toMatch(/^got \[\[\[/);
    expect(event.tags).toBeNull();
    const body = `{}\n{"type":"log"}\n{"items":[{"level":"info","body":${deep},"attributes":{"a":{"value":${deep},"type":"string"}}}]}\n`;
    const logs = envelopeToEvents(parseEnvelope(Buffer.from(body)), ctx).events;
    logs.forEach(expectStorable);
    expect(logs[0]!.event.message).toMatch(/^\[\[\[/);
  });

  it("deep objects inside frames (local variables) are cut the same way", () => {
    const vars = '{"a":'.repeat(100) + "1" + "}".repeat(100);
    const context = contextOf(`{"exception":{"values":[{"type":"E","value":"v","stacktrace":{"frames":[{"function":"f","vars":${vars}}]}}]}}`);
    expect(JSON.stringify(context.exception)).toContain('"[Object]"');
  });
});

describe("events past 1 MiB are trimmed: breadcrumbs, then middle frames, then extra, then text, and say so", () => {
  const pad = (n: number) => "x".repeat(n);

  it("breadcrumbs first, the oldest, only as many as needed", () => {
    const crumbs = Array.from({ length: 100 }, (_, i) => ({ message: `crumb ${i}`, data: { pad: pad(20_000) } }));
    const event = one(JSON.stringify({ message: "big", breadcrumbs: crumbs, extra: { keep: "me" } }));
    const context = event.context as any;
    const kept = context.breadcrumbs.values;
    expect(kept.length).toBeGreaterThan(30);
    expect(kept.length).toBeLessThan(60);
    expect(kept.at(-1).message).toBe("crumb 99");
    expect(context.extra).toEqual({ keep: "me" });
    expect(context._telltale.trimmed).toEqual([`breadcrumbs: ${100 - kept.length} of 100 dropped to fit ${MAX_EVENT_BYTES} bytes`]);
  });

  it("then frames in the middle of long stacks, the oldest and the newest the issue key reads kept, with Sentry's frames_omitted", () => {
    const frames = Array.from({ length: 5_000 }, (_, i) => ({ function: `f${i}`, filename: "app.js", lineno: i, context_line: pad(400) }));
    const context = contextOf(JSON.stringify({ exception: { values: [{ type: "RangeError", value: "Maximum call stack size exceeded", stacktrace: { frames } }] } }));
    const stack = context.exception.values[0].stacktrace;
    expect(stack.frames).toHaveLength(250);
    expect(stack.frames[0].function).toBe("f0");
    expect(stack.frames.at(-1).function).toBe("f4999");
    expect(stack.frames_omitted).toEqual([50, 4800]);
    expect(stack.frames[49].function).toBe("f49");
    expect(stack.frames[50].function).toBe("f4800");
    expect(context._telltale.trimmed).toEqual(["frames: 4750 dropped from the middle of 1 stack"]);
  });

  it("a large event keeps its frames and groups with the same error sent small (extra goes, not the stack of 9 frames)", () => {
    const frames = Array.from({ length: 9 }, (_, i) => ({ function: `step${i}`, filename: `step${i}.js`, abs_path: `/srv/app/step${i}.js`, lineno: i + 1, in_app: true }));
    const payload = (extra: Record<string, unknown>) => JSON.stringify({ platform: "node", exception: { values: [{ type: "TrimError", value: "boom", stacktrace: { frames } }] }, extra });
    const small = one(payload({ small: 1 }));
    const large = one(payload({ blob: pad(3_000_000), rows: "y" }));
    const largeContext = large.context as any;
    expect(largeContext.exception.values[0].stacktrace.frames.map((f: { function: string }) => f.function)).toEqual(frames.map((f) => f.function));
    expect(largeContext.extra).toEqual({ rows: "y" });
    expect(largeContext._telltale.trimmed).toEqual(["extra: 1 of 2 entries dropped"]);
    expect(groupingKey(large).hash).toBe(groupingKey(small).hash);
  });

  it("a very long stack cut for size keeps its issue key", () => {
    const frames = Array.from({ length: 3_000 }, (_, i) => ({ function: `f${i % 700}`, module: `app.m${i % 300}`, in_app: i % 3 === 0, context_line: pad(400) }));
    const payload = (extra: Record<string, unknown>) => JSON.stringify({ platform: "python", exception: { values: [{ type: "RecursionError", value: "maximum recursion depth exceeded", stacktrace: { frames } }] }, extra });
    const cut = one(payload({}));
    expect((cut.context as any).exception.values[0].stacktrace.frames).toHaveLength(250);
    const whole = { ...cut, context: JSON.parse(payload({})) };
    expect(groupingKey(cut).hash).toBe(groupingKey(whole).hash);
  });

  it("then extra, the largest entries first", () => {
    const extra = Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`k${i}`, pad(i === 7 ? 20 : 100_000)]));
    const context = contextOf(JSON.stringify({ message: "extra", extra, breadcrumbs: [{ message: "small" }] }));
    expect(context.extra.k7).toBe(pad(20));
    const left = Object.keys(context.extra).length;
    expect(left).toBeGreaterThan(5);
    expect(left).toBeLessThan(30);
    expect(context.breadcrumbs.values).toEqual([]);
    expect(context._telltale.trimmed).toEqual(["breadcrumbs: 1 of 1 dropped to fit 1048576 bytes", `extra: ${30 - left} of 30 entries dropped`]);
  });

  it("then long strings anywhere, then whole entries: the result always fits", () => {
    const context = contextOf(JSON.stringify({ message: "text", contexts: { big: { blob: pad(3_000_000) } }, transaction: "t" }));
    expect(context.contexts.big.blob).toMatch(/^x{1000}… \[2999000 characters cut\]$/);
    expect(context._telltale.trimmed).toEqual(["text: 1 string longer than 1000 characters truncated"]);
    const many = Array.from({ length: 30_000 }, (_, i) => ({ type: "E", value: `value ${i} ${pad(40)}` }));
    const event = one(JSON.stringify({ exception: { values: many }, message: "many" }));
    expect(event.message).toBe(`E: value 29999 ${pad(40)}`);
    expect((event.context as any).exception).toMatch(/^\[removed: \d+ bytes\]$/);
  });

  it("a 20 MiB event with everything too large fits, with a 10,000-character message", () => {
    const payload = {
      message: pad(50_000),
      breadcrumbs: Array.from({ length: 200 }, () => ({ message: pad(10_000) })),
      exception: { values: [{ type: "E", stacktrace: { frames: Array.from({ length: 2_000 }, () => ({ function: pad(2_000) })) } }] },
      extra: { a: pad(5_000_000), b: pad(5_000_000) },
      contexts: { c: pad(5_000_000) },
    };
    const event = one(JSON.stringify(payload));
    expect(event.message).toBe("E");
    const notes = (event.context as any)._telltale.trimmed as string[];
    expect(notes[0]).toBe("breadcrumbs: 100 of 200 dropped (the last 100 are kept)");
    expect(notes.some((n) => n.startsWith("frames:"))).toBe(true);
    expect(notes.some((n) => n.startsWith("extra:"))).toBe(true);
  });
});

describe("wrong types everywhere give an event, not an exception", () => {
  it.each([
    ['{"exception":"boom","breadcrumbs":5,"request":[],"tags":"x","user":[],"level":{},"timestamp":[],"fingerprint":{},"release":{},"environment":[1]}'],
    ['{"exception":{"values":{"0":{"type":"E"}}},"breadcrumbs":{"values":"x"},"logentry":7,"message":["a"]}'],
    ['{"exception":{"values":[{"type":{"nested":1},"value":[1,2],"stacktrace":{"frames":{}}}]},"request":{"headers":"h"},"contexts":"c","extra":[]}'],
    ['{"tags":[[1,2],[null,"x"],["k",null],[{},"v"]],"user":{"id":{"a":1},"email":true,"ip_address":7}}'],
  ])("%s", (text) => {
    const result = store(text);
    expect(result.events).toHaveLength(1);
  });
});

describe("properties: parsing and mapping never throw anything but an AppError", () => {
  const expectOnlyAppError = (run: () => SentryIngest | unknown) => {
    try {
      const result = run() as SentryIngest | undefined;
      result?.events?.forEach(expectStorable);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      expect([400, 413]).toContain(error.status);
    }
  };
  // Any UTF-16 unit, lone surrogates and NUL included.
  const anyText = fc.string({ unit: fc.integer({ min: 0, max: 0xffff }).map((n) => String.fromCharCode(n)), maxLength: 40 });
  const anyJson = fc.letrec((tie) => ({
    value: fc.oneof(
      { depthSize: "small" },
      anyText,
      fc.double(),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.array(tie("value"), { maxLength: 4 }),
      fc.dictionary(anyText, tie("value"), { maxKeys: 4 }),
    ),
  })).value;
  const sentryKeys = ["event_id", "level", "message", "logentry", "exception", "breadcrumbs", "request", "tags", "user", "release", "environment", "fingerprint", "timestamp", "extra", "contexts", "threads", "stacktrace", "sdk", "type"];
  const sentryish = fc.dictionary(fc.constantFrom(...sentryKeys), anyJson, { maxKeys: 10 });

  it("mapSentryEvent on any JSON value", () => {
    fc.assert(
      fc.property(fc.oneof(anyJson, sentryish), (payload) => {
        expectOnlyAppError(() => ({ events: [mapSentryEvent(payload, ctx)] }));
      }),
      { numRuns: 400 },
    );
  });

  it("store bodies of any text", () => {
    fc.assert(
      fc.property(fc.oneof(sentryish.map((p) => JSON.stringify(p)), anyText, fc.json()), (text) => {
        expectOnlyAppError(() => storeBodyToEvents(Buffer.from(text), ctx));
      }),
      { numRuns: 300 },
    );
  });

  it("envelopes of any bytes", () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => {
        expectOnlyAppError(() => envelopeToEvents(parseEnvelope(Buffer.from(bytes)), ctx));
      }),
      { numRuns: 300 },
    );
  });

  it("envelopes of plausible items, lengths right, wrong or absent", () => {
    const item = fc.record({
      type: fc.constantFrom("event", "log", "session", "attachment", "transaction", "whatever", ""),
      payload: fc.oneof(sentryish.map((p) => JSON.stringify(p)), fc.record({ items: fc.array(fc.dictionary(fc.constantFrom("level", "body", "timestamp", "attributes", "severity_number"), anyJson), { maxLength: 3 }) }).map((p) => JSON.stringify(p)), anyText),
      length: fc.oneof(fc.constant<"right" | "absent" | number>("right"), fc.constant<"right" | "absent" | number>("absent"), fc.integer({ min: -2, max: 400 })),
    });
    fc.assert(
      fc.property(fc.option(fc.constantFrom('{"event_id":"9ec79c33ec9942ab8353589fcb2e04dc"}', "{}", '{"event_id":"x"}', "[]")), fc.array(item, { maxLength: 5 }), fc.boolean(), (header, items, trailingNewline) => {
        let body = header ?? "{}";
        for (const { type, payload, length } of items) {
          const bytes = Buffer.byteLength(payload);
          const declared = length === "right" ? bytes : length === "absent" ? undefined : length;
          body += `\n${JSON.stringify({ type, ...(declared === undefined ? {} : { length: declared }) })}\n${payload}`;
        }
        if (trailingNewline) body += "\n";
        expectOnlyAppError(() => envelopeToEvents(parseEnvelope(Buffer.from(body)), ctx));
      }),
      { numRuns: 400 },
    );
  });
});
