/**
 * npm run bench:grouping — what grouping costs per ingested event, in
 * nanoseconds of CPU time, for the code of this tree against a baseline (by default
 * the template code as it was before it moved to lib/grouping), on ~100,000
 * realistic messages and events with native stacks and Sentry exceptions.
 *
 * No database, no server: a few seconds of one core. Options (env):
 * BENCH_MESSAGES (default 100000), BENCH_ROUNDS (default 5; rounds of old
 * and new alternate, the first of each warms the JIT up and the mean of the
 * others is reported, with the best), BENCH_BASELINE (a git revision whose
 * lib/issues/template.ts is the old code).
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { seededRandom } from "@/harness/bench/random";
import { groupingKey, issueGroupingKey, type GroupingInput } from "@/lib/grouping/key";
import { parseStack } from "@/lib/grouping/stack/parse";
import { messageTemplate } from "@/lib/grouping/template";

const COUNT = Number(process.env.BENCH_MESSAGES ?? 100_000);
const ROUNDS = Math.max(2, Number(process.env.BENCH_ROUNDS ?? 5));
const root = path.resolve(__dirname, "../..");

const random = seededRandom(42);
const int = (max: number) => Math.floor(random() * max);
const pick = <T>(items: ArrayLike<T>): T => items[int(items.length)];
const alnum = (n: number) => Array.from({ length: n }, () => pick("abcdefghijklmnopqrstuvwxyz0123456789")).join("");
const hex = (n: number) => Array.from({ length: n }, () => pick("0123456789abcdef")).join("");
const uuid = () => `${hex(8)}-${hex(4)}-4${hex(3)}-a${hex(3)}-${hex(12)}`;
const ip = () => `10.${int(256)}.${int(256)}.${int(256)}`;

const templates: (() => string)[] = [
  () => `Stripe API timeout after ${int(60_000)}ms while charging order ord_${alnum(8)}`,
  () => `User ${int(100_000)} not found`,
  () => `connect ECONNREFUSED ${ip()}:5432`,
  () => `GET /api/orders/${int(10_000)}?page=${int(50)} returned ${pick([500, 502, 503])}`,
  () => `TypeError: Cannot read properties of undefined (reading '${pick(["id", "map", "name", "length"])}')`,
  () => `duplicate key value violates unique constraint "users_email_key" Key (email)=(u${int(999)}@example.com) already exists.`,
  () => `Request ${uuid()} failed with status ${pick([400, 404, 500])} after ${int(3000)} ms`,
  () => `deadlock detected: Process ${int(99_999)} waits for ShareLock on transaction ${int(9_999_999)}; blocked by process ${int(99_999)}.`,
  () => `upstream timed out (110: Connection timed out) while reading response header from upstream, client: ${ip()}, server: api.example.com`,
  () => `[${new Date(1_700_000_000_000 + int(1e10)).toISOString()}] INFO deploy ${hex(40)} finished in ${(random() * 100).toFixed(1)}s`,
  () => `pod api-${hex(9)}-${alnum(5)} OOMKilled (memory limit ${pick([256, 512, 1024])}Mi)`,
  () => `Invalid email: ${alnum(6)}.${alnum(4)}@example.org`,
  () => `at Object.<anonymous> (/app/src/routes/orders.js:${int(400)}:${int(80)})`,
  () => `Job ${alnum(12)} completed, processed ${int(100_000)} rows`,
  () => `Payment failed for customer cus_${alnum(14)}: card_declined`,
  () => `Cache miss for key session:${hex(32)}`,
  () => `fetch failed: request to https://api.example.com/v2/users/${int(1e6)}/orders?cursor=${alnum(16)} failed, reason: socket hang up`,
  () => `${pick(["Nov", "Dec"])} ${1 + int(28)} 10:${10 + int(50)}:${10 + int(50)} web-${int(9)} sshd[${int(65_000)}]: Failed password for root from ${ip()} port ${int(65_000)} ssh2`,
  () => `Slow query (${int(5000)} ms): SELECT * FROM "orders" WHERE "customer_id" = $1 AND "status" = 'pending' LIMIT 50`,
  () => "Payment failed because the card issuer declined the transaction; ask the customer for another card",
];

// Stacks of a handful of bugs, their line numbers varying as between deploys.
const line = () => `${1 + int(400)}:${1 + int(80)}`;
const jsStack = () =>
  `TypeError: Cannot read properties of undefined (reading '${pick(["price", "map"])}')\n` +
  `    at ${pick(["price", "renderList"])} (/srv/app/releases/${int(100)}/dist/${pick(["cart", "list"])}.js:${line()})\n` +
  `    at Array.map (<anonymous>)\n` +
  `    at total (/srv/app/dist/cart.js:${line()})\n` +
  `    at async checkout (/srv/app/dist/routes/checkout.js:${line()})\n` +
  `    at async Layer.handle [as handle_request] (/srv/app/node_modules/express/lib/router/layer.js:${line()})\n` +
  `    at next (/srv/app/node_modules/express/lib/router/route.js:${line()})\n` +
  `    at Route.dispatch (/srv/app/node_modules/express/lib/router/route.js:${line()})\n` +
  `    at process.processTicksAndRejections (node:internal/process/task_queues:${line()})`;
const pythonStack = () =>
  "Traceback (most recent call last):\n" +
  `  File "/app/.venv/lib/python3.11/site-packages/django/core/handlers/exception.py", line ${int(90)}, in inner\n    response = get_response(request)\n` +
  `  File "/app/shop/views.py", line ${int(300)}, in checkout\n    total = cart.total()\n` +
  `  File "/app/shop/models.py", line ${int(300)}, in total\n    return sum(line["price"] for line in self.lines)\n` +
  `KeyError: '${pick(["price", "qty"])}'`;
const javaStack = () =>
  `java.lang.IllegalStateException: Order ${int(1e6)} failed\n` +
  `\tat com.acme.shop.OrderService.place(OrderService.java:${int(300)})\n` +
  `\tat com.acme.shop.OrderService$$SpringCGLIB$$0.place(<generated>)\n` +
  `\tat org.springframework.web.servlet.FrameworkServlet.service(FrameworkServlet.java:${int(900)})\n` +
  `\tat java.base/java.lang.Thread.run(Thread.java:${int(900)})\n` +
  `Caused by: java.lang.NullPointerException: Cannot invoke "com.acme.shop.Price.amount()" because "price" is null\n` +
  `\tat com.acme.shop.Cart.total(Cart.java:${int(300)})\n` +
  `\tat com.acme.shop.OrderService.place(OrderService.java:${int(300)})\n` +
  "\t... 3 more";
const sentryEvent = () => ({
  platform: "node",
  exception: {
    values: [
      {
        type: "TypeError",
        value: `Cannot read properties of undefined (reading '${pick(["price", "map"])}')`,
        stacktrace: {
          frames: Array.from({ length: 20 }, (_, i) => ({
            filename: i < 12 ? `/srv/app/node_modules/lib${i}/index.js` : `/srv/app/dist/module${i % 3}.js`,
            function: `fn${i}`,
            lineno: 1 + int(400),
            colno: 1 + int(80),
            in_app: i >= 12,
          })),
        },
      },
    ],
  },
});

const messages = Array.from({ length: COUNT }, () => pick(templates)());
const events = messages.map((message, i) => ({ level: pick(["error", "warn", "info"] as const), message, fingerprint: i % 50 === 0 ? ["payments", "declined"] : null }));
const STACK_EVENTS = Math.max(1_000, Math.floor(COUNT / 10));
const stackEvents: Record<string, GroupingInput[]> = {
  "JavaScript stack (9 frames)": Array.from({ length: STACK_EVENTS }, () => ({ level: "error" as const, message: "TypeError: x", context: { stack: jsStack() } })),
  "Python traceback (3 frames)": Array.from({ length: STACK_EVENTS }, () => ({ level: "error" as const, message: "KeyError", context: { traceback: pythonStack() } })),
  "Java trace with a cause (8 frames)": Array.from({ length: STACK_EVENTS }, () => ({ level: "error" as const, message: "x", context: { stacktrace: javaStack() } })),
  "Sentry exception (20 frames)": Array.from({ length: STACK_EVENTS }, () => ({ level: "error" as const, message: "TypeError: x", context: sentryEvent() })),
};
const meanChars = messages.reduce((sum, m) => sum + m.length, 0) / messages.length;

/**
 * Mean ns of CPU time per call after the first round, and the best round.
 * CPU time rather than the clock: on a shared machine the clock also counts
 * the time other processes had the core.
 */
function measure<T>(items: T[], fn: (item: T) => number, rounds = ROUNDS): { mean: number; best: number } {
  let best = Infinity;
  let total = 0;
  let sink = 0;
  for (let round = 0; round < rounds; round++) {
    const start = process.cpuUsage();
    for (const item of items) sink += fn(item);
    const used = process.cpuUsage(start);
    const ns = ((used.user + used.system) * 1000) / items.length;
    best = Math.min(best, ns);
    if (round > 0) total += ns;
  }
  if (sink === 0.5) console.log("unreachable");
  return { mean: total / (rounds - 1), best };
}

async function loadBaseline(): Promise<{ messageTemplate: (m: string) => string; issueGroupingKey: typeof issueGroupingKey }> {
  const git = (...args: string[]) => execFileSync("git", args, { cwd: root, encoding: "utf8" }).trim();
  const revision = process.env.BENCH_BASELINE ?? `${git("rev-list", "-1", "HEAD", "--", "lib/issues/template.ts")}^`;
  const source = git("show", `${revision}:lib/issues/template.ts`).replaceAll('from "@/', `from "${root}/`);
  const dir = mkdtempSync(path.join(tmpdir(), "bench-grouping-"));
  const file = path.join(dir, "template-baseline.ts");
  writeFileSync(file, source);
  try {
    console.log(`baseline: lib/issues/template.ts at ${git("rev-parse", "--short", revision)}`);
    return await import(file);
  } finally {
    process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
  }
}

const row = (name: string, r: { mean: number; best: number }) =>
  console.log(`  ${name.padEnd(44)} ${r.mean.toFixed(0).padStart(7)} ns  (best ${r.best.toFixed(0)})`);

async function main() {
  const old = await loadBaseline();
  console.log(`${COUNT} messages of ${meanChars.toFixed(0)} characters on average; ${STACK_EVENTS} events of each stack kind`);

  // Alternate old and new so that a change of machine load hits both.
  const results = { oldTemplate: [] as number[], newTemplate: [] as number[], oldKey: [] as number[], newKey: [] as number[] };
  let bestOld = Infinity, bestNew = Infinity, bestOldKey = Infinity, bestNewKey = Infinity;
  for (let round = 0; round < ROUNDS; round++) {
    const a = measure(messages, (m) => old.messageTemplate(m).length, 2);
    const b = measure(messages, (m) => messageTemplate(m).length, 2);
    const c = measure(events, (e) => old.issueGroupingKey(e).hash.length, 2);
    const d = measure(events, (e) => groupingKey(e).hash.length, 2);
    if (round === 0) continue;
    results.oldTemplate.push(a.mean);
    results.newTemplate.push(b.mean);
    results.oldKey.push(c.mean);
    results.newKey.push(d.mean);
    bestOld = Math.min(bestOld, a.best);
    bestNew = Math.min(bestNew, b.best);
    bestOldKey = Math.min(bestOldKey, c.best);
    bestNewKey = Math.min(bestNewKey, d.best);
  }
  const mean = (xs: number[]) => xs.reduce((s, x) => s + x, 0) / xs.length;
  console.log("per message, no stack (the common case):");
  row("messageTemplate, baseline", { mean: mean(results.oldTemplate), best: bestOld });
  row("messageTemplate, now (the shapes table)", { mean: mean(results.newTemplate), best: bestNew });
  row("issueGroupingKey, baseline", { mean: mean(results.oldKey), best: bestOldKey });
  row("groupingKey, now", { mean: mean(results.newKey), best: bestNewKey });

  console.log("per event with a stack (groupingKey, parsing included):");
  for (const [name, list] of Object.entries(stackEvents)) row(name, measure(list, (e) => groupingKey(e).hash.length));

  const megabyte = 1_048_576;
  const huge = {
    "JavaScript": `Error: boom\n${"    at handler (/srv/app/dist/server.js:10:5)\n".repeat(Math.ceil(megabyte / 45))}`,
    "Python": `Traceback (most recent call last):\n${'  File "/app/shop/models.py", line 3, in total\n    return total(lines)\n'.repeat(Math.ceil(megabyte / 75))}RecursionError: maximum recursion depth exceeded`,
    "one line": "x".repeat(megabyte),
  };
  for (const [name, text] of Object.entries(huge)) {
    const r = measure([text], (s) => parseStack(s)?.exceptions.length ?? 0, 20);
    console.log(`  a 1 MB stack (${name}): parseStack ${(r.mean / 1e6).toFixed(2)} ms (best ${(r.best / 1e6).toFixed(2)} ms)`);
  }
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
