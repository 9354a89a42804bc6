import { seededRandom } from "@/harness/bench/random";
import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { issueGroupingKey, looksGenerated, MAX_TEMPLATE_CHARS, messageTemplate } from "@/lib/issues/template";

/** Real-looking messages and their exact templates. */
const TABLE: [message: string, template: string][] = [
  ["TypeError: Cannot read properties of undefined (reading 'map')", "TypeError: Cannot read properties of undefined (reading '<str>')"],
  ["TypeError: Cannot read properties of null (reading 'id')", "TypeError: Cannot read properties of null (reading '<str>')"],
  ["TypeError: x.map is not a function", "TypeError: x.map is not a function"],
  ["ReferenceError: fetch is not defined", "ReferenceError: fetch is not defined"],
  ["at Object.<anonymous> (/app/src/index.js:12:5)", "at Object.<anonymous> (/app/src/index.js:<num>:<num>)"],
  ["at processTicksAndRejections (node:internal/process/task_queues:95:5)", "at processTicksAndRejections (node:internal/process/task_queues:<num>:<num>)"],
  ["at async Promise.all (index 3)", "at async Promise.all (index <num>)"],
  ["SyntaxError: Unexpected token '<', \"<!DOCTYPE \"... is not valid JSON", "SyntaxError: Unexpected token '<str>', \"<str>\"... is not valid JSON"],
  ["SyntaxError: Unexpected end of JSON input at position 1024", "SyntaxError: Unexpected end of JSON input at position <num>"],
  ["RangeError: Maximum call stack size exceeded", "RangeError: Maximum call stack size exceeded"],
  ["Error: ENOENT: no such file or directory, open '/var/data/uploads/8f3a9c2e.png'", "Error: ENOENT: no such file or directory, open '<str>'"],
  ["Error: listen EADDRINUSE: address already in use :::3000", "Error: listen EADDRINUSE: address already in use <ip>"],
  ["connect ECONNREFUSED 10.0.0.12:5432", "connect ECONNREFUSED <ip>"],
  ["connect ETIMEDOUT 52.94.236.248:443", "connect ETIMEDOUT <ip>"],
  ["getaddrinfo ENOTFOUND db-replica-3.internal", "getaddrinfo ENOTFOUND db-replica-<num>.internal"],
  ["KeyError: 'user_id'", "KeyError: '<str>'"],
  ["ValueError: invalid literal for int() with base 10: 'abc'", "ValueError: invalid literal for int() with base <num>: '<str>'"],
  ["ZeroDivisionError: division by zero", "ZeroDivisionError: division by zero"],
  ["java.lang.NullPointerException at com.acme.Foo.bar(Foo.java:42)", "java.lang.NullPointerException at com.acme.Foo.bar(Foo.java:<num>)"],
  ["java.lang.OutOfMemoryError: Java heap space", "java.lang.OutOfMemoryError: Java heap space"],
  ["panic: runtime error: index out of range [5] with length 3", "panic: runtime error: index out of range [<num>] with length <num>"],
  ["goroutine 42 [running]:", "goroutine <num> [running]:"],
  ['duplicate key value violates unique constraint "users_email_key"', 'duplicate key value violates unique constraint "<str>"'],
  ["ERROR: deadlock detected DETAIL: Process 12345 waits for ShareLock on transaction 67890; blocked by process 54321.", "ERROR: deadlock detected DETAIL: Process <num> waits for ShareLock on transaction <num>; blocked by process <num>."],
  ['relation "orders_2024" does not exist', 'relation "<str>" does not exist'],
  ["canceling statement due to statement timeout", "canceling statement due to statement timeout"],
  ["could not serialize access due to concurrent update", "could not serialize access due to concurrent update"],
  ["Deadlock found when trying to get lock; try restarting transaction", "Deadlock found when trying to get lock; try restarting transaction"],
  ["Error 1045 (28000): Access denied for user 'root'@'localhost' (using password: YES)", "Error <num> (<num>): Access denied for user '<str>'@'<str>' (using password: YES)"],
  ["GET https://api.stripe.com/v1/charges?limit=3 -> 429", "GET https://api.stripe.com/v1/charges?<query> -> <num>"],
  ["POST /api/events 413 Payload Too Large (1048577 bytes)", "POST /api/events <num> Payload Too Large (<num> bytes)"],
  ["GET /api/orders/123?page=2 returned 500", "GET /api/orders/<num>?<query> returned <num>"],
  ['upstream timed out (110: Connection timed out) while reading response header from upstream, client: 10.1.2.3, server: api.example.com, request: "GET /health HTTP/1.1"', 'upstream timed out (<num>: Connection timed out) while reading response header from upstream, client: <ip>, server: api.example.com, request: "<str>"'],
  ["HTTP 503 Service Unavailable from https://hooks.slack.com/services/T0001/B0002/XYZ123abc", "HTTP <num> Service Unavailable from https://hooks.slack.com/services/<id>/<id>/<id>"],
  ["Request failed with status code 502", "Request failed with status code <num>"],
  ["fetch failed: request to https://api.example.com/users/42/orders/ord_8f3k2a1c?expand=items#top failed", "fetch failed: request to https://api.example.com/users/<num>/orders/<id>?<query> failed"],
  ["Stripe API timeout after 30000ms while charging order ord_x1", "Stripe API timeout after <duration> while charging order <id>"],
  ["Payment intent pi_3MtwBwLkdIwHu7ix28a3tqPa requires action", "Payment intent <id> requires action"],
  ["Customer cus_Nf7Qx2 has no default payment method", "Customer <id> has no default payment method"],
  ["Webhook signature verification failed for evt_1NG8Du2eZvKYlo2CtLsSx5Ux", "Webhook signature verification failed for <id>"],
  ["User 42 not found", "User <num> not found"],
  ["User alice@example.com signed in from 192.168.1.24", "User <email> signed in from <ip>"],
  ["Invalid email: c.d+e@example.org", "Invalid email: <email>"],
  ["Request 550e8400-e29b-41d4-a716-446655440000 failed", "Request <uuid> failed"],
  ["Trace 4BF92F3577B34DA6A3CE929D0E0E4736 exceeded budget", "Trace <id> exceeded budget"],
  ["Listening on [2001:db8::8a2e:370:7334]:8080", "Listening on [<ip>]:<num>"],
  ["Connection reset by peer fe80::1ff:fe23:4567:890a%eth0", "Connection reset by peer <ip>"],
  ["Cron job started at 2026-11-22T10:15:30.123Z", "Cron job started at <time>"],
  ["Backup finished 2026-11-22 10:15:30 (took 2m30s)", "Backup finished <time> (took <duration>)"],
  ["Nov 22 10:15:30 web-1 sshd[1234]: Failed password for root from 10.0.0.5 port 22 ssh2", "<time> web-<num> sshd[<num>]: Failed password for root from <ip> port <num> ssh2"],
  ["Slow query took 1.5s (threshold 200ms)", "Slow query took <duration> (threshold <duration>)"],
  ["Event loop blocked for 3 ms", "Event loop blocked for <duration>"],
  ["Retrying in 5 seconds (attempt 3 of 5)", "Retrying in <duration> (attempt <num> of <num>)"],
  ["Deployed commit 3f2c1ab9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3 to production", "Deployed commit <id> to production"],
  ["Deployed 3f2c1ab in 42s", "Deployed <id> in <duration>"],
  ["Segmentation fault at address 0x7ffd5e8c1a2b", "Segmentation fault at address <hex>"],
  ["Container 4f66ad9a0b2e exited with code 137", "Container <id> exited with code <num>"],
  ["Back-off restarting failed container in pod api-7d9f8b6c5-x2k4q", "Back-off restarting failed container in pod api-<id>-<id>"],
  ["Pod worker-5c8d7f9b6d-qwzx2 evicted: ephemeral-storage usage 12Gi exceeds limit 10Gi", "Pod worker-<id>-<id> evicted: ephemeral-storage usage <num>Gi exceeds limit <num>Gi"],
  ["Memory usage at 93% (7.4GB of 8GB)", "Memory usage at <num>% (<num>GB of <num>GB)"],
  ["Disk /dev/sda1 is 97.5% full", "Disk /dev/sda1 is <num>% full"],
  ["Rate limit exceeded for key tlt_9aZ3kLmN0pQrStUvWxYz12345678901234abcdef", "Rate limit exceeded for key <id>"],
  ["Session a1b2c3d4e5f6 expired", "Session <id> expired"],
  ["Cache miss for key session:7c4a8d09ca3762af61e59520943dc26494f8941b", "Cache miss for key session:<id>"],
  ["Job 8f14e45f-ceea-467f-a9b8-4b4c5d6e7f80 failed after 3 retries", "Job <uuid> failed after <num> retries"],
  ["Worker node12 lost heartbeat", "Worker node12 lost heartbeat"],
  ["TLS handshake failed: unsupported protocol TLSv1.0", "TLS handshake failed: unsupported protocol TLSv1.0"],
  ["Invalid UTF-8 sequence in header X-Request-Id", "Invalid UTF-8 sequence in header X-Request-Id"],
  ["Build failed on node v20.11.1 (linux x86_64)", "Build failed on node v<num> (linux x86_64)"],
  ["e2e tests failed on utf8 and base64 inputs with sha256 checksum", "e2e tests failed on utf8 and base64 inputs with sha256 checksum"],
  ["Payment failed", "Payment failed"],
  ["Payment succeeded", "Payment succeeded"],
  ["Deploy started", "Deploy started"],
  ["Deploy finished", "Deploy finished"],
  ["Deploy finished in 127 ms", "Deploy finished in <duration>"],
  ["Order #4521 shipped to customer 8812", "Order #<num> shipped to customer <num>"],
  ["Price changed from $12.50 to $9.99", "Price changed from $<num> to $<num>"],
  ['Feature flag "new-checkout" evaluated to true for 3 users', 'Feature flag "<str>" evaluated to true for <num> users'],
  ["Job `send-digest` failed: timeout", "Job `<str>` failed: timeout"],
  ['File "/app/handlers/orders.py", line 42, in create_order', 'File "<str>", line <num>, in create_order'],
  ["Traceback (most recent call last): psycopg2.errors.UniqueViolation at 0x7f3a2c1b9d40", "Traceback (most recent call last): psycopg2.errors.UniqueViolation at <hex>"],
  ['docker: Error response from daemon: Conflict. The container name "/web" is already in use by container "4f66ad9a0b2e8c1d7e9f0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d"', 'docker: Error response from daemon: Conflict. The container name "<str>" is already in use by container "<str>"'],
  ["Error: No such container: 4f66ad9a0b2e8c1d7e9f0a1b2c3d4e5f6a7b8c9d0e1f2a3b4c5d6e7f8a9b0c1d", "Error: No such container: <id>"],
  ["Sat, 22 Nov 2026 10:15:30 GMT: scheduled task missed", "<time>: scheduled task missed"],
  ["[2026-11-22T10:15:30+01:00] WARN disk almost full", "[<time>] WARN disk almost full"],
  ["Lease expired after 1h2m3.5s", "Lease expired after <duration>"],
  ["Latency p99 is 250µs above target", "Latency p99 is <duration> above target"],
  ["Webhook to https://example.com/hooks/telltale?token=abc123&sig=ff00 returned 410", "Webhook to https://example.com/hooks/telltale?<query> returned <num>"],
  ["Invalid value for query parameter limit: -5", "Invalid value for query parameter limit: <num>"],
  ["Temperature reading 36.6 out of range [-40.5, 85]", "Temperature reading <num> out of range [<num>, <num>]"],
  ["Connection from 2001:db8::1 refused", "Connection from <ip> refused"],
  ["Cannot find module '/app/dist/chunk-5f3a9c.js'", "Cannot find module '<str>'"],
];

/** Pairs that must give one template (and so one issue). */
const SAME: [string, string][] = [
  ["Stripe API timeout after 30000ms while charging order ord_x1", "Stripe API timeout after 12000ms while charging order ord_y2"],
  ["User 42 not found", "User 1337 not found"],
  ["connect ECONNREFUSED 10.0.0.12:5432", "connect ECONNREFUSED 10.0.0.13:5432"],
  ["GET /api/orders/123?page=2 returned 500", "GET /api/orders/456?page=9&x=1 returned 500"],
  ['duplicate key value violates unique constraint "users_email_key"', 'duplicate key value violates unique constraint "orders_pkey"'],
  ["Invalid email: a@b.com", "Invalid email: c.d+e@example.org"],
  ["Request 550e8400-e29b-41d4-a716-446655440000 failed", "Request 6BA7B810-9DAD-11D1-80B4-00C04FD430C8 failed"],
  ["Cannot read properties of undefined (reading 'id')", "Cannot read properties of undefined (reading 'name')"],
  ["Back-off restarting failed container in pod api-7d9f8b6c5-x2k4q", "Back-off restarting failed container in pod api-5c8d7f9b6d-qwzxb"],
  ["Deployed commit 3f2c1ab9d8e7f6a5b4c3d2e1f0a9b8c7d6e5f4a3", "Deployed commit 0a1b2c3d4e5f60718293a4b5c6d7e8f901234567"],
  ["Nov 22 10:15:30 web-1 sshd[1234]: Failed password", "Dec  1 23:59:59 web-7 sshd[98]: Failed password"],
  ["Cron job started at 2026-11-22T10:15:30.123Z", "Cron job started at 2027-01-02T03:04:05+02:00"],
  ["Backup finished 2026-11-22 10:15:30", "Backup finished Sat, 22 Nov 2026 10:15:30 GMT"],
  ["Slow query took 1.5s", "Slow query took 250ms"],
  ["Event loop blocked for 3 ms", "Event loop blocked for 120µs"],
  ["Connection from 2001:db8::1 refused", "Connection from 192.168.0.7 refused"],
  ["Customer cus_Nf7Qx2 has no default payment method", "Customer cus_P9aZ3kLmN0 has no default payment method"],
  // The random part of a prefixed id may hold no digit.
  ["Payment provider timeout for order ord_x8k2a1c9", "Payment provider timeout for order ord_fypgkirw"],
  ["Customer cus_Nf7Qx2 has no default payment method", "Customer cus_MqLiJLkdIwHu has no default payment method"],
  ["GET /orders/ord_3kq9z1xw/refund failed", "GET /orders/ord_hvqtbxmc/refund failed"],
  // After a prefix that only ids use, any letters are the id's.
  ["Payment provider timeout for order ord_x8k2a1c9", "Payment provider timeout for order ord_fixypaoy"],
  ["Customer cus_Nf7Qx2 not found", "Customer cus_kocxeglt not found"],
  ["Segmentation fault at address 0x7ffd5e8c1a2b", "Segmentation fault at address 0x0"],
  ["Container 4f66ad9a0b2e exited with code 137", "Container 9c1d2e3f4a5b exited with code 1"],
  ["See https://example.com/docs#install-step-2", "See https://example.com/docs#upgrade"],
  ["User  42\n\tnot found ", "User 7 not found"],
  ["Price changed from $12.50 to $9.99", "Price changed from $5 to $120"],
  ["Temperature reading 36.6 out of range", "Temperature reading -4 out of range"],
  ["Deploy v1.2.3 finished", "Deploy v10.0.0-rc.1 finished"],
];

/** Pairs that must stay apart: they differ in words, not in values. */
const DIFFERENT: [string, string][] = [
  ["Payment failed", "Payment succeeded"],
  ["Cannot read properties of undefined (reading 'id')", "Cannot read properties of null (reading 'id')"],
  ["connect ECONNREFUSED 10.0.0.12:5432", "connect ETIMEDOUT 10.0.0.12:5432"],
  ["Deploy finished", "Deploy started"],
  ["KeyError: 'user_id'", "ValueError: 'user_id'"],
  ['relation "orders" does not exist', 'column "orders" does not exist'],
  ["GET /api/orders/1 returned 500", "GET /api/users/1 returned 500"],
  ["Invalid utf8 input", "Invalid utf16 input"],
  ["sha256 mismatch", "md5 mismatch"],
  ["Timeout after 5s", "Timeout after 5 retries"],
  ["e2e tests failed", "unit tests failed"],
  ["Worker node12 lost heartbeat", "Worker node12 is back"],
  ["User 42 not found", "User 42 not found."],
  // Snake-case names after a short prefix are words, not ids.
  ["relation user_settings does not exist", "relation user_sessions does not exist"],
  ["max_connections reached", "max_transactions reached"],
  ["api_settings missing", "api_sessions missing"],
];


describe("looksGenerated (the letters of a prefixed id without a digit)", () => {
  const WORDS =
    "settings profiles connections permissions constraint thresholds password sessions customers accounts products invoices payments schedule transactions migrations statements attributes timestamp template webhooks scripts instructions construct backlinks markdown sandbox handlers dispatch checkout shipping warehouse inventory notifications subscriptions campaigns analytics uploads downloads thumbnails postgres keyspace bookings calendar featured archived pending refunded disputed captured authorized succeeded checkpoint fulfillment knowledge maxRetries createdAt".split(" ");

  it("keeps words, snake-case parts and camelCase names", () => {
    expect(WORDS.filter(looksGenerated)).toEqual([]);
  });

  it("takes most random letters: four in five of 8 lowercase letters, more when longer, nearly all of mixed case", () => {
    const random = seededRandom(20261127);
    const draw = (alphabet: string, n: number) => Array.from({ length: n }, () => alphabet[Math.floor(random() * alphabet.length)]).join("");
    const lower = "abcdefghijklmnopqrstuvwxyz";
    const share = (alphabet: string, n: number) => {
      let taken = 0;
      for (let i = 0; i < 2000; i++) if (looksGenerated(draw(alphabet, n))) taken++;
      return taken / 2000;
    };
    expect(share(lower, 8)).toBeGreaterThan(0.75);
    expect(share(lower, 12)).toBeGreaterThan(0.9);
    expect(share(lower + lower.toUpperCase(), 12)).toBeGreaterThan(0.99);
  });
});

describe("messageTemplate", () => {
  it.each(TABLE)("%s", (message, template) => {
    expect(messageTemplate(message)).toBe(template);
  });

  it("has a table of at least 60 messages", () => {
    expect(TABLE.length).toBeGreaterThanOrEqual(60);
  });

  it("is idempotent: a template templated again stays the same", () => {
    for (const [message] of TABLE) {
      const template = messageTemplate(message);
      expect(messageTemplate(template), message).toBe(template);
    }
  });

  it("is deterministic whatever was templated before (no state leaks between calls)", () => {
    const forward = TABLE.map(([message]) => messageTemplate(message));
    const backward = [...TABLE].reverse().map(([message]) => messageTemplate(message)).reverse();
    expect(backward).toEqual(forward);
  });

  it.each(SAME)("groups %j with %j", (a, b) => {
    expect(messageTemplate(a)).toBe(messageTemplate(b));
  });

  it.each(DIFFERENT)("keeps %j apart from %j", (a, b) => {
    expect(messageTemplate(a)).not.toBe(messageTemplate(b));
  });

  it("keeps short words with digits, which are vocabulary, not ids", () => {
    const words = "utf8 e2e ipv4 base64 sha256 http2 v8 k8s i18n oauth2 es2022 psycopg2 Int32Array utf-8 x86_64 TLSv1.2 HTTP/1.1";
    expect(messageTemplate(words)).toBe(words);
  });

  it("masks ids however they are shaped", () => {
    expect(messageTemplate("ids ord_8f3k2a1c pi_3MtwBwLkdIwHu7ix28a3tqPa x2k4q a1b2c3 deadbeef12 abc1234 user123456")).toBe(
      "ids <id> <id> <id> <id> <id> <id> <id>",
    );
    expect(messageTemplate("path /users/123/orders/ord_8f3k2a1c/items/T0001")).toBe("path /users/<num>/orders/<id>/items/<id>");
  });

  it("collapses runs of whitespace to one space and trims", () => {
    expect(messageTemplate("  Payment \t\r\n failed\u00a0 now  ")).toBe("Payment failed now");
    expect(messageTemplate(" \n\t ")).toBe("");
  });

  it("takes apostrophes for apostrophes, not quotes", () => {
    expect(messageTemplate("Can't reach 'db-1' because the users' table isn't ready")).toBe(
      "Can't reach '<str>' because the users' table isn't ready",
    );
  });

  it("masks every quoted value but keeps an empty one", () => {
    expect(messageTemplate("Invalid name 'bob' (was \"alice\", `carol` or “dave”)")).toBe(
      "Invalid name '<str>' (was \"<str>\", `<str>` or “<str>”)",
    );
    expect(messageTemplate("Invalid name ''")).toBe("Invalid name ''");
  });

  describe(`caps the template at ${MAX_TEMPLATE_CHARS} characters`, () => {
    it("cuts long messages", () => {
      const template = messageTemplate("word ".repeat(2_000));
      expect(template.length).toBeLessThanOrEqual(MAX_TEMPLATE_CHARS);
      expect(template.startsWith("word word")).toBe(true);
    });

    it("masks before it cuts, so no raw value shows at the end", () => {
      const id = "4f66ad9a0b2e8c1d7e9f0a1b2c3d4e5f6a7b8c9d";
      const template = messageTemplate(`${"abcd ".repeat(199)}${id} tail`);
      expect(template).toBe(`${"abcd ".repeat(199)}<id>`);
    });

    it("does not cut a word in two", () => {
      expect(messageTemplate(`${"x ".repeat(498)}messages and more`)).toBe("x ".repeat(498).trimEnd());
    });

    it("never cuts inside a surrogate pair", () => {
      const template = messageTemplate(`a${"😀".repeat(600)}`);
      expect(template.length).toBe(MAX_TEMPLATE_CHARS - 1);
      expect(template.isWellFormed()).toBe(true);
    });

    it("gives a capped template that templates to itself", () => {
      const template = messageTemplate("User 42 not found after 3 ms; ".repeat(100));
      expect(template.length).toBeLessThanOrEqual(MAX_TEMPLATE_CHARS);
      expect(messageTemplate(template)).toBe(template);
    });
  });

  // Each must complete (a catastrophic backtrack would hang the test until its
  // timeout); the time is deliberately not asserted, to keep the test stable.
  const pathological: [name: string, message: string][] = [
    ["a1a1a1...", "a1".repeat(5_000)],
    ["'''...", "'".repeat(10_000)],
    ['"""...', '"'.repeat(10_000)],
    ["1.1.1.1...", "1.".repeat(5_000)],
    ["spaces", " ".repeat(10_000)],
    ["unclosed quotes 'a 'a 'a", "'a ".repeat(3_333)],
    ["a_a_a_..._1", `${"a_".repeat(5_000)}1`],
    ["a_ then digits", `a_${"1".repeat(9_990)}<`],
    ["a@a@a@...", "a@".repeat(5_000)],
    ["aaa...a@", `${"a".repeat(9_999)}@`],
    ["1:1:1:...", "1:".repeat(5_000)],
    [":::...", ":".repeat(10_000)],
    ["1m1m1m...x", `${"1m".repeat(5_000)}x`],
    ["/1/1/1...", "/1".repeat(5_000)],
    ["a=1&a=1&...", "a=1&".repeat(2_500)],
    ["<time> <time> ...", "<time> ".repeat(1_400)],
    ["1 ms 1 ms ...", "1 ms ".repeat(2_000)],
    ["emoji", "😀".repeat(5_000)],
  ];

  it.each(pathological)("completes on a pathological message: %s", (_name, message) => {
    const template = messageTemplate(message);
    expect(typeof template).toBe("string");
    expect(template.length).toBeLessThanOrEqual(MAX_TEMPLATE_CHARS);
  });

  it("randomized: messages of one shape share a template, messages of different shapes do not", () => {
    const random = seededRandom(20261122);
    const int = (max: number) => Math.floor(random() * max);
    const pick = <T>(items: ArrayLike<T>): T => items[int(items.length)];
    const chars = (alphabet: string, n: number) => Array.from({ length: n }, () => pick(alphabet)).join("");
    const lower = (n: number) => chars("abcdefghijklmnopqrstuvwxyz", n);
    // Ids carry a digit (letters alone are masked only when they look
    // generated, which is probable, not certain: see looksGenerated) and,
    // when long, a letter (one made only of digits is a number).
    const withDigit = (alphabet: string, n: number) => {
      const s = chars(alphabet, n);
      const at = int(n);
      return s.slice(0, at) + String(int(10)) + s.slice(at + 1);
    };
    const hex = (n: number) => {
      const s = withDigit("0123456789abcdef", n);
      return n < 7 || /[a-f]/.test(s) ? s : `${s.slice(0, -1)}${pick("abcdef")}`;
    };
    const base62 = (n: number) => withDigit("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789", n);
    const pod = "bcdfghjklmnpqrstvwxz2456789";
    const num = () => String(int(10 ** (1 + int(7))));
    const decimal = () => `${int(1000)}.${1 + int(99)}`;
    const ip = () => `${1 + int(254)}.${int(256)}.${int(256)}.${1 + int(254)}`;
    const email = () => `${lower(1 + int(8))}${pick(["", ".", "+", "_"])}${lower(1 + int(5))}@${lower(2 + int(8))}.${pick(["com", "org", "io", "co.uk"])}`;
    const uuid = () => `${hex(8)}-${hex(4)}-4${hex(3)}-a${hex(3)}-${hex(12)}`;
    const pad = (n: number) => String(n).padStart(2, "0");
    const iso = () => new Date(Date.UTC(2000 + int(40), int(12), 1 + int(28), int(24), int(60), int(60), int(1000))).toISOString();
    const clock = () => `${pad(int(24))}:${pad(int(60))}:${pad(int(60))}`;

    const shapes: (() => string)[] = [
      () => `User ${num()} not found`,
      () => `Stripe API timeout after ${num()}ms while charging order ord_${base62(2 + int(12))}`,
      () => `connect ECONNREFUSED ${ip()}:${num()}`,
      () => `connect ETIMEDOUT ${ip()}:${num()}`,
      () => `GET /api/orders/${num()}?page=${num()}&q=${lower(5)} returned ${pick([500, 502, 503])}`,
      () => `Invalid email: ${email()}`,
      () => `Request ${pick([uuid(), uuid().toUpperCase()])} failed`,
      () => `Job ${uuid()} timed out after ${decimal()}s`,
      () => `Deployed commit ${hex(40)} to production`,
      () => `Deploy ${hex(7)} started by ${email()}`,
      () => `pod api-${chars(pod, 9 + int(2))}-${chars(pod, 5)} OOMKilled`,
      () => `Cache miss for session:${hex(32)}`,
      () => `duplicate key value violates unique constraint "${lower(6)}_${lower(5)}_key"`,
      () => `TypeError: Cannot read properties of undefined (reading '${lower(1 + int(8))}')`,
      () => `TypeError: Cannot read properties of null (reading '${lower(1 + int(8))}')`,
      () => `deadlock detected: Process ${num()} waits for ShareLock on transaction ${num()}; blocked by process ${num()}.`,
      () => `[${iso()}] WARN disk ${int(100)}% full on /dev/sda`,
      () => `Backup finished at 20${pad(int(100))}-${pad(1 + int(12))}-${pad(1 + int(28))} ${clock()}`,
      () => `${pick(["Jan", "Feb", "Mar", "Nov", "Dec"])} ${1 + int(28)} ${clock()} web-${int(20)} sshd[${num()}]: Failed password for root from ${ip()} port ${num()} ssh2`,
      () => `Customer cus_${base62(6 + int(10))} has no default payment method`,
      () => `Connection from 2001:db8:${hex(4)}::${hex(1 + int(4))} refused`,
      () => `Segmentation fault at address 0x${hex(1 + int(12))}`,
      () => `Memory usage at ${int(100)}% (${decimal()}GB of ${num()}GB)`,
      () => `Rate limited: retry in ${num()} seconds`,
      () => `at handler (/app/src/routes/orders.js:${num()}:${num()})`,
      () => `Price changed from $${decimal()} to $${decimal()}`,
      () => `Webhook to https://example.com/hooks/${num()}?token=${hex(16)} returned ${pick([404, 410, 500])}`,
      () => `Order #${num()} shipped to ${email()}`,
      () => `Slow query took ${decimal()}s (threshold ${num()}ms)`,
      () => `Lease ${hex(12)} expired after ${1 + int(59)}m${int(60)}s`,
      () => "Payment failed",
      () => "Payment succeeded",
    ];

    const templates = shapes.map((shape) => {
      const first = messageTemplate(shape());
      for (let i = 0; i < 40; i++) {
        const message = shape();
        const template = messageTemplate(message);
        expect(template, message).toBe(first);
        expect(messageTemplate(template), message).toBe(template);
      }
      return first;
    });
    expect(new Set(templates).size).toBe(shapes.length);
  });
});

describe("issueGroupingKey", () => {
  const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

  it("keys on the level and the template by default, and titles the issue with the template", () => {
    const key = issueGroupingKey({ level: "error", message: "User 42 not found" });
    expect(key).toEqual({
      hash: sha256("v1\u0000template\u0000error\u0000User <num> not found"),
      title: "User <num> not found",
    });
    expect(key.hash).toMatch(/^[0-9a-f]{64}$/);
  });

  it("gives messages with one template and level one hash", () => {
    const a = issueGroupingKey({ level: "warn", message: "Stripe API timeout after 30000ms while charging order ord_x1" });
    const b = issueGroupingKey({ level: "warn", message: "Stripe API timeout after 12000ms while charging order ord_y2", fingerprint: null });
    expect(a).toEqual(b);
  });

  it("separates levels and templates", () => {
    const error = issueGroupingKey({ level: "error", message: "User 42 not found" });
    const warn = issueGroupingKey({ level: "warn", message: "User 42 not found" });
    const info = issueGroupingKey({ level: "info", message: "User 42 not found" });
    const other = issueGroupingKey({ level: "error", message: "User 42 deleted" });
    expect(new Set([error.hash, warn.hash, info.hash, other.hash]).size).toBe(4);
    expect(warn.title).toBe(error.title);
  });

  it("lets a fingerprint replace the default key, whatever the message or level", () => {
    const a = issueGroupingKey({ level: "error", message: "Payment failed", fingerprint: ["payments", "declined"] });
    const b = issueGroupingKey({ level: "info", message: "Something else entirely", fingerprint: ["payments", "declined"] });
    expect(a.hash).toBe(b.hash);
    expect(a.hash).toBe(sha256("v1\u0000fingerprint\u0000payments\u0000declined"));
    expect(a.title).toBe("Payment failed");
    expect(b.title).toBe("Something else entirely");
  });

  it("separates different fingerprints, including their order and how they are split", () => {
    const hash = (fingerprint: string[]) => issueGroupingKey({ level: "error", message: "x", fingerprint }).hash;
    const hashes = [hash(["a", "b"]), hash(["b", "a"]), hash(["ab"]), hash(["a"]), hash(["a", "b", "c"])];
    expect(new Set(hashes).size).toBe(hashes.length);
  });

  it("never lets a fingerprint collide with a template key", () => {
    const byTemplate = issueGroupingKey({ level: "error", message: "User 42 not found" });
    const byFingerprint = issueGroupingKey({ level: "error", message: "User 42 not found", fingerprint: ["error", "User <num> not found"] });
    expect(byFingerprint.hash).not.toBe(byTemplate.hash);
  });

  it("treats an empty fingerprint as none", () => {
    expect(issueGroupingKey({ level: "error", message: "User 42 not found", fingerprint: [] })).toEqual(
      issueGroupingKey({ level: "error", message: "User 42 not found" }),
    );
  });
});
