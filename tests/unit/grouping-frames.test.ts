import { describe, expect, it } from "vitest";
import { frameKeyParts, normalizeFile, normalizeFunction, normalizeModule, stripContentHash } from "@/lib/grouping/frame-key";
import type { StackPlatform } from "@/lib/grouping/frames";
import { isInApp, NOT_IN_APP_RULES, notInAppRule, platformFromSentry, platformOfFrame } from "@/lib/grouping/in-app";

describe("normalizeFile", () => {
  it.each([
    // Origins, schemes, query strings and fragments go.
    ["https://cdn.example.com/assets/app.js?v=3#x", "app.js"],
    ["http://localhost:3000/static/js/cart.js", "cart.js"],
    ["file:///srv/app/src/cart.mjs", "cart.mjs"],
    ["app:///dist/cart.js", "cart.js"],
    ["webpack-internal:///./src/components/ProductList.tsx", "productlist.tsx"],
    ["webpack:///./src/cart.ts?1a2b", "cart.ts"],
    // Folders that vary by host and deploy go.
    ["/home/deploy/releases/20261122101530/app/models/order.rb", "order.rb"],
    ["/tmp/build_a1b2c3/src/cart.ts", "cart.ts"],
    ["C:\\agent\\_work\\1\\s\\src\\Shop\\Cart.cs", "cart.cs"],
    ["/var/task/handler.js", "handler.js"],
    // Content hashes and chunk numbers go.
    ["https://shop.example.com/static/js/main.3f9a1c2b.js", "main.js"],
    ["/assets/chunk-ABCD1234.js", "chunk.js"],
    ["/assets/index-BdQq_4o_.js", "index.js"],
    ["/assets/index-B-dQq4o_.js", "index.js"],
    ["/_next/static/chunks/app/cart/page-0a1b2c3d4e5f6a7b.js", "page.js"],
    ["/static/js/2.a1b2c3d4.chunk.js", "chunk.js"],
    ["/static/js/vendors~main.abc12345.js", "vendors~main.js"],
    ["/static/js/0a1b2c3d.js", "[hash].js"],
    // Names that look like words stay.
    ["/app/src/v8-compile-cache.js", "v8-compile-cache.js"],
    ["/app/src/use-fetch-user.ts", "use-fetch-user.ts"],
    ["/app/src/index-Settings.js", "index-settings.js"],
    ["/app/src/api-get-user.ts", "api-get-user.ts"],
    ["/app/src/jquery.min.js", "jquery.min.js"],
    // A dependency keeps its package's name, never its version.
    ["/app/node_modules/express/lib/router/index.js", "express/index.js"],
    ["/app/node_modules/@sentry/node/build/cjs/index.js", "@sentry/node/index.js"],
    ["/app/node_modules/.pnpm/lodash@4.17.21/node_modules/lodash/map.js", "lodash/map.js"],
    ["/usr/lib/python3/dist-packages/requests/models.py", "requests/models.py"],
    ["/app/.venv/lib/python3.12/site-packages/django/db/models/query.py", "django/query.py"],
    ["/usr/local/bundle/gems/actionpack-7.1.2/lib/action_controller/metal.rb", "actionpack/metal.rb"],
    ["/var/www/shop/vendor/symfony/http-kernel/HttpKernel.php", "symfony/http-kernel/httpkernel.php"],
    // Pseudo-files keep their names.
    ["node:internal/process/task_queues", "task_queues"],
    ["<anonymous>", "<anonymous>"],
    ["[native code]", "[native code]"],
    ["", ""],
  ])("%s -> %s", (path, expected) => {
    expect(normalizeFile(path)).toBe(expected);
  });

  it("is the same for a bundle before and after a rebuild", () => {
    expect(stripContentHash("index-BdQq_4o_.js")).toBe(stripContentHash("index-C8x-kP2q.js"));
    expect(stripContentHash("main.3f9a1c2b.js")).toBe(stripContentHash("main.77aa01bc.js"));
  });
});

describe("normalizeFunction", () => {
  const cases: [StackPlatform, string, string][] = [
    ["javascript", "Object.<anonymous>", ""],
    ["javascript", "<anonymous>", ""],
    ["javascript", "async checkout", "checkout"],
    ["javascript", "new Cart", "Cart"],
    ["javascript", "Layer.handle [as handle_request]", "handle"],
    ["javascript", "get total [as total]", "total"],
    ["javascript", "Object.each", "each"],
    ["javascript", "Module.each", "each"],
    ["javascript", "total/<", ""],
    ["javascript", "render/fetchData", "fetchData"],
    ["python", "OrderService.total", "total"],
    ["python", "<genexpr>", "<genexpr>"],
    ["java", "lambda$checkout$0", "lambda$checkout"],
    ["java", "lambda$checkout$12", "lambda$checkout"],
    ["java", "access$000", "access$"],
    ["java", "<init>", "<init>"],
    ["go", "recoverer.func1", "recoverer.func"],
    ["go", "(*Server).handle.func2.1", "(*Server).handle.func"],
    ["go", "main.gowrap3", "main.gowrap"],
    ["ruby", "Cart#total", "total"],
    ["ruby", "total", "total"],
    ["ruby", "block (2 levels) in Cart#total", "block in total"],
    ["ruby", "block in total", "block in total"],
    ["ruby", "Integer.sqrt", "sqrt"],
    ["ruby", "<main>", "<main>"],
    ["ruby", "_app_views_orders_show_html_erb__3617129044557125281_61320", "_app_views_orders_show_html_erb"],
    ["php", "{closure}", "{closure}"],
    ["php", "{closure:/var/www/src/Cart.php:12}", "{closure}"],
    ["php", "App\\{closure}", "{closure}"],
    ["dotnet", "<Place>b__3_0", "<Place>b__"],
    ["dotnet", "<<Main>$>g__Local|0_0", "<<Main>$>g__Local"],
  ];
  it.each(cases)("%s: %s -> %s", (platform, fn, expected) => {
    expect(normalizeFunction(fn, platform)).toBe(expected);
  });
});

describe("normalizeModule", () => {
  const cases: [StackPlatform, string, string][] = [
    ["java", "com.acme.OrderService$$SpringCGLIB$$0", "com.acme.OrderService$$SpringCGLIB"],
    ["java", "com.acme.OrderService$$EnhancerBySpringCGLIB$$a1b2c3d4", "com.acme.OrderService$$EnhancerBySpringCGLIB"],
    ["java", "com.acme.Main$$Lambda$14/0x0000000800c03000", "com.acme.Main$$Lambda"],
    ["java", "com.acme.Main$$Lambda/0x000001f0010c2d18", "com.acme.Main$$Lambda"],
    ["java", "jdk.internal.reflect.GeneratedMethodAccessor42", "jdk.internal.reflect.GeneratedMethodAccessor"],
    ["java", "com.sun.proxy.$Proxy123", "com.sun.proxy.$Proxy"],
    ["java", "com.acme.Entry_$$_javassist_74", "com.acme.Entry_$$_javassist"],
    ["java", "com.acme.Outer$Inner", "com.acme.Outer$Inner"],
    ["dotnet", "Shop.Orders.OrderService.<>c", "Shop.Orders.OrderService"],
    ["dotnet", "Shop.Orders.OrderService.<>c__DisplayClass3_0", "Shop.Orders.OrderService"],
    ["dotnet", "Shop.Orders.CheckoutService.<CheckoutAsync>d__4", "Shop.Orders.CheckoutService"],
    ["php", "class@anonymous/var/www/src/x.php:3$0", "class@anonymous"],
    ["javascript", "app:///dist/cart", ""],
    ["javascript", "cart", "cart"],
  ];
  it.each(cases)("%s: %s -> %s", (platform, module, expected) => {
    expect(normalizeModule(module, platform)).toBe(expected);
  });
});

describe("frameKeyParts", () => {
  it("takes the module when there is one, else the file's name; never a line or column", () => {
    expect(frameKeyParts({ module: "com.acme.Cart", function: "total", filename: "Cart.java", lineno: 3 }, "java")).toEqual(["com.acme.Cart", "total"]);
    expect(frameKeyParts({ filename: "/srv/app/src/cart.ts", abs_path: "/srv/app/src/cart.ts", function: "price", lineno: 9, colno: 4 }, "javascript")).toEqual(["cart.ts", "price"]);
    expect(frameKeyParts({ abs_path: "/a/b/cart.ts", function: "price", lineno: 1 }, "javascript")).toEqual(frameKeyParts({ abs_path: "/c/cart.ts", function: "price", lineno: 99 }, "javascript"));
  });
});

describe("in-app rules", () => {
  it("has unique names, and each rule matches its own example", () => {
    expect(new Set(NOT_IN_APP_RULES.map((r) => r.name)).size).toBe(NOT_IN_APP_RULES.length);
    for (const rule of NOT_IN_APP_RULES) {
      const platform = rule.platforms === "all" ? undefined : rule.platforms[0];
      expect(notInAppRule(rule.example, platform)?.name, rule.name).toBe(rule.name);
    }
  });

  const library: [StackPlatform, object][] = [
    ["javascript", { abs_path: "/app/node_modules/express/lib/router/index.js" }],
    ["javascript", { abs_path: "C:\\app\\node_modules\\express\\index.js" }],
    ["javascript", { abs_path: "node:internal/timers" }],
    ["javascript", { abs_path: "internal/process/task_queues.js" }],
    ["javascript", { abs_path: "events.js" }],
    ["javascript", { abs_path: "<anonymous>", function: "Array.map" }],
    ["javascript", { abs_path: "webpack:///webpack/bootstrap" }],
    ["javascript", { abs_path: "https://shop.example.com/_next/static/chunks/framework-0a1b2c3d.js" }],
    ["javascript", { abs_path: "chrome-extension://abcdef/content.js" }],
    ["python", { abs_path: "/usr/lib/python3.12/json/decoder.py" }],
    ["python", { abs_path: "/app/.venv/lib/python3.12/site-packages/django/core/handlers/base.py" }],
    ["python", { abs_path: "/usr/lib/python3/dist-packages/requests/models.py" }],
    ["python", { abs_path: "C:\\Python311\\Lib\\json\\decoder.py" }],
    ["python", { abs_path: "<frozen importlib._bootstrap>" }],
    ["java", { module: "java.util.concurrent.ThreadPoolExecutor" }],
    ["java", { module: "javax.servlet.http.HttpServlet" }],
    ["java", { module: "jdk.internal.reflect.DirectMethodHandleAccessor" }],
    ["java", { module: "sun.reflect.NativeMethodAccessorImpl" }],
    ["java", { module: "kotlin.collections.CollectionsKt" }],
    ["java", { module: "kotlinx.coroutines.DispatchedTask" }],
    ["java", { module: "scala.collection.immutable.List" }],
    ["java", { module: "org.springframework.web.servlet.DispatcherServlet" }],
    ["java", { module: "com.acme.OrderService$$SpringCGLIB$$0" }],
    ["go", { module: "runtime", abs_path: "/usr/local/go/src/runtime/panic.go" }],
    ["go", { module: "net/http", abs_path: "/usr/local/go/src/net/http/server.go" }],
    ["go", { abs_path: "/usr/local/go/src/runtime/proc.go" }],
    ["go", { module: "github.com/gin-gonic/gin", abs_path: "/go/pkg/mod/github.com/gin-gonic/gin@v1.9.1/context.go" }],
    ["go", { module: "github.com/lib/pq", abs_path: "github.com/lib/pq@v1.10.9/conn.go" }],
    ["go", { module: "github.com/acme/shop/vendor_pkg", abs_path: "/app/vendor/github.com/x/y/z.go" }],
    ["ruby", { abs_path: "/usr/local/bundle/gems/rack-3.0.8/lib/rack/builder.rb" }],
    ["ruby", { abs_path: "/var/lib/gems/3.1.0/gems/puma-6.4.0/lib/puma/server.rb" }],
    ["ruby", { abs_path: "/app/vendor/bundle/ruby/3.3.0/gems/rails-7.1.2/lib/rails.rb" }],
    ["ruby", { abs_path: "/usr/local/lib/ruby/3.3.0/net/http.rb" }],
    ["ruby", { abs_path: "<internal:kernel>" }],
    ["php", { abs_path: "/var/www/shop/vendor/laravel/framework/src/Illuminate/Pipeline/Pipeline.php" }],
    ["php", { function: "array_map" }],
    ["dotnet", { module: "System.Linq.Enumerable" }],
    ["dotnet", { module: "Microsoft.AspNetCore.Mvc.Infrastructure.ActionMethodExecutor" }],
  ];
  it.each(library)("%s: %j is not in app", (platform, frame) => {
    expect(isInApp(frame, platform)).toBe(false);
  });

  const app: [StackPlatform, object][] = [
    ["javascript", { abs_path: "/srv/app/src/cart.js" }],
    ["javascript", { abs_path: "https://shop.example.com/assets/index-BdQq_4o_.js" }],
    ["javascript", { abs_path: "webpack-internal:///./src/components/ProductList.tsx" }],
    ["javascript", { abs_path: "[eval]" }],
    ["python", { abs_path: "/app/shop/views.py" }],
    ["python", { abs_path: "<string>" }],
    ["java", { module: "com.acme.shop.Cart" }],
    ["go", { module: "main", abs_path: "/app/main.go" }],
    ["go", { module: "github.com/acme/shop/cart", abs_path: "/home/runner/work/shop/cart/cart.go" }],
    ["go", { module: "github.com/acme/shop/cart", abs_path: "github.com/acme/shop/cart/cart.go" }],
    ["go", { abs_path: "/go/src/github.com/acme/shop/main.go" }],
    ["ruby", { abs_path: "/app/app/models/cart.rb" }],
    ["php", { abs_path: "/var/www/shop/src/Cart.php" }],
    ["dotnet", { module: "Shop.Orders.OrderService" }],
  ];
  it.each(app)("%s: %j is in app", (platform, frame) => {
    expect(isInApp(frame, platform)).toBe(true);
  });

  it("takes Sentry's own in_app over the rules", () => {
    expect(isInApp({ abs_path: "/app/node_modules/@acme/shared/index.js", in_app: true }, "javascript")).toBe(true);
    expect(isInApp({ abs_path: "/app/src/generated.js", in_app: false }, "javascript")).toBe(false);
  });

  it("applies a platform's module rules only to that platform", () => {
    expect(isInApp({ module: "java.util.List" }, "python")).toBe(true);
    expect(isInApp({ module: "System.Web" }, "java")).toBe(true);
  });

  it("knows Sentry's platform names, and a frame's platform by its file", () => {
    expect(platformFromSentry("node")).toBe("javascript");
    expect(platformFromSentry("csharp")).toBe("dotnet");
    expect(platformFromSentry("kotlin")).toBe("java");
    expect(platformFromSentry("elixir")).toBeUndefined();
    expect(platformFromSentry(3)).toBeUndefined();
    expect(platformOfFrame({ filename: "https://x.example/app.tsx?v=1" })).toBe("javascript");
    expect(platformOfFrame({ filename: "/app/Cart.kt" })).toBe("java");
    expect(platformOfFrame({ abs_path: "/app/views.py" })).toBe("python");
    expect(platformOfFrame({ filename: "/app/Makefile" })).toBeUndefined();
    expect(platformOfFrame({ filename: "/app.d/run" })).toBeUndefined();
  });
});
