import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { parseEventBody } from "@/lib/ingest/ingest";
import { MAX_EVENT_BODY_DEPTH } from "@/lib/events/schema";
import { AppError } from "@/lib/http/errors";
import { DUPLICATE_KEY_MESSAGE, isExactNumber, NEGATIVE_ZERO_MESSAGE, NUMBER_MESSAGE, parseStrictJson, parseStrictJsonFully } from "@/lib/http/strict-json";
import { parseSdkJson } from "@/lib/sentry/json";

const strict = (text: string, maxDepth = 64) => parseStrictJson(text, { maxDepth });

/** JSON number tokens: a sign, up to 21 integer digits, up to 20 decimals, an exponent up to ±400. */
const digits = (min: number, max: number) => fc.array(fc.integer({ min: 0, max: 9 }), { minLength: min, maxLength: max }).map((d) => d.join(""));
const numberToken = fc
  .tuple(fc.boolean(), fc.oneof(fc.constant("0"), fc.tuple(fc.integer({ min: 1, max: 9 }), digits(0, 20)).map(([a, b]) => `${a}${b}`)), fc.option(digits(1, 20)), fc.option(fc.integer({ min: -400, max: 400 })))
  .map(([negative, int, frac, exp]) => `${negative ? "-" : ""}${int}${frac === null ? "" : `.${frac}`}${exp === null ? "" : `e${exp}`}`);

describe("parseSdkJson", () => {
  it("keeps a number a double holds (below 2^53 when integral) and gives the rest as its exact digits (property)", () => {
    fc.assert(
      fc.property(numberToken, (raw) => {
        const n = Number(raw);
        const storable = isExactNumber(raw) && (!Number.isInteger(n) || Number.isSafeInteger(n));
        expect((parseSdkJson(`{"t":1795786430.036,"n":[${raw}]}`) as { n: unknown[] }).n[0], raw).toBe(storable ? n : raw);
      }),
      { numRuns: 3000 },
    );
  });
});

describe("isExactNumber", () => {
  it("accepts every number a double holds as written, in any notation", () => {
    for (const raw of ["0", "42", "-17", "1.5", "1.50", "0.1", "0.30000000000000004", "1e300", "1E-7", "2.5e-3", "9007199254740991", "-9007199254740991", "123.456", "1e20"]) {
      expect(isExactNumber(raw), raw).toBe(true);
    }
  });

  it("refuses what parsing would change: overflow, underflow, integers past 2^53, more digits than a double keeps", () => {
    for (const raw of ["1e400", "-1e400", "1e-400", "12345678901234567890", "9007199254740993", "18014398509481984", "0.3000000000000000444", "123.4567890123456789"]) {
      expect(isExactNumber(raw), raw).toBe(false);
    }
  });
});

describe("negative zero (stored JSON writes it as 0)", () => {
  it("is refused with its path by the native API's parser, in every spelling; 0 and -0.5 pass", () => {
    const result = strict('{"context":{"a":-0,"b":[0,-0.0,-0e3,-0.5],"c":0}}');
    expect(result.problems).toEqual([
      { path: "context.a", message: NEGATIVE_ZERO_MESSAGE },
      { path: "context.b.1", message: NEGATIVE_ZERO_MESSAGE },
      { path: "context.b.2", message: NEGATIVE_ZERO_MESSAGE },
    ]);
    for (const raw of ["-0", "-0.0", "-0E-2"]) expect(isExactNumber(raw), raw).toBe(false);
  });

  it("comes from a Sentry SDK as the string of its digits, not 0", () => {
    expect(parseSdkJson('{"extra":{"z":-0.0,"n":-0,"ok":0,"neg":-0.25}}')).toEqual({ extra: { z: "-0.0", n: "-0", ok: 0, neg: -0.25 } });
  });
});

describe("parseStrictJson", () => {
  it("parses ordinary JSON as JSON.parse does", () => {
    const text = '{"a":[1,2,{"b":"x,\\"y\\"}"}],"c":null,"d":true,"e":-1.25}';
    expect(strict(text)).toEqual({ value: JSON.parse(text), problems: [] });
  });

  it("reports duplicate keys (escaped spellings too) and inexact numbers with their paths", () => {
    const { problems } = strict('{"context":{"a":1,"\\u0061":2,"n":[1,1e400,{"big":12345678901234567890}]},"level":"x","level":"y"}');
    expect(problems).toEqual([
      { path: "context.a", message: expect.stringMatching(/twice/) },
      { path: "context.n.1", message: NUMBER_MESSAGE },
      { path: "context.n.2.big", message: NUMBER_MESSAGE },
      { path: "level", message: expect.stringMatching(/twice/) },
    ]);
    // Escaped keys are found wherever they are among unescaped strings (the
    // next backslash is tracked across strings, not searched from each one).
    const many = Array.from({ length: 50 }, (_, i) => `"k${i}":"v${i}"`).join(",");
    expect(strict(`{${many},"b\\u0061":1,"x":"y\\\\z","ba":2,"q":"w"}`).problems).toEqual([{ path: "ba", message: expect.stringMatching(/twice/) }]);
    expect(strict(`{"a\\"":1,${many},"a\\u0022":2}`).problems).toEqual([{ path: 'a"', message: expect.stringMatching(/twice/) }]);
    // The same key in sibling objects is fine.
    expect(strict('[{"a":1},{"a":2}]').problems).toEqual([]);
  });

  it("reports a number exactly when isExactNumber refuses it, whatever its digits, point and exponent (property)", () => {
    fc.assert(
      fc.property(numberToken, (raw) => {
        expect(strict(`{"n":[${raw}]}`).problems.length > 0, raw).toBe(!isExactNumber(raw));
      }),
      { numRuns: 3000 },
    );
  });

  it("reports each repeat of a key in objects of any size, small or past the switch to a set (property)", () => {
    fc.assert(
      fc.property(fc.array(fc.integer({ min: 0, max: 30 }), { maxLength: 60 }), (ids) => {
        const keys = ids.map((id) => `k${id}`);
        const text = `{"o":{${keys.map((k, i) => `"${k}":${i}`).join(",")}}}`;
        const expected = keys.filter((k, i) => keys.indexOf(k) < i).map((k) => ({ path: `o.${k}`, message: expect.stringMatching(/twice/) }));
        expect(strict(text).problems).toEqual(expected);
      }),
      { numRuns: 300 },
    );
  });

  it("stops at nesting past the limit without building the value (JSON.parse would recurse without bound)", () => {
    const deep = "[".repeat(100_000) + "]".repeat(100_000);
    const result = strict(deep, 33);
    expect(result.value).toBeUndefined();
    expect(result.problems).toHaveLength(1);
    expect(strict("[".repeat(33) + "]".repeat(33), 33).problems).toEqual([]);
  });

  it("reads a string after an empty object in an array as a value (it was refused as invalid JSON)", () => {
    for (const text of ['{"a":[{},"x"]}', '[[{}],"x",{"k":1}]', '{"a":[{}, "x"],"a2":{"b":{}},"c":"d"}']) {
      expect(parseStrictJson(text, { maxDepth: 33 })).toEqual({ value: JSON.parse(text), problems: [] });
    }
    expect(parseStrictJson('{"a":[{},"x"],"a":1}', { maxDepth: 33 }).problems).toEqual([{ path: "a", message: DUPLICATE_KEY_MESSAGE }]);
  });

  it("throws SyntaxError for invalid JSON (the route answers invalid_json)", () => {
    for (const bad of ['{"a":', '{"a" 1}', '"unterminated', "{'a':1}", "[1,]"]) expect(() => strict(bad), bad).toThrow(SyntaxError);
  });
});

describe("the counting pass", () => {
  /** The answer, or the SyntaxError's message. */
  const outcome = (fn: () => unknown) => {
    try {
      return { result: fn() };
    } catch (error) {
      return { thrown: error instanceof SyntaxError ? error.message : error };
    }
  };
  // JSON texts with repeated keys, odd numbers, escapes, nesting near the limit, and text that is not JSON.
  const key = fc.constantFrom("a", "b", "\\u0061", "a\\\"", "__proto__", "", "0", "k,", 'k":');
  const scalar = fc.oneof(fc.constantFrom("1", "-0", "0.5", "1e400", "12345678901234567890", "1795786430.036", "0.30000000000000004", "-1.5e-7", "true", "null", '"x"', '"\\""', '":,{["'), numberToken);
  const json: fc.Arbitrary<string> = fc.letrec<{ value: string }>((tie) => ({
    value: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      scalar,
      fc.array(tie("value"), { maxLength: 4 }).map((items) => `[${items.join(",")}]`),
      fc.array(fc.tuple(key, tie("value")), { maxLength: 4 }).map((entries) => `{${entries.map(([k, v]) => `"${k}":${v}`).join(", ")}}`),
    ),
  })).value;
  const broken = fc.tuple(json, fc.nat(), fc.constantFrom("", "}", "]", ",", '"', "{", ":")).map(([text, at, insert]) => {
    const i = at % (text.length + 1);
    return text.slice(0, i) + insert + text.slice(i);
  });

  it("gives what the full pass gives, problems, values and errors alike (property)", () => {
    fc.assert(
      fc.property(fc.oneof(json, broken), fc.integer({ min: 1, max: 6 }), (text, maxDepth) => {
        expect(outcome(() => parseStrictJson(text, { maxDepth }))).toEqual(outcome(() => parseStrictJsonFully(text, { maxDepth })));
      }),
      { numRuns: 3000 },
    );
  });

  it("leaves a polluted prototype to the full pass", () => {
    (Object.prototype as Record<string, unknown>).polluted = 1;
    try {
      expect(strict('{"a":1,"a":2}').problems).toEqual([{ path: "a", message: DUPLICATE_KEY_MESSAGE }]);
      expect(strict('{"a":{"b":1},"c":2}').problems).toEqual([]);
    } finally {
      delete (Object.prototype as Record<string, unknown>).polluted;
    }
  });
});

describe("an event body read strictly", () => {
  const problemsOf = (text: string) => {
    try {
      parseEventBody(parseStrictJson(text, { maxDepth: MAX_EVENT_BODY_DEPTH }));
    } catch (error) {
      if (error instanceof AppError) return error.errors!;
      throw error;
    }
    return [];
  };

  it("lists strict problems together with the schema's, naming each path", () => {
    const problems = problemsOf('{"level":"fatal","message":"m","projectId":"p","context":{"amount":1e400,"id":12345678901234567890,"id":1}}');
    expect(problems.map((p) => p.path).sort()).toEqual(["context.amount", "context.id", "context.id", "level"]);
    expect(problems.find((p) => p.path === "context.amount")!.message).toMatch(/send it as a string/);
  });
});
