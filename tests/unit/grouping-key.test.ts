import { createHash } from "node:crypto";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { GROUPING_RULES, groupingKey, issueGroupingKey, type GroupingInput } from "@/lib/grouping/key";
import * as F from "./grouping-fixtures";

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
const NUL = "\u0000";

/** A V8 stack: frames given newest first as [function, file, line]. */
function v8(header: string, frames: [fn: string, file: string, line: number][]): string {
  return [header, ...frames.map(([fn, file, line]) => `    at ${fn ? `${fn} (${file}:${line}:${(line * 7) % 80})` : `${file}:${line}:5`}`)].join("\n");
}

const error = (message: string, context: Record<string, unknown> | null, fingerprint?: string[]): GroupingInput => ({
  level: "error",
  message,
  context,
  fingerprint: fingerprint ?? null,
});

describe("groupingKey: the rules table", () => {
  it("names the rules in the order they are tried, each with its version", () => {
    expect(GROUPING_RULES.map((r) => `${r.name}@${r.version}`)).toEqual([
      "fingerprint@1",
      "fingerprint-variables@2",
      "in-app-frames@2",
      "all-frames@2",
      "message-template@1",
    ]);
  });
});

describe("groupingKey: events without a stack keep their version 1 key", () => {
  it("keys on level and template, as before: same hash as issueGroupingKey, no fallback", () => {
    const key = groupingKey({ level: "error", message: "User 42 not found", context: { userId: 42 } });
    expect(key).toEqual({
      hash: sha256(`v1${NUL}template${NUL}error${NUL}User <num> not found`),
      title: "User <num> not found",
      fallbackHash: null,
      previousHash: null,
      rule: "message-template",
    });
    expect(key.hash).toBe(issueGroupingKey({ level: "error", message: "User 42 not found" }).hash);
    expect(groupingKey({ level: "warn", message: "x", context: null }).rule).toBe("message-template");
  });

  it("lets a fingerprint without variables replace everything, stack included, with its version 1 key", () => {
    const withStack = groupingKey(error("boom", { stack: F.NODE_CART }, ["payments", "declined"]));
    expect(withStack).toEqual({ hash: sha256(`v1${NUL}fingerprint${NUL}payments${NUL}declined`), title: "boom", fallbackHash: null, previousHash: null, rule: "fingerprint" });
    expect(groupingKey({ level: "info", message: "other", fingerprint: ["payments", "declined"] }).hash).toBe(withStack.hash);
  });

  it("falls back to the template when the stack holds no frame it can read", () => {
    for (const context of [
      { stack: "Error: boom" },
      { stack: 42 },
      { exception: { values: [{ type: "Error", value: "boom" }] } },
      { exception: "TypeError" },
      { exception: { values: [null, 1, { stacktrace: { frames: "x" } }, { stacktrace: { frames: [null, 3] } }] } },
    ]) {
      const key = groupingKey(error("Payment 42 failed", context));
      expect(key.rule, JSON.stringify(context)).toBe("message-template");
      expect(key.fallbackHash).toBeNull();
    }
  });
});

describe("groupingKey: the stack rule", () => {
  const cart = (line: number, message = "TypeError: Cannot read properties of undefined (reading 'price')") =>
    v8(message, [
      ["price", "/srv/shop/releases/20261122/dist/cart.js", line],
      ["Array.map", "<anonymous>", 0],
      ["total", "/srv/shop/releases/20261122/dist/cart.js", line + 10],
      ["async checkout", "/srv/shop/releases/20261122/dist/routes/checkout.js", 40],
      ["process.processTicksAndRejections", "node:internal/process/task_queues", 95],
    ]).replace("(<anonymous>:0:0)", "(<anonymous>)");
  const list = v8("TypeError: Cannot read properties of undefined (reading 'map')", [
    ["ProductList", "/srv/shop/releases/20261122/dist/list.js", 14],
    ["renderWithHooks", "/srv/shop/node_modules/react-dom/cjs/react-dom.development.js", 16305],
  ]);

  it("splits two bugs that share a message shape: 'price' in cart vs 'map' in list", () => {
    const price = groupingKey(error("TypeError: Cannot read properties of undefined (reading 'price')", { stack: cart(2) }));
    const map = groupingKey(error("TypeError: Cannot read properties of undefined (reading 'map')", { stack: list }));
    // Titles are the messages themselves, so the two read apart in a list.
    expect([price.title, map.title]).toEqual(["TypeError: Cannot read properties of undefined (reading 'price')", "TypeError: Cannot read properties of undefined (reading 'map')"]);
    expect(price.hash).not.toBe(map.hash);
    expect([price.rule, map.rule]).toEqual(["in-app-frames", "in-app-frames"]);
    // Version 1 put both in one issue: that key is their fallback.
    const v1 = issueGroupingKey({ level: "error", message: "TypeError: Cannot read properties of undefined (reading 'price')" }).hash;
    expect(price.fallbackHash).toBe(v1);
    expect(map.fallbackHash).toBe(v1);
  });

  it("keeps one bug in one issue when its message, line numbers and deploy folder vary", () => {
    const a = groupingKey(error("TypeError: Cannot read properties of undefined (reading 'price') for order 1042", { stack: cart(2) }));
    const b = groupingKey(
      error("TypeError: Cannot read properties of undefined (reading 'price') for order 77", {
        stack: cart(57).replaceAll("releases/20261122", "releases/20261201"),
      }),
    );
    expect(b.hash).toBe(a.hash);
  });

  it("hashes `v2, stack, app, level`, then each exception's type and in-app frames (file name, function), oldest first", () => {
    const key = groupingKey(error("TypeError: x", { stack: cart(2) }));
    expect(key.hash).toBe(
      sha256(["v2", "stack", "app", "error", "E", "TypeError", "F", "checkout.js", "checkout", "F", "cart.js", "total", "F", "cart.js", "price"].join(NUL)),
    );
  });

  it("separates levels, exception types and frames", () => {
    const base = groupingKey(error("x", { stack: cart(2) }));
    expect(groupingKey({ level: "warn", message: "x", context: { stack: cart(2) } }).hash).not.toBe(base.hash);
    expect(groupingKey(error("x", { stack: cart(2).replace("TypeError:", "RangeError:") })).hash).not.toBe(base.hash);
    expect(groupingKey(error("x", { stack: cart(2).replace("at total", "at subtotal") })).hash).not.toBe(base.hash);
  });

  it("ignores library frames while there are in-app ones", () => {
    const a = groupingKey(error("x", { stack: list }));
    const b = groupingKey(error("x", { stack: list.replace("renderWithHooks", "mountIndeterminateComponent") }));
    expect(b.hash).toBe(a.hash);
  });

  it("uses every frame when none is in app, under its own rule", () => {
    const stack = v8("Error: socket hang up", [
      ["TLSSocket.socketOnEnd", "node:_http_client", 524],
      ["emitNone", "/srv/shop/node_modules/undici/lib/core.js", 100],
    ]);
    const key = groupingKey(error("Error: socket hang up", { stack }));
    expect(key.rule).toBe("all-frames");
    expect(key.hash).toBe(sha256(["v2", "stack", "all", "error", "E", "Error", "F", "undici/core.js", "emitNone", "F", "node:_http_client", "socketOnEnd"].join(NUL)));
  });

  it("counts a recursion once, however deep", () => {
    const deep = (n: number) => v8("RangeError: Maximum call stack size exceeded", Array.from({ length: n }, (): [string, string, number] => ["walk", "/app/tree.js", 3]));
    expect(groupingKey(error("x", { stack: deep(9) })).hash).toBe(groupingKey(error("x", { stack: deep(3) })).hash);
  });

  it("reads `context.stacktrace`, `context.traceback`, and `context.err.stack` as pino writes it", () => {
    const byStack = groupingKey(error("x", { stack: F.PYTHON_CAUSE })).hash;
    expect(groupingKey(error("x", { traceback: F.PYTHON_CAUSE })).hash).toBe(byStack);
    expect(groupingKey(error("x", { stacktrace: F.PYTHON_CAUSE })).hash).toBe(byStack);
    expect(groupingKey(error("x", { err: { type: "ValueError", message: "x", stack: F.PYTHON_CAUSE } })).hash).toBe(byStack);
    expect(groupingKey(error("x", { error: { stack: F.PYTHON_CAUSE } })).hash).toBe(byStack);
  });
});

describe("groupingKey: same and different, per language", () => {
  // [name, one bug, the same bug on another deploy or version, another bug]
  const cases: [string, string, string, string][] = [
    [
      "Node.js",
      F.NODE_CART,
      F.NODE_CART.replaceAll("/tmp/shop", "/home/deploy/shop-v2").replace(/:(\d+):(\d+)\)/g, (_m, l) => `:${Number(l) + 3}:1)`),
      F.NODE_CART.replace("at total", "at subtotal"),
    ],
    [
      "browser bundles (a new build's hash)",
      F.CHROME_BUNDLE,
      F.CHROME_BUNDLE.replaceAll("index-BdQq_4o_", "index-C8x-kP2q").replaceAll(":1:", ":2:"),
      F.CHROME_BUNDLE.replace("at price", "at discount"),
    ],
    ["Firefox", F.FIREFOX, F.FIREFOX.replaceAll("main.3f9a1c2b", "main.77aa01bc").replace(":1:2044", ":1:9"), F.FIREFOX.replace("price@", "tax@")],
    [
      "Python",
      F.PYTHON_CAUSE,
      F.PYTHON_CAUSE.replaceAll("/tmp/shop/py", "/srv/app").replace(/line (\d+)/g, (_m, l) => `line ${Number(l) + 1}`),
      F.PYTHON_CAUSE.replace("KeyError: 'price'", "TypeError: 'NoneType' object is not subscriptable"),
    ],
    [
      "Java",
      F.JAVA_SPRING,
      F.JAVA_SPRING.replace(/\.java:(\d+)/g, (_m, l) => `.java:${Number(l) + 2}`).replace("$$SpringCGLIB$$0", () => "$$SpringCGLIB$$1"),
      F.JAVA_SPRING.replace("Cart.total(Cart.java:42)", "Cart.subtotal(Cart.java:42)"),
    ],
    [
      "Go",
      F.GO_PANIC,
      F.GO_PANIC.replaceAll("/home/runner/work/shop", "/build/shop").replace(/\.go:(\d+) \+0x[0-9a-f]+/g, (_m, l) => `.go:${Number(l) + 1} +0x11`),
      F.GO_PANIC.replace("(*Cart).Total", "(*Cart).Discount"),
    ],
    ["Go closures renumbered", F.GO_DEBUG_STACK, F.GO_DEBUG_STACK.replace("recoverer.func1", "recoverer.func2"), F.GO_DEBUG_STACK.replace("main.parsePrice", "main.parseQty")],
    ["Ruby 3.3 and 3.4 labels", F.RUBY_33.split("\n").slice(0, 4).join("\n"), F.RUBY_34.split("\n").slice(0, 4).join("\n"), F.RUBY_33.replace("`show'", "`update'")],
    [
      "PHP",
      F.PHP_UNCAUGHT,
      F.PHP_UNCAUGHT.replaceAll("/var/www/shop", "/app").replace(/\((\d+)\)/g, (_m, l) => `(${Number(l) + 2})`).replace("-5", "-9"),
      F.PHP_UNCAUGHT.replace("App\\Cart->setPrice(-5)", "App\\Cart->setQuantity(-5)"),
    ],
    [
      ".NET",
      F.DOTNET_INNER,
      F.DOTNET_INNER.replace(/:line (\d+)/g, (_m, l) => `:line ${Number(l) + 5}`).replace("<Place>b__3_0", "<Place>b__4_0"),
      F.DOTNET_INNER.replace("System.FormatException", "System.OverflowException"),
    ],
  ];

  it.each(cases)("%s: one bug keeps one key, another gets its own", (_name, bug, sameBug, otherBug) => {
    const key = (stack: string) => groupingKey(error("Something failed", { stack }));
    const first = key(bug);
    expect(first.rule).toBe("in-app-frames");
    expect(key(sameBug).hash).toBe(first.hash);
    expect(key(otherBug).hash).not.toBe(first.hash);
  });
});

describe("groupingKey: Sentry-shaped exceptions", () => {
  const frame = (filename: string, fn: string, lineno: number, inApp?: boolean) => ({ filename, abs_path: filename, function: fn, lineno, ...(inApp === undefined ? {} : { in_app: inApp }) });
  const sentry = (type: string, frames: object[], extra: object = {}) => ({ platform: "node", exception: { values: [{ type, value: "x", stacktrace: { frames }, ...extra }] } });

  it("takes the SDK's in_app at its word", () => {
    const frames = [frame("/app/node_modules/lib/a.js", "outer", 1, true), frame("/app/src/cart.ts", "price", 2, false)];
    const key = groupingKey(error("x", sentry("TypeError", frames)));
    expect(key.hash).toBe(sha256(["v2", "stack", "app", "error", "E", "TypeError", "F", "lib/a.js", "outer"].join(NUL)));
  });

  it("decides in_app by the rules when a frame does not say, and ignores lines", () => {
    const a = groupingKey(error("x", sentry("TypeError", [frame("/app/node_modules/express/index.js", "handle", 1), frame("/app/src/cart.ts", "price", 2)])));
    const b = groupingKey(error("x", sentry("TypeError", [frame("/app/node_modules/express/index.js", "dispatch", 9), frame("/app/src/cart.ts", "price", 80)])));
    expect(b.hash).toBe(a.hash);
    expect(a.rule).toBe("in-app-frames");
  });

  it("keys a chain on every exception, and leaves out the type of a synthetic one", () => {
    const chain = (outer: string) => ({
      exception: { values: [{ type: "KeyError", stacktrace: { frames: [frame("/app/shop.py", "total", 5)] } }, { type: outer, stacktrace: { frames: [frame("/app/shop.py", "checkout", 10)] } }] },
    });
    expect(groupingKey(error("x", chain("ValueError"))).hash).not.toBe(groupingKey(error("x", chain("RuntimeError"))).hash);
    const synthetic = (type: string) => sentry(type, [frame("/app/a.js", "f", 1)], { mechanism: { type: "onunhandledrejection", synthetic: true } });
    expect(groupingKey(error("x", synthetic("Error"))).hash).toBe(groupingKey(error("x", synthetic("UnhandledRejection"))).hash);
  });

  it("uses the module when the frame has one (Java, Python), the file name otherwise", () => {
    const java = (file: string) => ({
      platform: "java",
      exception: { values: [{ type: "java.lang.NullPointerException", stacktrace: { frames: [{ module: "com.acme.shop.Cart", function: "total", filename: file, lineno: 3 }] } }] },
    });
    expect(groupingKey(error("x", java("Cart.java"))).hash).toBe(groupingKey(error("x", java("CartRenamed.java"))).hash);
  });

  it("tells nameless in-app functions of one file apart by their source line, spacing and line number aside", () => {
    const handler = (line: string | undefined, lineno: number, fn = "?") => ({ ...frame("/srv/app/routes.js", fn, lineno, true), ...(line === undefined ? {} : { context_line: line }) });
    const keyOf = (...frames: object[]) => groupingKey(error("x", sentry("TypeError", [frame("/srv/app/node_modules/express/lib/layer.js", "handle", 95, false), ...frames])));
    const key = (...frames: object[]) => keyOf(...frames).hash;
    const cart = key(handler("  return item.price;", 4));
    // Two anonymous handlers of routes.js: two issues.
    expect(key(handler("  return page.map((row) => row.title);", 8))).not.toBe(cart);
    // The same handler, moved down and re-indented: one issue.
    expect(key(handler("\t\treturn   item.price;", 40))).toBe(cart);
    expect(key(handler("return item.price;", 4, "<anonymous>"))).toBe(cart);
    expect(cart).toBe(sha256(["v2", "stack", "app", "error", "E", "TypeError", "F", "routes.js", "", "Lreturn item.price;"].join(NUL)));
    // Without a source line (or with a minified one) only the file counts, as before.
    const fileOnly = sha256(["v2", "stack", "app", "error", "E", "TypeError", "F", "routes.js", ""].join(NUL));
    expect(key(handler(undefined, 4))).toBe(fileOnly);
    expect(key(handler(`var a=${"x".repeat(200)};`, 1))).toBe(fileOnly);
    // The key these events had before source lines counted, for the issues made then; none when it is the same.
    expect(keyOf(handler("  return item.price;", 4)).previousHash).toBe(fileOnly);
    expect(keyOf(handler(undefined, 4)).previousHash).toBeNull();
    // A named function keeps ignoring its lines: the same error from two lines of it is one issue.
    expect(key(handler("throw new NotFound(a);", 3, "loadCart"))).toBe(key(handler("throw new NotFound(b);", 9, "loadCart")));
    expect(keyOf(handler("throw new NotFound(a);", 3, "loadCart")).previousHash).toBeNull();
  });

  it("prefers a Sentry exception to a stack string", () => {
    const both = { ...sentry("TypeError", [frame("/app/src/cart.ts", "price", 2)]), stack: F.NODE_CART };
    expect(groupingKey(error("x", both)).hash).toBe(groupingKey(error("x", sentry("TypeError", [frame("/app/src/cart.ts", "price", 2)]))).hash);
  });
});

describe("groupingKey: fingerprints with variables", () => {
  const stackA = { stack: F.NODE_CART };
  const stackB = { stack: F.NODE_CART.replace("at total", "at subtotal") };

  it("takes ['{{ default }}'] alone as the default key, however it is spaced", () => {
    for (const part of ["{{ default }}", "{{default}}", "{{  Default  }}"]) {
      const key = groupingKey(error("x", stackA, [part]));
      expect(key.hash).toBe(groupingKey(error("x", stackA)).hash);
      expect(key.rule).toBe("in-app-frames");
      // Version 1 hashed the fingerprint as it was written.
      expect(key.fallbackHash).toBe(issueGroupingKey({ level: "error", message: "x", fingerprint: [part] }).hash);
    }
    expect(groupingKey(error("User 42 not found", null, ["{{ default }}"])).hash).toBe(groupingKey(error("User 7 not found", null)).hash);
  });

  it("inserts the default key's parts where {{ default }} stands, next to the literal parts", () => {
    const a = groupingKey(error("x", stackA, ["{{ default }}", "tenant-eu"]));
    expect(a.rule).toBe("fingerprint-variables");
    expect(a.hash).toBe(groupingKey(error("y", { stack: F.NODE_CART.replace(/:(\d+):/g, ":9:") }, ["{{ default }}", "tenant-eu"])).hash);
    expect(a.hash).not.toBe(groupingKey(error("x", stackA)).hash);
    expect(a.hash).not.toBe(groupingKey(error("x", stackB, ["{{ default }}", "tenant-eu"])).hash);
    expect(a.hash).not.toBe(groupingKey(error("x", stackA, ["{{ default }}", "tenant-us"])).hash);
    expect(a.hash).not.toBe(groupingKey(error("x", stackA, ["tenant-eu", "{{ default }}"])).hash);
    expect(a.fallbackHash).toBe(issueGroupingKey({ level: "error", message: "x", fingerprint: ["{{ default }}", "tenant-eu"] }).hash);
    // Without a stack the default is the level and template.
    const noStack = (message: string) => groupingKey(error(message, null, ["{{ default }}", "tenant-eu"])).hash;
    expect(noStack("User 1 not found")).toBe(noStack("User 2 not found"));
    expect(noStack("User 1 not found")).not.toBe(noStack("User 1 deleted"));
  });

  it("never hashes a variable like the literal text that spells its value", () => {
    expect(groupingKey(error("x", null, ["{{ level }}"])).hash).not.toBe(groupingKey(error("x", null, ["error"])).hash);
  });

  it("supports {{ type }}, {{ value }}, {{ function }}, {{ module }}, {{ level }}, {{ message }}, {{ transaction }}", () => {
    const key = (context: Record<string, unknown> | null, fingerprint: string[], message = "x", level: "error" | "warn" = "error") =>
      groupingKey({ level, message, context, fingerprint }).hash;
    // {{ type }}: the outermost exception's type, not its frames.
    expect(key(stackA, ["{{ type }}"])).toBe(key(stackB, ["{{ error.type }}"]));
    expect(key(stackA, ["{{ type }}"])).not.toBe(key({ stack: F.NODE_CART.replace("TypeError", "RangeError") }, ["{{ type }}"]));
    // {{ value }}: its message's template.
    expect(key({ stack: F.NODE_CART }, ["{{ value }}"])).toBe(key({ stack: F.NODE_CART.replace("(reading 'price')", "(reading 'qty')") }, ["{{ value }}"]));
    // {{ function }} and {{ module }}: the newest in-app frame's.
    expect(key(stackA, ["{{ function }}"])).toBe(key({ stack: F.NODE_CART.replace("at total", "at subtotal") }, ["{{ function }}"]));
    expect(key(stackA, ["{{ function }}"])).not.toBe(key({ stack: F.NODE_CART.replace("at price", "at tax") }, ["{{ function }}"]));
    expect(key(stackA, ["{{ module }}"])).toBe(key({ stack: F.NODE_CART.replace("at price", "at tax") }, ["{{ module }}"]));
    expect(key(null, ["{{ level }}"], "a", "error")).not.toBe(key(null, ["{{ level }}"], "a", "warn"));
    expect(key(null, ["{{ message }}"], "User 1 gone")).toBe(key(null, ["{{ message }}"], "User 2 gone"));
    expect(key({ transaction: "/checkout" }, ["{{ transaction }}"])).not.toBe(key({ transaction: "/cart" }, ["{{ transaction }}"]));
  });

  it("keeps a fingerprint with only unknown variables literal, as version 1 did", () => {
    const key = groupingKey(error("x", stackA, ["{{ tags.region }}", "a"]));
    expect(key).toMatchObject({ rule: "fingerprint", fallbackHash: null, hash: sha256(`v1${NUL}fingerprint${NUL}{{ tags.region }}${NUL}a`) });
  });
});

describe("groupingKey: properties", () => {
  it("never throws on any context, and gives a 64-hex hash and a known rule", () => {
    const rules = new Set(GROUPING_RULES.map((r) => r.name));
    const stackString = fc.constantFrom(F.NODE_CART, F.JAVA_PLAIN, F.PYTHON_CAUSE, F.GO_PANIC, "at x", "");
    const context = fc.oneof(
      fc.dictionary(fc.constantFrom("stack", "stacktrace", "traceback", "exception", "err", "platform", "x"), fc.oneof(fc.jsonValue(), stackString)),
      fc.record({ exception: fc.record({ values: fc.array(fc.jsonValue(), { maxLength: 4 }) }) }),
      fc.record({ exception: fc.record({ values: fc.array(fc.record({ type: fc.jsonValue(), stacktrace: fc.record({ frames: fc.array(fc.dictionary(fc.constantFrom("function", "module", "filename", "abs_path", "in_app"), fc.jsonValue()), { maxLength: 5 }) }) }), { maxLength: 3 }) }) }),
    );
    fc.assert(
      fc.property(context, fc.option(fc.array(fc.constantFrom("{{ default }}", "{{ type }}", "{{ function }}", "a", "{{ x }}"), { minLength: 1, maxLength: 3 })), (ctx, fingerprint) => {
        const key = groupingKey({ level: "error", message: "m 1", context: ctx as Record<string, unknown>, fingerprint });
        expect(key.hash).toMatch(/^[0-9a-f]{64}$/);
        expect(rules.has(key.rule)).toBe(true);
        expect(key.fallbackHash === null || (key.fallbackHash !== key.hash && /^[0-9a-f]{64}$/.test(key.fallbackHash))).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
});
