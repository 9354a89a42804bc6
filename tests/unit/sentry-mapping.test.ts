import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { AppError } from "@/lib/http/errors";
import { parseEnvelope } from "@/lib/sentry/envelope";
import { envelopeToEvents } from "@/lib/sentry/items";
import { parseSdkJson } from "@/lib/sentry/json";
import { mapSentryEvent } from "@/lib/sentry/map-event";
import { mapSentryLogs } from "@/lib/sentry/map-log";
import { eventTagPairs } from "@/lib/events/event-tags";
import { expectStorable } from "@/tests/fixtures/sentry/expect-storable";

const ctx = { projectId: "project-1", clientAddress: "198.51.100.7" };
const map = (payload: Record<string, unknown>, extra: Partial<Parameters<typeof mapSentryEvent>[1]> = {}) => {
  const mapped = mapSentryEvent(structuredClone(payload), { ...ctx, ...extra });
  expectStorable(mapped);
  return mapped;
};
const event = (payload: Record<string, unknown>) => map(payload).event;
const context = (payload: Record<string, unknown>) => event(payload).context as Record<string, any>;

describe("level", () => {
  it.each([
    ["fatal", "error"],
    ["FATAL", "error"],
    ["error", "error"],
    ["warning", "warn"],
    ["warn", "warn"],
    ["info", "info"],
    ["debug", "info"],
    ["log", "info"],
    ["trace", "info"],
    ["whatever", "info"],
  ])("%s is %s, the original kept", (sent, level) => {
    const mapped = event({ level: sent, message: "m" });
    expect(mapped.level).toBe(level);
    expect((mapped.context as any).sentry.level).toBe(sent);
  });

  it("no level is an error, as in Sentry", () => {
    expect(event({ message: "m" }).level).toBe("error");
    expect(event({ message: "m", level: 3 }).level).toBe("error");
  });
});

describe("message", () => {
  const exception = (...values: unknown[]) => ({ exception: { values } });

  it("is the outermost exception's Type: value (the last of exception.values)", () => {
    expect(event(exception({ type: "KeyError", value: "total" }, { type: "InvoiceError", value: "Invoice 9 has no total" })).message).toBe("InvoiceError: Invoice 9 has no total");
    expect(event(exception({ type: "Panic" })).message).toBe("Panic");
    expect(event(exception({ value: "synthetic message" })).message).toBe("synthetic message");
    expect(event({ exception: [{ type: "Old", value: "bare array" }] }).message).toBe("Old: bare array");
    expect(event(exception({ type: "Code", value: 404 })).message).toBe("Code: 404");
  });

  it("then logentry.formatted, logentry.message with its params, message (string or object), then <no message>", () => {
    expect(event({ ...exception({ mechanism: {} }), logentry: { formatted: "formatted text", message: "template %s" } }).message).toBe("formatted text");
    expect(event({ logentry: { message: "User %s paid %d%% of %s", params: ["ada", 50, { total: 3 }] } }).message).toBe('User ada paid 50% of {"total":3}');
    expect(event({ logentry: { message: "Order {} failed after {} tries", params: ["ord_1", 3] } }).message).toBe("Order ord_1 failed after 3 tries");
    expect(event({ logentry: { message: "Order %(id)s for %(who)s", params: { id: "ord_2", who: "bob" } } }).message).toBe("Order ord_2 for bob");
    expect(event({ logentry: { message: "Too few %s %s", params: ["one"] } }).message).toBe("Too few one %s");
    expect(event({ message: "  plain message  " }).message).toBe("plain message");
    expect(event({ message: { formatted: "object formatted" } }).message).toBe("object formatted");
    expect(event({ message: { message: "object %s", params: ["template"] } }).message).toBe("object template");
    expect(event({ message: "", exception: { values: [] } }).message).toBe("<no message>");
    expect(event({}).message).toBe("<no message>");
  });

  it("a message that is not the event's message is kept as logentry", () => {
    const c = context({ ...exception({ type: "E", value: "v" }), message: "also this" });
    expect(c.logentry).toEqual({ formatted: "also this" });
    expect(context({ logentry: { message: "a %s", params: ["b"] } }).logentry).toEqual({ message: "a %s", params: ["b"] });
  });

  it("past 10,000 characters it is truncated, and the event says so", () => {
    const long = "é".repeat(12_000);
    const mapped = event({ message: long });
    expect(Array.from(mapped.message)).toHaveLength(10_000);
    expect(mapped.message.endsWith("…")).toBe(true);
    expect((mapped.context as any)._telltale.trimmed).toEqual(["message: truncated from 12000 to 10000 characters"]);
    // A surrogate pair is never split.
    expect(Array.from(event({ message: "😀".repeat(10_001) }).message).slice(0, -1).every((c) => c === "😀")).toBe(true);
  });
});

describe("timestamp", () => {
  it.each([
    [1795774290.2118754, "2026-11-27T10:11:30.211Z"],
    ["2026-11-27T10:11:47Z", "2026-11-27T10:11:47.000Z"],
    ["2026-11-27T10:11:47.123456", "2026-11-27T10:11:47.123Z"], // no offset: UTC
    ["2026-11-27T12:11:47+02:00", "2026-11-27T10:11:47.000Z"],
    [1795774290211, "2026-11-27T10:11:30.211Z"], // milliseconds, from 10^12 up
    ["1795774290.5", "2026-11-27T10:11:30.500Z"],
  ])("%s", (sent, iso) => {
    expect(event({ timestamp: sent }).timestamp?.toISOString()).toBe(iso);
  });

  it.each([[null], ["yesterday"], [-5], [1e20], ["10000-01-01T00:00:00Z"], [{}], [true], ["2026-13-45T99:99:99Z"]])("%s is no time (the server's is used)", (sent) => {
    expect(event({ timestamp: sent }).timestamp).toBeNull();
  });
});

describe("context", () => {
  it("keeps the listed fields as sent and leaves out the rest", () => {
    const payload = {
      message: "m",
      contexts: { os: { name: "Linux" } },
      extra: { a: 1 },
      sdk: { name: "sentry.python", version: "2.0.0" },
      server_name: "web-1",
      transaction: "/checkout",
      platform: "python",
      logger: "app.payments",
      dist: "42",
      modules: { django: "5.0" },
      debug_meta: { images: [] },
      spans: [],
      _meta: {},
    };
    const c = context(payload);
    expect(Object.keys(c).sort()).toEqual(["contexts", "dist", "extra", "logger", "platform", "sdk", "sentry", "server_name", "transaction"]);
  });

  it("breadcrumbs: {values} or a bare array, the last 100, objects only", () => {
    expect(context({ breadcrumbs: [{ message: "a" }, "junk", { message: "b" }] }).breadcrumbs).toEqual({ values: [{ message: "a" }, { message: "b" }] });
    const many = Array.from({ length: 512 }, (_, i) => ({ message: `crumb ${i}` }));
    const c = context({ breadcrumbs: { values: many } });
    expect(c.breadcrumbs.values).toHaveLength(100);
    expect(c.breadcrumbs.values[0].message).toBe("crumb 412");
    expect(c._telltale.trimmed).toEqual(["breadcrumbs: 412 of 512 dropped (the last 100 are kept)"]);
  });

  it("request: no Cookie, Authorization or Proxy-Authorization header, no cookies; the rest (query string too) as sent", () => {
    const request = {
      url: "https://shop.example.com/cart",
      method: "POST",
      query_string: "page=2",
      data: { sku: "A1" },
      cookies: { session: "secret" },
      headers: { Cookie: "session=secret", AUTHORIZATION: "Bearer secret", "Proxy-Authorization": "Basic x", "User-Agent": "curl", "X-Sentry-Auth": "Sentry sentry_key=k" },
      env: { REMOTE_ADDR: "10.0.0.1" },
    };
    const c = context({ message: "m", request });
    expect(c.request).toEqual({ url: request.url, method: "POST", query_string: "page=2", data: { sku: "A1" }, headers: { "User-Agent": "curl" }, env: { REMOTE_ADDR: "10.0.0.1" } });
    const pairs = context({ message: "m", request: { headers: [["cookie", "a=b"], ["Accept", "*/*"], ["authorization", "x"]] } });
    expect(pairs.request.headers).toEqual([["Accept", "*/*"]]);
    expect(JSON.stringify(c)).not.toContain("secret");
  });

  it("exception values and frames that are not objects are left out; frames stay as sent", () => {
    const frame = { function: "charge", module: "payments", filename: "pay.py", abs_path: "/app/pay.py", lineno: 10, colno: 2, in_app: true, pre_context: ["a"], context_line: "b", post_context: ["c"], vars: { x: 1 } };
    const c = context({ exception: { values: [7, { type: "E", value: "v", stacktrace: { frames: [frame, null, "x"] } }, { type: "F", stacktrace: "nope" }] } });
    expect(c.exception.values).toEqual([{ type: "E", value: "v", stacktrace: { frames: [frame] } }, { type: "F" }]);
  });
});

describe("browser and os from the request's User-Agent (as Sentry derives them)", () => {
  const CHROME_LINUX = "Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/156.0.8078.73 Safari/537.36";
  const FIREFOX_WINDOWS = "Mozilla/5.0 (Windows NT 10.0; Win64; x64; rv:133.0) Gecko/20100101 Firefox/133.0";

  it("adds them where the SDK sent none, as @sentry/browser sends the page's User-Agent, and the tag breakdowns count them", () => {
    const mapped = event({ request: { url: "https://shop.example/cart", headers: { "User-Agent": CHROME_LINUX } }, exception: { values: [{ type: "TypeError", value: "x" }] } });
    const contexts = (mapped.context as Record<string, any>).contexts;
    expect(contexts.browser).toEqual({ type: "browser", name: "Chrome", version: "156.0" });
    expect(contexts.os).toEqual({ type: "os", name: "Linux" });
    const pairs = new Map(eventTagPairs({ ...mapped, context: mapped.context }) ?? []);
    expect(pairs.get("browser")).toBe("Chrome 156.0");
    expect(pairs.get("os")).toBe("Linux");
  });

  it("keeps what the SDK sent (a server's own os), reads [name, value] headers, and adds nothing for a User-Agent it does not know", () => {
    const server = context({ request: { headers: [["user-agent", FIREFOX_WINDOWS]] }, contexts: { os: { name: "Linux", version: "6.1" }, runtime: { name: "node" } } });
    expect(server.contexts).toEqual({ os: { name: "Linux", version: "6.1" }, runtime: { name: "node" }, browser: { type: "browser", name: "Firefox", version: "133.0" } });
    const both = { browser: { name: "Edge", version: "120" }, os: { name: "Windows", version: "11" } };
    expect(context({ request: { headers: { "user-agent": CHROME_LINUX } }, contexts: both }).contexts).toEqual(both);
    expect(context({ request: { headers: { "User-Agent": "curl/8.1.2" } } }).contexts).toBeUndefined();
    expect(context({ request: { headers: { "User-Agent": FIREFOX_WINDOWS } } }).contexts.os).toEqual({ type: "os", name: "Windows", version: "10" });
  });
});

describe("release, environment, tags, user, fingerprint", () => {
  it("release and environment: text, numbers written out, cut to 200 and 64 characters", () => {
    expect(event({ release: 12, environment: "prod" })).toMatchObject({ release: "12", environment: "prod" });
    expect(event({ release: "", environment: "  " })).toMatchObject({ release: null, environment: null });
    const long = map({ release: "r".repeat(300), environment: "e".repeat(100) }).event;
    expect([Array.from(long.release!).length, Array.from(long.environment!).length]).toEqual([200, 64]);
    expect((long.context as any)._telltale.trimmed).toEqual(["release: truncated to 200 characters", "environment: truncated to 64 characters"]);
  });

  it("tags: an object or [key, value] pairs, values written as text, what does not fit dropped or cut, and said", () => {
    expect(event({ tags: { a: "x", n: 3, b: true, f: 1.5 } }).tags).toEqual({ a: "x", n: "3", b: "true", f: "1.5" });
    expect(event({ tags: [["a", "x"], ["n", 3], ["a", "second"], "junk", ["only-one"]] }).tags).toEqual({ a: "x", n: "3" });
    const mapped = event({
      tags: { ok: "v", ["k".repeat(33)]: "long key", empty: "", nothing: null, obj: { a: 1 }, long: "v".repeat(250), "": "no key" },
    });
    expect(mapped.tags).toEqual({ ok: "v", long: `${"v".repeat(199)}…` });
    const c = mapped.context as any;
    expect(c.sentry.dropped_tags).toEqual({ ["k".repeat(33)]: "long key", empty: "", nothing: null, obj: { a: 1 } });
    expect(c._telltale.trimmed).toEqual([
      "tags: 2 dropped (key empty or longer than 32 characters)",
      "tags: 3 dropped (value empty, null or not text)",
      "tags: 1 value truncated to 200 characters",
    ]);
    const sixty = Object.fromEntries(Array.from({ length: 60 }, (_, i) => [`t${i}`, `v${i}`]));
    const many = event({ tags: sixty });
    expect(Object.keys(many.tags!)).toHaveLength(50);
    expect((many.context as any)._telltale.trimmed).toEqual(["tags: 10 dropped (more than 50)"]);
    expect(event({ tags: {} }).tags).toBeNull();
  });

  it("user: id written as text, {{auto}} is the client's address, other fields kept in the context", () => {
    const mapped = event({ user: { id: 42, email: "ada@example.com", username: "ada", ip_address: "{{auto}}", name: "Ada", geo: { city: "London" } } });
    expect(mapped.user).toEqual({ id: "42", email: "ada@example.com", username: "ada", ip_address: "198.51.100.7" });
    expect((mapped.context as any).sentry.user).toEqual({ name: "Ada", geo: { city: "London" } });
    expect(mapSentryEvent({ user: { ip_address: "{{auto}}" } }, { projectId: "p", clientAddress: "unknown" }).event.user).toBeNull();
    expect(event({ user: { ip_address: "2001:db8::1" } }).user).toEqual({ ip_address: "2001:db8::1" });
    expect(event({ user: "ada" }).user).toBeNull();
  });

  it("fingerprint: passed through ({{ default }} too), at most 8 parts of 200 characters, still distinct", () => {
    expect(event({ fingerprint: ["{{ default }}", "checkout", 42] }).fingerprint).toEqual(["{{ default }}", "checkout", "42"]);
    expect(event({ fingerprint: [] }).fingerprint).toBeNull();
    expect(event({ fingerprint: ["", null] }).fingerprint).toBeNull();
    expect(event({ fingerprint: "not a list" }).fingerprint).toBeNull();
    const ten = event({ fingerprint: Array.from({ length: 10 }, (_, i) => `p${i}`) }).fingerprint!;
    const tenOther = event({ fingerprint: [...Array.from({ length: 9 }, (_, i) => `p${i}`), "other"] }).fingerprint!;
    expect(ten).toHaveLength(8);
    expect(ten.slice(0, 7)).toEqual(["p0", "p1", "p2", "p3", "p4", "p5", "p6"]);
    expect(ten[7]).not.toBe(tenOther[7]);
    const long = event({ fingerprint: ["a".repeat(300)] }).fingerprint!;
    const longOther = event({ fingerprint: ["a".repeat(299) + "b"] }).fingerprint!;
    expect(long[0]!.length).toBeLessThanOrEqual(200);
    expect(long[0]).not.toBe(longOther[0]);
  });
});

describe("event ids", () => {
  it("the payload's, else the envelope's, else a new one", () => {
    expect(map({ event_id: "9EC79C33-EC99-42AB-8353-589FCB2E04DC" }).eventId).toBe("9ec79c33ec9942ab8353589fcb2e04dc");
    expect(map({}, { fallbackEventId: "a".repeat(32) }).eventId).toBe("a".repeat(32));
    const fresh = map({});
    expect(fresh.eventId).toMatch(/^[0-9a-f]{32}$/);
    expect((fresh.event.context as any).sentry.event_id).toBe(fresh.eventId);
  });

  it("a payload that is not an object, or an event_id that is not one, is a 400", () => {
    for (const payload of [null, [], "text", 42]) {
      expect(() => mapSentryEvent(payload, ctx)).toThrow(AppError);
    }
    expect(() => mapSentryEvent({ event_id: "nope" }, { ...ctx, where: "Item 1 (event)" })).toThrow("Item 1 (event) has an event_id that is not 32 hexadecimal digits (or a UUID).");
  });
});

describe("logs", () => {
  it("levels by name, else by severity number; body as the message; attributes as values", () => {
    const logs = mapSentryLogs(
      {
        items: [
          { level: "trace", body: "t" },
          { level: "fatal", body: "f" },
          { severity_number: 14, body: "by number" },
          { severity_number: 21, body: "by number too" },
          { level: "info", body: { not: "text" } },
          { level: "info", body: "   " },
          { level: "info", body: "attrs", attributes: { plain: 5, big: { value: "9007199254740993", type: "integer" }, "user.name": { value: "ada", type: "string" } } },
        ],
      },
      ctx,
    );
    logs.forEach(expectStorable);
    expect(logs.map((l) => [l.event.level, l.event.message])).toEqual([
      ["info", "t"],
      ["error", "f"],
      ["warn", "by number"],
      ["error", "by number too"],
      ["info", '{"not":"text"}'],
      ["info", "<no message>"],
      ["info", "attrs"],
    ]);
    expect((logs[6]!.event.context as any).attributes).toEqual({ plain: 5, big: "9007199254740993", "user.name": "ada" });
    expect(logs[6]!.event.user).toEqual({ username: "ada" });
  });
});

describe("payloads whose text vouches for them", () => {
  /** The event an envelope of `text` maps to (vouched for or not, by the route's own reading), and the same payload mapped with every value checked. */
  const both = (text: string) => {
    const envelope = parseEnvelope(Buffer.from(`{"event_id":"${"a".repeat(32)}"}\n{"type":"event"}\n${text}\n`));
    const vouched = envelopeToEvents(envelope, ctx).events[0]!;
    const walked = mapSentryEvent(parseSdkJson(new TextDecoder().decode(Buffer.from(text))), { ...ctx, fallbackEventId: "a".repeat(32) });
    return { vouched, walked };
  };
  const nest = (levels: number, leaf: unknown): unknown => (levels === 0 ? leaf : { a: nest(levels - 1, leaf) });

  it("map to what checking every value gives, at every depth around the limit and with any text (property)", () => {
    const text = fc.oneof(fc.string(), fc.constantFrom("x\u0000y", "\ud800", "a\udfffb", "é", "\u2028", "{{auto}}"));
    const payload = fc.record(
      {
        message: text,
        exception: fc.oneof(
          fc.constant([{ type: "E", value: "v", stacktrace: { frames: [{ function: "f" }] } }]),
          fc.constant({ values: [{ type: "E", value: "v" }] }),
        ),
        user: fc.dictionary(text, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }),
        tags: fc.oneof(fc.dictionary(text, fc.jsonValue({ maxDepth: 2 }), { maxKeys: 3 }), fc.array(fc.tuple(text, fc.jsonValue({ maxDepth: 2 })), { maxLength: 3 })),
        extra: fc.dictionary(text, fc.jsonValue({ maxDepth: 3 }), { maxKeys: 3 }),
        contexts: fc.integer({ min: 25, max: 34 }).chain((levels) => fc.jsonValue({ maxDepth: 1 }).map((leaf) => nest(levels, leaf))),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(payload, fc.boolean(), (p, deepUser) => {
        if (deepUser) p.user = { deep: nest(29, { x: 1 }) } as never;
        const { vouched, walked } = both(JSON.stringify(p));
        expect(vouched.event).toEqual(walked.event);
        expectStorable(vouched);
      }),
      { numRuns: 500 },
    );
  });

  it("are still cut past 32 levels: a bare array of exceptions and the user's other fields go one level deeper", () => {
    for (const levels of [29, 30, 31, 32]) {
      const exceptions = JSON.stringify({ exception: [nest(levels - 2, "x")] });
      const user = JSON.stringify({ user: { other: nest(levels - 3, "x") } });
      for (const text of [exceptions, user]) {
        const { vouched, walked } = both(text);
        expect(vouched.event).toEqual(walked.event);
        expectStorable(vouched);
      }
    }
  });
});
