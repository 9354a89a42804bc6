/**
 * A realistic event workload for the benchmarks: about 1,000 message
 * templates (error, warning and info kinds of a few services), drawn with a
 * Zipf distribution (a few issues carry most of the traffic, as in
 * production), with ids, numbers and durations in the messages so that
 * grouping has work to do. Seeded: runs are comparable.
 */
import { seededRandom } from "@/harness/bench/random";

/**
 * Changes whenever the workload does: a database seeded with an older one is
 * not reused (harness/bench/harness.ts cloneSeeded).
 */
export const WORKLOAD_VERSION = 3;

/** The template database bench:ingest seeds with `prefill` events of this workload (and bench:profile clones). */
export function ingestTemplateName(schema: string, prefill: number): string {
  return `telltale_bench_ingest_${schema}_w${WORKLOAD_VERSION}_${prefill}`;
}

export type Level = "error" | "warn" | "info";
export type Template = { level: Level; pattern: string };

const SERVICES = ["checkout", "billing", "search", "auth", "catalog", "shipping", "notifications", "inventory", "reports", "gateway"];

// {n}: a number, {id}: an id like ord_8f3k2a1c, {ms}: a duration, {ip}: an address.
const KINDS: Template[] = [
  { level: "error", pattern: "Stripe API timeout after {ms} while charging order {id} in {svc}" },
  { level: "error", pattern: "{svc}: connect ECONNREFUSED {ip}:5432" },
  { level: "error", pattern: "TypeError: Cannot read properties of undefined (reading 'items') at {svc}Handler" },
  { level: "error", pattern: "{svc} job {id} failed after {n} attempts" },
  { level: "error", pattern: "duplicate key value violates unique constraint \"{svc}_pkey\" for id {n}" },
  { level: "error", pattern: "GET /api/{svc}/{n}?page={n} returned 502 in {ms}" },
  { level: "error", pattern: "{svc} worker {id} crashed: out of memory ({n} MB)" },
  { level: "warn", pattern: "Slow query on {svc} took {ms} (rows: {n})" },
  { level: "warn", pattern: "Retrying {svc} request {id} (attempt {n} of 5)" },
  { level: "warn", pattern: "{svc} cache miss ratio {n}% above threshold" },
  { level: "warn", pattern: "Rate limit close for tenant {id} on {svc}: {n} requests/s" },
  { level: "info", pattern: "{svc} request {id} served in {ms}" },
  { level: "info", pattern: "User {n} signed in to {svc}" },
  { level: "info", pattern: "Deploy {n} of {svc} finished" },
  { level: "info", pattern: "{svc} cron job {id} completed in {ms}" },
];

/** The ~1,000 templates: each kind in each service, in several variants (its own wording suffix). */
export function templates(count = 1000): Template[] {
  const out: Template[] = [];
  for (let variant = 0; out.length < count; variant++) {
    for (const svc of SERVICES) {
      for (const kind of KINDS) {
        if (out.length >= count) break;
        const suffix = variant === 0 ? "" : ` [stage ${String.fromCharCode(97 + (variant % 26))}${variant >= 26 ? "x" : ""}]`;
        out.push({ level: kind.level, pattern: kind.pattern.replaceAll("{svc}", svc) + suffix });
      }
    }
  }
  return out;
}

/** Cumulative Zipf weights (exponent s) for n ranks, for sampling by binary search. */
export function zipfCumulative(n: number, s = 1.1): number[] {
  const weights = Array.from({ length: n }, (_, i) => 1 / Math.pow(i + 1, s));
  const total = weights.reduce((a, b) => a + b, 0);
  let acc = 0;
  return weights.map((w) => (acc += w / total));
}

export function sampler(seed = 1) {
  const random = seededRandom(seed);
  const all = templates();
  const cumulative = zipfCumulative(all.length);
  const alnum = "abcdefghijklmnopqrstuvwxyz0123456789";
  const pickIndex = (): number => {
    const r = random();
    let lo = 0;
    let hi = cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cumulative[mid]! < r) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
  const fill = (pattern: string) =>
    pattern
      .replace(/\{n\}/g, () => String(1 + Math.floor(random() * 99_999)))
      .replace(/\{ms\}/g, () => `${1 + Math.floor(random() * 30_000)}ms`)
      .replace(/\{ip\}/g, () => `10.${Math.floor(random() * 255)}.${Math.floor(random() * 255)}.${Math.floor(random() * 255)}`)
      .replace(/\{id\}/g, () => orderId());
  // An order id such as ord_8f3k2a1c: 8 base-36 characters, at least one of
  // them a digit. The template rules now mask an ord_ id without a digit too
  // (7% of uniform draws), but the digit stays so that the workload, and the
  // prefilled template databases built from it, stay what they were.
  const orderId = () => {
    const chars = Array.from({ length: 8 }, () => alnum[Math.floor(random() * alnum.length)]!);
    chars[Math.floor(random() * 8)] = String(Math.floor(random() * 10));
    return `ord_${chars.join("")}`;
  };
  return {
    random,
    /** A realistic event: level, message, a small context. */
    event(): { level: Level; message: string; context: Record<string, unknown> } {
      const t = all[pickIndex()]!;
      return { level: t.level, message: fill(t.pattern), context: { region: random() < 0.5 ? "eu-west-1" : "us-east-1", attempt: 1 + Math.floor(random() * 3) } };
    },
    /** A template (its index in templates()) and its message, filled. */
    draw(): { template: number; level: Level; message: string } {
      const template = pickIndex();
      return { template, level: all[template]!.level, message: fill(all[template]!.pattern) };
    },
  };
}

/**
 * The same workload as a wrk Lua script: each request a new event drawn from
 * the same templates and distribution; the ids of 201 answers are written to
 * `<idsDir>/ids-<thread>.txt` so the benchmark can check each has its row.
 */
export function wrkScript(options: { projectId: string; apiKey: string; idsDir: string; batch?: number }): string {
  const all = templates();
  const cumulative = zipfCumulative(all.length);
  const lua = (s: string) => `"${s.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`;
  return `
local levels = {${all.map((t) => lua(t.level)).join(",")}}
local patterns = {${all.map((t) => lua(JSON.stringify(t.pattern).slice(1, -1))).join(",")}}
local cumulative = {${cumulative.map((c) => c.toFixed(9)).join(",")}}
local alnum = "abcdefghijklmnopqrstuvwxyz0123456789"
local batch = ${options.batch ?? 0}
local counter = 0
local threads = {}

function setup(thread)
  counter = counter + 1
  thread:set("id", counter)
  table.insert(threads, thread)
end

function init(args)
  math.randomseed(id * 7919)
  ids = io.open("${options.idsDir}/ids-" .. id .. ".txt", "w")
  ids:setvbuf("line")
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/json"
  wrk.headers["Authorization"] = "Bearer ${options.apiKey}"
  wrk.path = batch > 0 and "/api/events/batch" or "/api/events"
  fill()
end

local function pick()
  local r = math.random()
  local lo, hi = 1, #cumulative
  while lo < hi do
    local mid = math.floor((lo + hi) / 2)
    if cumulative[mid] < r then lo = mid + 1 else hi = mid end
  end
  return lo
end

local function rid()
  local t = {}
  for i = 1, 8 do local k = math.random(1, 36); t[i] = alnum:sub(k, k) end
  t[math.random(1, 8)] = tostring(math.random(0, 9)) -- at least one digit, as orderId() above
  return "ord_" .. table.concat(t)
end

local function event()
  local i = pick()
  local msg = patterns[i]:gsub("{n}", function() return tostring(math.random(1, 99999)) end)
  msg = msg:gsub("{ms}", function() return math.random(1, 30000) .. "ms" end)
  msg = msg:gsub("{ip}", function() return "10." .. math.random(0, 254) .. "." .. math.random(0, 254) .. "." .. math.random(0, 254) end)
  msg = msg:gsub("{id}", rid)
  return '{"level":"' .. levels[i] .. '","message":"' .. msg .. '","projectId":"${options.projectId}","context":{"region":"eu-west-1","attempt":' .. math.random(1, 3) .. '}}'
end

local function body()
  if batch > 0 then
    local parts = {}
    for k = 1, batch do parts[k] = event() end
    return '{"events":[' .. table.concat(parts, ",") .. ']}'
  end
  return event()
end

-- Requests are made ahead, a pool per thread sent in turn: building a batch
-- of 100 events in Lua for each request cost wrk 0.8 ms of CPU per request,
-- taken from the server on this 2-core machine. Each request still stores
-- new events (the server makes their ids), drawn as before.
local pool = {}
local POOL_EVENTS = 40000
local sent = 0

function fill()
  for k = 1, math.floor(POOL_EVENTS / math.max(batch, 10)) do pool[k] = wrk.format(nil, nil, nil, body()) end
end

function request()
  sent = sent + 1
  return pool[(sent - 1) % #pool + 1]
end

function response(status, headers, body)
  if status == 201 then
    if batch > 0 then
      for one in body:gmatch('"([0-9a-f%-]+)"') do if #one == 36 then ids:write(one, "\\n") end end
    else
      local one = body:match('"id":"([0-9a-f%-]+)"')
      if one then ids:write(one, "\\n") end
    end
  end
end
`;
}
