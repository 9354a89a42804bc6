import { execFileSync, spawnSync } from "node:child_process";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { STACK_LIMITS, type ExceptionValue, type ParsedStack, type StackFrame } from "@/lib/grouping/frames";
import { parseStack } from "@/lib/grouping/stack/parse";
import * as F from "./grouping-fixtures";

/** The frames of the exception at `index` (Sentry order: innermost cause first), as compact rows. */
function rows(parsed: ParsedStack | null, index = -1): string[] {
  expect(parsed).not.toBeNull();
  const exceptions = parsed!.exceptions;
  const e = exceptions.at(index)!;
  return (e.stacktrace?.frames ?? []).map(
    (f) => `${f.in_app ? "app" : "lib"} ${f.module ? `${f.module} ` : ""}${f.function ?? "?"} ${f.filename ?? "-"}${f.lineno !== undefined ? `:${f.lineno}` : ""}`,
  );
}

function types(parsed: ParsedStack | null): (string | undefined)[] {
  return parsed!.exceptions.map((e) => e.type);
}

describe("parseStack: JavaScript", () => {
  it("reads a Node.js stack: type, message, frames oldest first, native and internal frames not in app", () => {
    const parsed = parseStack(F.NODE_CART);
    expect(parsed!.platform).toBe("javascript");
    expect(parsed!.exceptions).toHaveLength(1);
    expect(parsed!.exceptions[0]).toMatchObject({ type: "TypeError", value: "Cannot read properties of null (reading 'price')" });
    expect(rows(parsed)).toEqual([
      "lib ? node:internal/main/run_main_module:28",
      "lib Function.executeUserEntryPoint [as runMain] node:internal/modules/run_main:164",
      "lib Module._load node:internal/modules/cjs/loader:1091",
      "lib Module.load node:internal/modules/cjs/loader:1266",
      "lib Module._extensions..js node:internal/modules/cjs/loader:1623",
      "lib Module._compile node:internal/modules/cjs/loader:1521",
      "app Object.<anonymous> /tmp/shop/src/cart.js:11",
      "app total /tmp/shop/src/cart.js:3",
      "lib Array.map <anonymous>",
      "app price /tmp/shop/src/cart.js:2",
    ]);
    expect(parsed!.exceptions[0]!.stacktrace!.frames.at(-1)).toMatchObject({ lineno: 2, colno: 44, abs_path: "/tmp/shop/src/cart.js" });
  });

  it("reads Node's printout of an error with a cause: the cause first, node_modules not in app", () => {
    const parsed = parseStack(F.NODE_WITH_CAUSE);
    expect(types(parsed)).toEqual(["TypeError", "CheckoutError"]);
    expect(parsed!.exceptions[1]!.value).toBe("checkout of cart 42 failed");
    expect(rows(parsed, 0)).toEqual([
      "lib process.processTicksAndRejections node:internal/process/task_queues:95",
      "lib Object.query /tmp/shop/node_modules/fakeorm/index.js:1",
      "lib Array.map <anonymous>",
      "app ? /tmp/shop/src/cart.js:4",
    ]);
    expect(rows(parsed, 1)).toEqual([
      "lib process.processTicksAndRejections node:internal/process/task_queues:95",
      "app checkout /tmp/shop/src/cart.js:7",
    ]);
  });

  it("finds the header under the source position Node prints over a crash", () => {
    const parsed = parseStack(F.NODE_CRASH);
    expect(parsed!.exceptions[0]).toMatchObject({ type: "TypeError", value: "Cannot read properties of undefined (reading 'price')" });
    expect(rows(parsed).slice(-3)).toEqual(["app Object.total /tmp/shop/src/cart.js:3", "lib Array.map <anonymous>", "app price /tmp/shop/src/cart.js:2"]);
    // `node -e`'s wrapper is Node's, the evaluated code the user's.
    expect(rows(parsed)).toContain("lib ? [eval]-wrapper:6");
    expect(rows(parsed)).toContain("app ? [eval]:1");
  });

  it("reads `at async fn`, `at new Fn`, eval frames, `[as alias]` and bare locations", () => {
    const parsed = parseStack(
      [
        "Error: boom",
        "    at new Cart (/srv/app/cart.js:3:9)",
        "    at eval (eval at render (/srv/app/view.js:5:10), <anonymous>:1:16)",
        "    at Layer.handle [as handle_request] (/srv/app/node_modules/express/lib/router/layer.js:95:5)",
        "    at async Promise.all (index 0)",
        "    at async file:///srv/app/main.mjs:7:7",
        "    at /srv/app/server.js:12:3",
      ].join("\n"),
    );
    expect(rows(parsed)).toEqual([
      "app ? /srv/app/server.js:12",
      "app ? file:///srv/app/main.mjs:7",
      "lib Promise.all <anonymous>",
      "lib Layer.handle [as handle_request] /srv/app/node_modules/express/lib/router/layer.js:95",
      "app eval /srv/app/view.js:5",
      "app Cart /srv/app/cart.js:3",
    ]);
  });

  it("reads a bundle's stack in Chrome, and webpack's runtime as not in app", () => {
    expect(rows(parseStack(F.CHROME_BUNDLE))[0]).toBe("app HTMLButtonElement.onClick https://shop.example.com/assets/index-BdQq_4o_.js:1");
    expect(rows(parseStack(F.WEBPACK_DEV))).toEqual([
      "lib __webpack_require__ webpack:///webpack/bootstrap:24",
      "lib mountIndeterminateComponent webpack-internal:///./node_modules/react-dom/cjs/react-dom.development.js:20074",
      "lib renderWithHooks webpack-internal:///./node_modules/react-dom/cjs/react-dom.development.js:16305",
      "app ProductList webpack-internal:///./src/components/ProductList.tsx:14",
    ]);
  });

  it("reads Firefox's and Safari's `function@url:line:column` stacks, which have no header", () => {
    const firefox = parseStack(F.FIREFOX);
    expect(firefox!.platform).toBe("javascript");
    expect(firefox!.exceptions[0]!.type).toBeUndefined();
    expect(rows(firefox)).toEqual([
      "app ? http://localhost:3000/static/js/main.3f9a1c2b.js:1",
      "app checkout http://localhost:3000/static/js/main.3f9a1c2b.js:1",
      "app total http://localhost:3000/static/js/main.3f9a1c2b.js:1",
      "app total/< http://localhost:3000/static/js/main.3f9a1c2b.js:1",
      "app price http://localhost:3000/static/js/main.3f9a1c2b.js:1",
    ]);
    expect(firefox!.exceptions[0]!.stacktrace!.frames.at(-1)).toMatchObject({ lineno: 1, colno: 2044 });
    expect(rows(parseStack(F.SAFARI))).toEqual([
      "app ? https://shop.example.com/assets/index-BdQq_4o_.js:1",
      "app total https://shop.example.com/assets/index-BdQq_4o_.js:1",
      "lib map [native code]",
      "app price https://shop.example.com/assets/index-BdQq_4o_.js:1",
    ]);
  });

  it("reads what `node -e` prints when it throws, run here", () => {
    const run = (code: string) => spawnSync(process.execPath, ["-e", code], { encoding: "utf8" }).stderr;
    const stderr = run("function parsePrice(s) { if (!/^\\d+$/.test(s)) throw new RangeError('bad price ' + s); } function load() { parsePrice('x1') } load()");
    const parsed = parseStack(stderr);
    expect(parsed!.exceptions[0]).toMatchObject({ type: "RangeError", value: "bad price x1" });
    expect(rows(parsed).filter((r) => r.startsWith("app"))).toEqual(["app ? [eval]:1", "app load [eval]:1", "app parsePrice [eval]:1"]);
    // error.stack, printed by the program itself.
    const stack = execFileSync(process.execPath, ["-e", "try { null.x } catch (e) { process.stdout.write(e.stack) }"], { encoding: "utf8" });
    expect(parseStack(stack)!.exceptions[0]!.type).toBe("TypeError");
  });
});

describe("parseStack: Python", () => {
  it("reads a chained traceback (`raise ... from`): the cause first, source lines as context", () => {
    const parsed = parseStack(F.PYTHON_CAUSE);
    expect(parsed!.platform).toBe("python");
    expect(parsed!.exceptions.map((e) => [e.type, e.value])).toEqual([["KeyError", "'price'"], ["ValueError", "invalid cart"]]);
    expect(rows(parsed, 0)).toEqual(["app checkout /tmp/shop/py/shop.py:8", "app total /tmp/shop/py/shop.py:5", "app <genexpr> /tmp/shop/py/shop.py:5"]);
    expect(rows(parsed, 1)).toEqual(["app <module> <string>:1", "app checkout /tmp/shop/py/shop.py:10"]);
    expect(parsed!.exceptions[0]!.stacktrace!.frames[0]!.context_line).toBe('return Cart(json.loads(payload)["lines"]).total()');
  });

  it("reads 'During handling of the above exception', the standard library not in app", () => {
    const parsed = parseStack(F.PYTHON_CONTEXT);
    expect(types(parsed)).toEqual(["json.decoder.JSONDecodeError", "KeyError"]);
    expect(rows(parsed, 0)).toEqual([
      "app parse <string>:5",
      "lib loads /root/.pyenv/versions/3.11.7/lib/python3.11/json/__init__.py:346",
      "lib decode /root/.pyenv/versions/3.11.7/lib/python3.11/json/decoder.py:337",
      "lib raw_decode /root/.pyenv/versions/3.11.7/lib/python3.11/json/decoder.py:353",
    ]);
  });

  it("marks site-packages frames as not in app", () => {
    expect(rows(parseStack(F.PYTHON_LIBRARY))).toEqual([
      "app <module> <string>:8",
      "lib __call__ /root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/click/core.py:1524",
      "lib main /root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/click/core.py:1445",
      "lib invoke /root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/click/core.py:1308",
      "lib invoke /root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/click/core.py:877",
      "app cli <string>:7",
    ]);
  });

  it("reads a SyntaxError's frame without a function, and an exception without a message", () => {
    const parsed = parseStack('Traceback (most recent call last):\n  File "/app/main.py", line 1, in <module>\n    import settings\n  File "/app/settings.py", line 3\n    DEBUG = (\n            ^\nSyntaxError: \'(\' was never closed');
    expect(rows(parsed)).toEqual(["app <module> /app/main.py:1", "app ? /app/settings.py:3"]);
    expect(parsed!.exceptions[0]).toMatchObject({ type: "SyntaxError", value: "'(' was never closed" });
    expect(parseStack('Traceback (most recent call last):\n  File "/app/worker.py", line 9, in run\n    time.sleep(1)\nKeyboardInterrupt')!.exceptions[0]!.type).toBe("KeyboardInterrupt");
  });

  const python = spawnSync("python3", ["--version"]).status === 0;
  it.skipIf(!python)("reads what python3 prints, run here", () => {
    const stderr = spawnSync("python3", ["-c", "import json\ndef load(s):\n    return json.loads(s)['items'][0]\nload('{\"items\": []}')"], { encoding: "utf8" }).stderr;
    const parsed = parseStack(stderr);
    expect(parsed!.exceptions[0]).toMatchObject({ type: "IndexError", value: "list index out of range" });
    expect(rows(parsed)).toEqual(["app <module> <string>:4", "app load <string>:3"]);
  });
});

describe("parseStack: Java and Kotlin", () => {
  it("reads a Spring log: the root cause first, its omitted frames copied from the enclosing trace", () => {
    const parsed = parseStack(F.JAVA_SPRING);
    expect(parsed!.platform).toBe("java");
    expect(parsed!.exceptions.map((e) => [e.type, e.value])).toEqual([
      ["java.lang.NullPointerException", 'Cannot invoke "com.acme.shop.catalog.Price.amount()" because "price" is null'],
      ["java.lang.IllegalStateException", "Order 1042 could not be placed"],
    ]);
    const cause = rows(parsed, 0);
    expect(cause).toHaveLength(9);
    expect(cause.slice(-3)).toEqual([
      "app com.acme.shop.orders.OrderController create OrderController.java:31",
      "app com.acme.shop.orders.OrderService place OrderService.java:52",
      "app com.acme.shop.cart.Cart total Cart.java:42",
    ]);
    expect(cause[0]).toBe("lib java.lang.Thread run Thread.java:1583");
    const outer = rows(parsed, 1);
    expect(outer.slice(-3)).toEqual([
      "app com.acme.shop.orders.OrderController create OrderController.java:31",
      "lib com.acme.shop.orders.OrderService$$SpringCGLIB$$0 place <generated>",
      "app com.acme.shop.orders.OrderService place OrderService.java:57",
    ]);
    expect(outer).toContain("lib org.springframework.web.servlet.FrameworkServlet service FrameworkServlet.java:885");
  });

  it("reads printStackTrace(): `Exception in thread`, `... n more`, a native method; suppressed exceptions left out", () => {
    const parsed = parseStack(F.JAVA_PLAIN);
    expect(types(parsed)).toEqual(["java.io.FileNotFoundException", "java.lang.RuntimeException"]);
    expect(rows(parsed, 0)).toEqual([
      "app com.acme.App main App.java:10",
      "app com.acme.App loadConfig App.java:22",
      "lib java.io.FileInputStream <init> FileInputStream.java:152",
      "lib java.io.FileInputStream open FileInputStream.java:213",
      "lib java.io.FileInputStream open0 -",
    ]);
    expect(rows(parsed, 1)).toEqual(["app com.acme.App main App.java:10", "app com.acme.App loadConfig App.java:25"]);
  });

  it("reads Kotlin's file classes", () => {
    expect(rows(parseStack(F.KOTLIN))).toEqual([
      "app com.acme.shop.MainKt main Main.kt",
      "app com.acme.shop.MainKt main Main.kt:7",
      "app com.acme.shop.CartKt addItem Cart.kt:14",
    ]);
  });
});

describe("parseStack: Go", () => {
  it("reads a panic: the panicking goroutine only, the standard library and module cache not in app", () => {
    const parsed = parseStack(F.GO_PANIC);
    expect(parsed!.platform).toBe("go");
    expect(parsed!.exceptions).toHaveLength(1);
    expect(parsed!.exceptions[0]).toMatchObject({ type: "panic", value: "runtime error: invalid memory address or nil pointer dereference" });
    expect(rows(parsed)).toEqual([
      "lib net/http (*Server).Serve /usr/local/go/src/net/http/server.go:3285",
      "lib net/http (*conn).serve /usr/local/go/src/net/http/server.go:2039",
      "lib net/http HandlerFunc.ServeHTTP /usr/local/go/src/net/http/server.go:2166",
      "lib github.com/go-chi/chi/v5 (*Mux).routeHTTP /root/go/pkg/mod/github.com/go-chi/chi/v5@v5.0.11/mux.go:444",
      "app github.com/acme/shop/api (*Server).checkout /home/runner/work/shop/api/checkout.go:41",
      "app github.com/acme/shop/cart (*Cart).Total /home/runner/work/shop/cart/cart.go:27",
    ]);
  });

  it("reads debug.Stack(): no panic line, runtime frames not in app", () => {
    const parsed = parseStack(F.GO_DEBUG_STACK);
    expect(parsed!.exceptions[0]!.type).toBeUndefined();
    expect(rows(parsed)).toEqual([
      "app main handler /app/main.go:44",
      "app main parsePrice /app/price.go:12",
      "lib panic /usr/local/go/src/runtime/panic.go:914",
      "app main recoverer.func1 /app/main.go:31",
      "lib runtime/debug Stack /usr/local/go/src/runtime/debug/stack.go:24",
    ]);
  });

  it("reads frames without the goroutine line, and `fatal error`", () => {
    const parsed = parseStack("fatal error: concurrent map writes\n\nmain.save(...)\n\t/app/store.go:20\nmain.main()\n\t/app/main.go:9 +0x25");
    expect(parsed!.exceptions[0]).toMatchObject({ type: "fatal error", value: "concurrent map writes" });
    expect(rows(parsed)).toEqual(["app main main /app/main.go:9", "app main save /app/store.go:20"]);
  });
});

describe("parseStack: Ruby", () => {
  it("reads Ruby 3.3's backtick labels; gems and the standard library not in app", () => {
    const parsed = parseStack(F.RUBY_33);
    expect(parsed!.platform).toBe("ruby");
    expect(parsed!.exceptions[0]).toMatchObject({ type: "NoMethodError", value: "undefined method `price' for nil" });
    expect(rows(parsed)).toEqual([
      "lib realtime /usr/local/lib/ruby/3.3.0/benchmark.rb:311",
      "lib send_action /usr/local/bundle/gems/actionpack-7.1.2/lib/action_controller/metal/basic_implicit_render.rb:6",
      "app show /app/app/controllers/carts_controller.rb:8",
      "app total /app/app/models/cart.rb:12",
      "app map /app/app/models/cart.rb:12",
      "app block in total /app/app/models/cart.rb:12",
    ]);
  });

  it("reads Ruby 3.4's quoted labels with the class", () => {
    const parsed = parseStack(F.RUBY_34);
    expect(parsed!.exceptions[0]).toMatchObject({ type: "NoMethodError", value: "undefined method 'price' for nil" });
    expect(rows(parsed).slice(-2)).toEqual(["app Array#map /app/app/models/cart.rb:14", "app block in Cart#total /app/app/models/cart.rb:14"]);
  });

  it("reads a cause printed after its exception, and the numbered form oldest first", () => {
    const parsed = parseStack(F.RUBY_CAUSE);
    expect(types(parsed)).toEqual(["Payment::Declined", "Checkout::Error"]);
    expect(rows(parsed, 0)).toEqual(["app <main> app.rb:15", "app Checkout#run app.rb:8", "app Checkout#charge app.rb:5"]);
    expect(rows(parsed, 1)).toEqual(["app <main> app.rb:15", "app Checkout#run app.rb:9"]);
    const numbered = parseStack(F.RUBY_NUMBERED);
    expect(numbered!.exceptions).toHaveLength(1);
    expect(numbered!.exceptions[0]!.type).toBe("NoMethodError");
    expect(rows(numbered)).toEqual(["app <main> app.rb:7", "app checkout app.rb:4", "app total app.rb:2"]);
  });

  it("reads a backtrace array joined with newlines (no message)", () => {
    const parsed = parseStack("/app/lib/tax.rb:3:in `rate'\n/app/lib/tax.rb:9:in `apply'\n/app/app/models/order.rb:20:in `total'");
    expect(rows(parsed)).toEqual(["app total /app/app/models/order.rb:20", "app apply /app/lib/tax.rb:9", "app rate /app/lib/tax.rb:3"]);
  });
});

describe("parseStack: PHP", () => {
  it("reads an uncaught exception: the throw site first in the function #0 names, vendor/ not in app", () => {
    const parsed = parseStack(F.PHP_UNCAUGHT);
    expect(parsed!.platform).toBe("php");
    expect(parsed!.exceptions[0]).toMatchObject({ type: "InvalidArgumentException", value: "Price must be positive, got -5" });
    expect(rows(parsed)).toEqual([
      "app ? /var/www/shop/public/index.php:20",
      "lib Symfony\\Component\\HttpKernel\\HttpKernel handle /var/www/shop/vendor/symfony/http-kernel/HttpKernel.php:76",
      "lib Symfony\\Component\\HttpKernel\\HttpKernel handleRaw /var/www/shop/vendor/symfony/http-kernel/HttpKernel.php:181",
      "app App\\Controller\\CartController add /var/www/shop/src/Controller/CartController.php:28",
      "app App\\Cart add /var/www/shop/src/Cart.php:17",
      "app App\\Cart setPrice /var/www/shop/src/Cart.php:42",
    ]);
  });

  it("reads a previous exception and the one after `Next`, closures and internal functions", () => {
    const parsed = parseStack(F.PHP_CHAINED);
    expect(types(parsed)).toEqual(["PDOException", "App\\Exception\\SignupFailed"]);
    expect(rows(parsed, 0)).toEqual([
      "app ? /var/www/shop/src/SignupService.php:22",
      "lib array_map -",
      "app App\\UserRepository App\\{closure} /var/www/shop/src/UserRepository.php:31",
      "app PDOStatement execute /var/www/shop/src/UserRepository.php:31",
    ]);
    expect(parsed!.exceptions[1]!.value).toBe("Could not sign up");
  });
});

describe("parseStack: .NET", () => {
  it("reads inner exceptions: the innermost with the first frames, `End of inner exception` starting the next", () => {
    const parsed = parseStack(F.DOTNET_INNER);
    expect(parsed!.platform).toBe("dotnet");
    expect(parsed!.exceptions.map((e) => [e.type, e.value])).toEqual([
      ["System.FormatException", "The input string 'abc' was not in a correct format."],
      ["System.InvalidOperationException", "Order 1042 could not be placed"],
    ]);
    expect(rows(parsed, 0)).toEqual([
      "app Shop.Orders.OrderService Place /src/Shop/Orders/OrderService.cs:40",
      "lib System.Linq.Enumerable.SelectListIterator`2 ToList -",
      "app Shop.Orders.OrderService.<>c <Place>b__3_0 /src/Shop/Orders/OrderService.cs:40",
      "app Shop.Pricing.PriceParser Parse /src/Shop/Pricing/PriceParser.cs:14",
      "lib System.Decimal Parse -",
      "lib System.Number ThrowFormatException[TChar] -",
    ]);
    expect(rows(parsed, 1)).toEqual([
      "lib Microsoft.AspNetCore.Mvc.Infrastructure.ActionMethodExecutor.SyncActionResultExecutor Execute -",
      "app Shop.Api.OrdersController Create /src/Shop/Api/OrdersController.cs:22",
      "app Shop.Orders.OrderService Place /src/Shop/Orders/OrderService.cs:47",
    ]);
  });

  it("reads async state machines and Windows paths; `End of stack trace from previous location` is no boundary", () => {
    const parsed = parseStack(F.DOTNET_ASYNC);
    expect(parsed!.exceptions).toHaveLength(1);
    expect(rows(parsed)).toEqual([
      "app Shop.Orders.CheckoutService.<CheckoutAsync>d__4 MoveNext C:\\build\\agent\\_work\\3\\s\\src\\Shop\\Orders\\CheckoutService.cs:33",
      "lib System.Runtime.CompilerServices.TaskAwaiter ThrowForNonSuccess -",
      "app Shop.Payments.StripeClient.<ChargeAsync>d__7 MoveNext C:\\build\\agent\\_work\\3\\s\\src\\Shop\\Payments\\StripeClient.cs:58",
      "lib System.Net.Http.HttpResponseMessage EnsureSuccessStatusCode -",
    ]);
  });

  it("reads constructors", () => {
    expect(rows(parseStack("System.ArgumentNullException: Value cannot be null. (Parameter 'sku')\n   at Shop.Product..ctor(String sku) in /src/Shop/Product.cs:line 9"))).toEqual([
      "app Shop.Product .ctor /src/Shop/Product.cs:9",
    ]);
  });
});

describe("parseStack: what it is not", () => {
  it.each([
    ["empty", ""],
    ["a message", "Payment failed for order 42"],
    ["a log line with a path and line", "GET /api/orders 500 in 12ms (at /app/server.js line 12)"],
    ["JSON", '{"error":"boom","at":"2026-11-22T10:15:30Z"}'],
    ["a header without frames", "TypeError: Cannot read properties of undefined (reading 'map')"],
    ["a Python header without frames", "Traceback (most recent call last):\nKeyError: 'x'"],
    ["an email and a port", "mail to bob@example.com:25 failed"],
  ])("gives null for %s", (_name, text) => {
    expect(parseStack(text)).toBeNull();
  });
});

describe("parseStack: bounded work", () => {
  const megabyte = 1_048_576;

  it("reads only the first 64 KiB of a 1 MB JavaScript stack: the same result as that window, frames capped", () => {
    const frameLine = (i: number) => `    at handler${i % 7} (/srv/app/dist/server.js:${i}:5)\n`;
    let huge = "Error: boom\n";
    for (let i = 0; huge.length < megabyte; i++) huge += frameLine(i);
    const parsed = parseStack(huge);
    const window = huge.slice(0, huge.lastIndexOf("\n", STACK_LIMITS.maxStackChars));
    expect(parsed).toEqual(parseStack(window));
    expect(parsed!.exceptions[0]!.stacktrace!.frames).toHaveLength(STACK_LIMITS.maxFramesPerException);
    // The newest frames are the ones kept.
    expect(parsed!.exceptions[0]!.stacktrace!.frames.at(-1)).toMatchObject({ function: "handler0", lineno: 0 });
    // What is past the window changes nothing.
    expect(parseStack(`${huge}Caused by: java.lang.Error\n    at x (/y.js:1:1)\n`)).toEqual(parsed);
  });

  it("reads the last 64 KiB of a 1 MB Python traceback, where the newest frames and the exception are", () => {
    let huge = "Traceback (most recent call last):\n";
    for (let i = 0; huge.length < megabyte; i++) huge += `  File "/app/shop/tree.py", line ${i}, in walk\n    return walk(node.children[0])\n`;
    huge += "RecursionError: maximum recursion depth exceeded";
    const parsed = parseStack(huge);
    expect(parsed!.exceptions[0]!.type).toBe("RecursionError");
    const frames = parsed!.exceptions[0]!.stacktrace!.frames;
    expect(frames).toHaveLength(STACK_LIMITS.maxFramesPerException);
    expect(frames.at(-1)!.lineno).toBeGreaterThan(9_000);
  });

  // Each must complete (a regex that backtracks would hang until the test's
  // timeout); the time is measured by npm run bench:grouping, not asserted here.
  it.each([
    ["one 1 MB line", "x".repeat(megabyte)],
    ["a 1 MB line of frame-like text", "    at a (b:1:1)".repeat(megabyte / 16)],
    ["colons and digits", "1:".repeat(megabyte / 2)],
    ["at at at", "at ".repeat(megabyte / 3)],
    ["Ruby-like", "a.rb:1:in `".repeat(megabyte / 12)],
    ["PHP-like", "#0 a(1): ".repeat(megabyte / 9)],
    ["nested parentheses", "at f (".repeat(megabyte / 6)],
    ["short lines", "at x\n".repeat(megabyte / 5)],
  ])("completes on %s", (_name, text) => {
    const parsed = parseStack(text);
    for (const e of parsed?.exceptions ?? []) expect(e.stacktrace!.frames.length).toBeLessThanOrEqual(STACK_LIMITS.maxFramesPerException);
  });

  it("caps the exceptions of a chain, keeping the outermost", () => {
    let text = "java.lang.Error: e0\n\tat a.B.c(B.java:1)\n";
    for (let i = 1; i < 30; i++) text += `Caused by: java.lang.Error: e${i}\n\tat a.B.c(B.java:${i + 1})\n`;
    const parsed = parseStack(text);
    expect(parsed!.exceptions).toHaveLength(STACK_LIMITS.maxExceptions);
    expect(parsed!.exceptions.at(-1)!.value).toBe("e0");
  });
});

describe("parseStack: properties", () => {
  const pieces = [
    "Error: x", "TypeError: y", "    at f (/a/b.js:1:2)", "    at /a/c.js:3:4", "    at async g (file:///x.mjs:1:1)", "[cause]: Error: z",
    "Traceback (most recent call last):", '  File "/a.py", line 3, in f', "    return f()", "KeyError: 'k'",
    "The above exception was the direct cause of the following exception:", "\tat com.a.B.c(B.java:12)", "Caused by: java.lang.X: y",
    "\t... 3 more", "\tSuppressed: a.B", "goroutine 1 [running]:", "main.f(...)", "\t/a/b.go:3 +0x1d", "panic: boom",
    "a.rb:3:in `f': m (E)", "\tfrom a.rb:4:in 'g'", "1: from a.rb:1:in `<main>'", "#0 /a.php(3): A->b()", "#1 {main}",
    "Next E: m in /a.php:3", "PHP Fatal error:  Uncaught E: m in /a.php:3", "Stack trace:", "   at A.B.C() in /a.cs:line 3",
    " ---> System.X: y", "   --- End of inner exception stack trace ---", "f@http://a/b.js:1:2", "@[native code]", "", " ", "\r",
  ];
  const stackish = fc.array(fc.oneof(fc.constantFrom(...pieces), fc.string({ maxLength: 30 })), { maxLength: 40 }).map((lines) => lines.join("\n"));

  function wellFormed(parsed: ParsedStack | null) {
    if (parsed === null) return;
    expect(parsed.exceptions.length).toBeGreaterThan(0);
    expect(parsed.exceptions.length).toBeLessThanOrEqual(STACK_LIMITS.maxExceptions);
    expect(parsed.exceptions.some((e: ExceptionValue) => (e.stacktrace?.frames.length ?? 0) > 0)).toBe(true);
    for (const e of parsed.exceptions) {
      for (const f of e.stacktrace?.frames ?? []) {
        expect(typeof f.in_app).toBe("boolean");
        for (const n of [f.lineno, f.colno]) if (n !== undefined) expect(Number.isSafeInteger(n) && n >= 0).toBe(true);
        expect(Object.values(f as StackFrame).every((v) => v !== undefined && v !== "")).toBe(true);
      }
    }
  }

  it("never throws, and gives well-formed exceptions, on stack-like text", () => {
    fc.assert(fc.property(stackish, (text) => wellFormed(parseStack(text))), { numRuns: 2000 });
  });

  it("never throws on any string", () => {
    fc.assert(fc.property(fc.string({ unit: "binary", maxLength: 500 }), (text) => wellFormed(parseStack(text))), { numRuns: 500 });
  });
});
