/**
 * npx tsx harness/bench/template.ts — mean cost of messageTemplate (which
 * runs for every ingested event) over ~100,000 realistic messages.
 *
 * Messages come from a seeded generator, so runs are comparable. Options
 * (env): BENCH_MESSAGES (default 100000), BENCH_ROUNDS (default 5; the best
 * round is reported, the first one also warms the JIT up).
 */
import { seededRandom } from "@/harness/bench/random";
import { messageTemplate } from "@/lib/issues/template";

const COUNT = Number(process.env.BENCH_MESSAGES ?? 100_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);


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

const messages = Array.from({ length: COUNT }, () => pick(templates)());
const meanChars = messages.reduce((sum, m) => sum + m.length, 0) / messages.length;

let best = Infinity;
let warmTotal = 0;
let sink = 0;
for (let round = 0; round < ROUNDS; round++) {
  const start = process.hrtime.bigint();
  for (const message of messages) sink += messageTemplate(message).length;
  const micros = Number(process.hrtime.bigint() - start) / 1000 / messages.length;
  best = Math.min(best, micros);
  if (round > 0) warmTotal += micros;
  console.log(`round ${round + 1}: ${micros.toFixed(2)} µs per message`);
}
const mean = ROUNDS > 1 ? warmTotal / (ROUNDS - 1) : best;
console.log(
  `messageTemplate: mean ${mean.toFixed(2)} µs per message after the warm-up round (best ${best.toFixed(2)}), ` +
    `${COUNT} messages of ${meanChars.toFixed(0)} characters on average, ` +
    `${((mean / meanChars) * 100).toFixed(2)} µs per 100 characters (checksum ${sink})`,
);
