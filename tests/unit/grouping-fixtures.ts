/**
 * Stack strings for the grouping tests. The Node.js and Python ones were
 * printed by the runtimes (Node.js 20, CPython 3.11); the others are
 * written from the formats their runtimes document.
 */

/** `error.stack` of a TypeError thrown in src/cart.js (Node.js 20, CommonJS). */
export const NODE_CART = `TypeError: Cannot read properties of null (reading 'price')
    at price (/tmp/shop/src/cart.js:2:44)
    at Array.map (<anonymous>)
    at total (/tmp/shop/src/cart.js:3:38)
    at Object.<anonymous> (/tmp/shop/src/cart.js:11:9)
    at Module._compile (node:internal/modules/cjs/loader:1521:14)
    at Module._extensions..js (node:internal/modules/cjs/loader:1623:10)
    at Module.load (node:internal/modules/cjs/loader:1266:32)
    at Module._load (node:internal/modules/cjs/loader:1091:12)
    at Function.executeUserEntryPoint [as runMain] (node:internal/modules/run_main:164:12)
    at node:internal/main/run_main_module:28:49`;

/** `console.log(error)` of an error with a cause: Node prints the chain with `[cause]:`. */
export const NODE_WITH_CAUSE = `CheckoutError: checkout of cart 42 failed
    at checkout (/tmp/shop/src/cart.js:7:63)
    at process.processTicksAndRejections (node:internal/process/task_queues:95:5) {
  [cause]: TypeError: Cannot read properties of undefined (reading 'length')
      at /tmp/shop/src/cart.js:4:77
      at Array.map (<anonymous>)
      at Object.query (/tmp/shop/node_modules/fakeorm/index.js:1:81)
      at process.processTicksAndRejections (node:internal/process/task_queues:95:5)
}`;

/** What Node prints on stderr when `node -e` dies of an uncaught error: source position and line first. */
export const NODE_CRASH = `/tmp/shop/src/cart.js:2
function price(item) { return item.product.price; }
                                           ^

TypeError: Cannot read properties of undefined (reading 'price')
    at price (/tmp/shop/src/cart.js:2:44)
    at Array.map (<anonymous>)
    at Object.total (/tmp/shop/src/cart.js:3:38)
    at [eval]:1:34
    at runScriptInThisContext (node:internal/vm:209:10)
    at node:internal/process/execution:118:14
    at [eval]-wrapper:6:24
    at runScript (node:internal/process/execution:101:62)
    at evalScript (node:internal/process/execution:133:3)
    at node:internal/main/eval_string:51:3

Node.js v20.20.2`;

/** CPython 3.11, an exception raised `from` a KeyError. */
export const PYTHON_CAUSE = `Traceback (most recent call last):
  File "/tmp/shop/py/shop.py", line 8, in checkout
    return Cart(json.loads(payload)["lines"]).total()
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/tmp/shop/py/shop.py", line 5, in total
    return sum(line["price"] * line["qty"] for line in self.lines)
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/tmp/shop/py/shop.py", line 5, in <genexpr>
    return sum(line["price"] * line["qty"] for line in self.lines)
               ~~~~^^^^^^^^^
KeyError: 'price'

The above exception was the direct cause of the following exception:

Traceback (most recent call last):
  File "<string>", line 1, in <module>
  File "/tmp/shop/py/shop.py", line 10, in checkout
    raise ValueError("invalid cart") from e
ValueError: invalid cart`;

/** CPython 3.11, an exception raised while handling another (json in the standard library). */
export const PYTHON_CONTEXT = `Traceback (most recent call last):
  File "<string>", line 5, in parse
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/json/__init__.py", line 346, in loads
    return _default_decoder.decode(s)
           ^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/json/decoder.py", line 337, in decode
    obj, end = self.raw_decode(s, idx=_w(s, 0).end())
               ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/json/decoder.py", line 353, in raw_decode
    obj, end = self.scan_once(s, idx)
               ^^^^^^^^^^^^^^^^^^^^^^
json.decoder.JSONDecodeError: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)

During handling of the above exception, another exception occurred:

Traceback (most recent call last):
  File "<string>", line 8, in <module>
  File "<string>", line 7, in parse
KeyError: 'missing'`;

/** CPython 3.11, failing under a library in site-packages (click). */
export const PYTHON_LIBRARY = `Traceback (most recent call last):
  File "<string>", line 8, in <module>
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/click/core.py", line 1524, in __call__
    return self.main(*args, **kwargs)
           ^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/click/core.py", line 1445, in main
    rv = self.invoke(ctx)
         ^^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/click/core.py", line 1308, in invoke
    return ctx.invoke(self.callback, **ctx.params)
           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^
  File "/root/.pyenv/versions/3.11.7/lib/python3.11/site-packages/click/core.py", line 877, in invoke
    return callback(*args, **kwargs)
           ^^^^^^^^^^^^^^^^^^^^^^^^^
  File "<string>", line 7, in cli
KeyError: 3`;

/** CPython 3.11, a RecursionError: Python folds the repeated frames. */
export const PYTHON_RECURSION = `Traceback (most recent call last):
  File "<string>", line 3, in <module>
  File "<string>", line 2, in walk
  File "<string>", line 2, in walk
  File "<string>", line 2, in walk
  [Previous line repeated 996 more times]
RecursionError: maximum recursion depth exceeded`;

/** Chrome, a Vite build: the content hash is in the file name. */
export const CHROME_BUNDLE = `TypeError: Cannot read properties of undefined (reading 'price')
    at price (https://shop.example.com/assets/index-BdQq_4o_.js:1:2044)
    at Array.map (<anonymous>)
    at total (https://shop.example.com/assets/index-BdQq_4o_.js:1:2098)
    at HTMLButtonElement.onClick (https://shop.example.com/assets/index-BdQq_4o_.js:1:4410)`;

/** Webpack in development: webpack-internal paths and the bundler's runtime. */
export const WEBPACK_DEV = `TypeError: Cannot read properties of undefined (reading 'map')
    at ProductList (webpack-internal:///./src/components/ProductList.tsx:14:27)
    at renderWithHooks (webpack-internal:///./node_modules/react-dom/cjs/react-dom.development.js:16305:18)
    at mountIndeterminateComponent (webpack-internal:///./node_modules/react-dom/cjs/react-dom.development.js:20074:13)
    at __webpack_require__ (webpack:///webpack/bootstrap:24:1)`;

/** Firefox: `function@url:line:column`, no header line; `/<` marks an inner function. */
export const FIREFOX = `price@http://localhost:3000/static/js/main.3f9a1c2b.js:1:2044
total/<@http://localhost:3000/static/js/main.3f9a1c2b.js:1:2110
total@http://localhost:3000/static/js/main.3f9a1c2b.js:1:2098
promise callback*checkout@http://localhost:3000/static/js/main.3f9a1c2b.js:1:4410
@http://localhost:3000/static/js/main.3f9a1c2b.js:1:5000`;

/** Safari: native frames and `global code`. */
export const SAFARI = `price@https://shop.example.com/assets/index-BdQq_4o_.js:1:2044
map@[native code]
total@https://shop.example.com/assets/index-BdQq_4o_.js:1:2098
global code@https://shop.example.com/assets/index-BdQq_4o_.js:1:5000`;

/** A Spring Boot log: logback's packaging data, a CGLIB proxy, a cause with "common frames omitted". */
export const JAVA_SPRING = `2026-11-22T10:15:30.123Z ERROR 1 --- [shop] [nio-8080-exec-3] o.a.c.c.C.[.[.[/].[dispatcherServlet]    : Servlet.service() for servlet [dispatcherServlet] threw exception with root cause

java.lang.IllegalStateException: Order 1042 could not be placed
	at com.acme.shop.orders.OrderService.place(OrderService.java:57) ~[classes/:na]
	at com.acme.shop.orders.OrderService$$SpringCGLIB$$0.place(<generated>) ~[classes/:na]
	at com.acme.shop.orders.OrderController.create(OrderController.java:31) ~[classes/:na]
	at java.base/jdk.internal.reflect.DirectMethodHandleAccessor.invoke(DirectMethodHandleAccessor.java:103) ~[na:na]
	at java.base/java.lang.reflect.Method.invoke(Method.java:580) ~[na:na]
	at org.springframework.web.method.support.InvocableHandlerMethod.doInvoke(InvocableHandlerMethod.java:255) ~[spring-web-6.1.2.jar:6.1.2]
	at org.springframework.web.servlet.FrameworkServlet.service(FrameworkServlet.java:885) ~[spring-webmvc-6.1.2.jar:6.1.2]
	at org.apache.tomcat.util.threads.TaskThread$WrappingRunnable.run(TaskThread.java:61) ~[tomcat-embed-core-10.1.17.jar:10.1.17]
	at java.base/java.lang.Thread.run(Thread.java:1583) ~[na:na]
Caused by: java.lang.NullPointerException: Cannot invoke "com.acme.shop.catalog.Price.amount()" because "price" is null
	at com.acme.shop.cart.Cart.total(Cart.java:42) ~[classes/:na]
	at com.acme.shop.orders.OrderService.place(OrderService.java:52) ~[classes/:na]
	... 7 common frames omitted`;

/** printStackTrace(): a cause with "... n more", a native method, a suppressed exception. */
export const JAVA_PLAIN = `Exception in thread "main" java.lang.RuntimeException: Could not load config
	at com.acme.App.loadConfig(App.java:25)
	at com.acme.App.main(App.java:10)
	Suppressed: java.lang.IllegalStateException: close failed
		at com.acme.App.close(App.java:40)
		... 2 more
Caused by: java.io.FileNotFoundException: config.yml (No such file or directory)
	at java.base/java.io.FileInputStream.open0(Native Method)
	at java.base/java.io.FileInputStream.open(FileInputStream.java:213)
	at java.base/java.io.FileInputStream.<init>(FileInputStream.java:152)
	at com.acme.App.loadConfig(App.java:22)
	... 1 more`;

/** Kotlin: top-level functions live in a class named after the file. */
export const KOTLIN = `Exception in thread "main" java.lang.IllegalArgumentException: Quantity must be positive: -1
	at com.acme.shop.CartKt.addItem(Cart.kt:14)
	at com.acme.shop.MainKt.main(Main.kt:7)
	at com.acme.shop.MainKt.main(Main.kt)`;

/** A Go panic in an HTTP handler. */
export const GO_PANIC = `panic: runtime error: invalid memory address or nil pointer dereference
[signal SIGSEGV: segmentation violation code=0x1 addr=0x0 pc=0x4a5f2b]

goroutine 18 [running]:
github.com/acme/shop/cart.(*Cart).Total(0x0)
	/home/runner/work/shop/cart/cart.go:27 +0x1b
github.com/acme/shop/api.(*Server).checkout(0xc0000a6000, {0x7a3e20, 0xc0001c2000}, 0xc0001b6100)
	/home/runner/work/shop/api/checkout.go:41 +0x85
github.com/go-chi/chi/v5.(*Mux).routeHTTP(0xc0000a8000, {0x7a3e20, 0xc0001c2000}, 0xc0001b6100)
	/root/go/pkg/mod/github.com/go-chi/chi/v5@v5.0.11/mux.go:444 +0x216
net/http.HandlerFunc.ServeHTTP(0xc0000b4018, {0x7a3e20, 0xc0001c2000}, 0xc0001b6100)
	/usr/local/go/src/net/http/server.go:2166 +0x29
net/http.(*conn).serve(0xc0001b0090, {0x7a4448, 0xc000092ea0})
	/usr/local/go/src/net/http/server.go:2039 +0x5e8
created by net/http.(*Server).Serve in goroutine 1
	/usr/local/go/src/net/http/server.go:3285 +0x4b4

goroutine 1 [IO wait]:
internal/poll.runtime_pollWait(0x7f2c1c0a0e28, 0x72)
	/usr/local/go/src/runtime/netpoll.go:343 +0x85
exit status 2`;

/** debug.Stack() from a recover in a closure. */
export const GO_DEBUG_STACK = `goroutine 7 [running]:
runtime/debug.Stack()
	/usr/local/go/src/runtime/debug/stack.go:24 +0x5e
main.recoverer.func1()
	/app/main.go:31 +0x45
panic({0x6b7a20?, 0x8f2c30?})
	/usr/local/go/src/runtime/panic.go:914 +0x21f
main.parsePrice({0xc000016078, 0x3})
	/app/price.go:12 +0x89
main.handler({0x7a3e20, 0xc0001c2000}, 0xc0001b6100)
	/app/main.go:44 +0x2c`;

/** Ruby 3.3: backtick-quoted labels, a gem and the standard library. */
export const RUBY_33 = `/app/app/models/cart.rb:12:in \`block in total': undefined method \`price' for nil (NoMethodError)
	from /app/app/models/cart.rb:12:in \`map'
	from /app/app/models/cart.rb:12:in \`total'
	from /app/app/controllers/carts_controller.rb:8:in \`show'
	from /usr/local/bundle/gems/actionpack-7.1.2/lib/action_controller/metal/basic_implicit_render.rb:6:in \`send_action'
	from /usr/local/lib/ruby/3.3.0/benchmark.rb:311:in \`realtime'`;

/** Ruby 3.4: labels in single quotes with the class. */
export const RUBY_34 = `/app/app/models/cart.rb:14:in 'block in Cart#total': undefined method 'price' for nil (NoMethodError)
	from /app/app/models/cart.rb:14:in 'Array#map'
	from /app/app/models/cart.rb:14:in 'Cart#total'
	from /app/app/controllers/carts_controller.rb:9:in 'CartsController#show'
	from /usr/local/bundle/gems/actionpack-8.0.1/lib/action_controller/metal/basic_implicit_render.rb:8:in 'ActionController::BasicImplicitRender#send_action'`;

/** Ruby 3.4 with a cause, printed after the exception. */
export const RUBY_CAUSE = `app.rb:9:in 'Checkout#run': checkout failed (Checkout::Error)
	from app.rb:15:in '<main>'
app.rb:5:in 'Checkout#charge': card declined (Payment::Declined)
	from app.rb:8:in 'Checkout#run'
	from app.rb:15:in '<main>'`;

/** Ruby 2.6 on a terminal: numbered, oldest call first. */
export const RUBY_NUMBERED = `Traceback (most recent call last):
	2: from app.rb:7:in \`<main>'
	1: from app.rb:4:in \`checkout'
app.rb:2:in \`total': undefined method \`price' for nil:NilClass (NoMethodError)`;

/** PHP 8, uncaught, in a Symfony app. */
export const PHP_UNCAUGHT = `PHP Fatal error:  Uncaught InvalidArgumentException: Price must be positive, got -5 in /var/www/shop/src/Cart.php:42
Stack trace:
#0 /var/www/shop/src/Cart.php(17): App\\Cart->setPrice(-5)
#1 /var/www/shop/src/Controller/CartController.php(28): App\\Cart->add(Object(App\\Product), 2)
#2 /var/www/shop/vendor/symfony/http-kernel/HttpKernel.php(181): App\\Controller\\CartController->add(Object(Symfony\\Component\\HttpFoundation\\Request))
#3 /var/www/shop/vendor/symfony/http-kernel/HttpKernel.php(76): Symfony\\Component\\HttpKernel\\HttpKernel->handleRaw(Object(Symfony\\Component\\HttpFoundation\\Request), 1)
#4 /var/www/shop/public/index.php(20): Symfony\\Component\\HttpKernel\\HttpKernel->handle(Object(Symfony\\Component\\HttpFoundation\\Request))
#5 {main}
  thrown in /var/www/shop/src/Cart.php on line 42`;

/** Throwable::__toString() with a previous exception, and a closure called by PHP. */
export const PHP_CHAINED = `PDOException: SQLSTATE[23000]: Integrity constraint violation: 1062 Duplicate entry 'a@example.com' for key 'users.email' in /var/www/shop/src/UserRepository.php:31
Stack trace:
#0 /var/www/shop/src/UserRepository.php(31): PDOStatement->execute(Array)
#1 [internal function]: App\\UserRepository->App\\{closure}(Array)
#2 /var/www/shop/src/SignupService.php(22): array_map(Object(Closure), Array)
#3 {main}

Next App\\Exception\\SignupFailed: Could not sign up in /var/www/shop/src/SignupService.php:25
Stack trace:
#0 /var/www/shop/public/signup.php(12): App\\SignupService->signup('a@example.com')
#1 {main}`;

/** .NET 8: an inner exception, a lambda, framework frames. */
export const DOTNET_INNER = `Unhandled exception. System.InvalidOperationException: Order 1042 could not be placed
 ---> System.FormatException: The input string 'abc' was not in a correct format.
   at System.Number.ThrowFormatException[TChar](ReadOnlySpan\`1 value)
   at System.Decimal.Parse(String s)
   at Shop.Pricing.PriceParser.Parse(String text) in /src/Shop/Pricing/PriceParser.cs:line 14
   at Shop.Orders.OrderService.<>c.<Place>b__3_0(String line) in /src/Shop/Orders/OrderService.cs:line 40
   at System.Linq.Enumerable.SelectListIterator\`2.ToList()
   at Shop.Orders.OrderService.Place(Cart cart) in /src/Shop/Orders/OrderService.cs:line 40
   --- End of inner exception stack trace ---
   at Shop.Orders.OrderService.Place(Cart cart) in /src/Shop/Orders/OrderService.cs:line 47
   at Shop.Api.OrdersController.Create(OrderRequest request) in /src/Shop/Api/OrdersController.cs:line 22
   at Microsoft.AspNetCore.Mvc.Infrastructure.ActionMethodExecutor.SyncActionResultExecutor.Execute(ActionContext actionContext, IActionResultTypeMapper mapper, ObjectMethodExecutor executor, Object controller, Object[] arguments)`;

/** .NET Framework async: state machines, a Windows build path. */
export const DOTNET_ASYNC = `System.Net.Http.HttpRequestException: Response status code does not indicate success: 503 (Service Unavailable).
   at System.Net.Http.HttpResponseMessage.EnsureSuccessStatusCode()
   at Shop.Payments.StripeClient.<ChargeAsync>d__7.MoveNext() in C:\\build\\agent\\_work\\3\\s\\src\\Shop\\Payments\\StripeClient.cs:line 58
--- End of stack trace from previous location where exception was thrown ---
   at System.Runtime.CompilerServices.TaskAwaiter.ThrowForNonSuccess(Task task)
   at Shop.Orders.CheckoutService.<CheckoutAsync>d__4.MoveNext() in C:\\build\\agent\\_work\\3\\s\\src\\Shop\\Orders\\CheckoutService.cs:line 33`;
