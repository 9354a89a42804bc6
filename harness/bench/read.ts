/**
 * npm run bench:read [-- --explain] [--only <text>] [--rebuild]
 *
 * The read side on a large database: ~BENCH_EVENTS events (default
 * 10,000,000) over 30 days in 20 projects, made once by harness/bench/read-seed.ts
 * into a database named after the schema (the migrations' hash) and the event
 * count, and kept (building it takes minutes; the runs only read it).
 *
 * Measures, in this process, the lib functions the dashboard pages and the
 * summary endpoint call (no HTTP, no rendering: the data part of each page),
 * BENCH_RUNS times each (default 30), interleaved so that noise spreads
 * evenly, after BENCH_WARMUP rounds of warm-up (default 10; the first, on
 * new connections, is reported as "first run"):
 *   - the issues list (first page, a filtered page, the second page by
 *     cursor; 24-hour window) of the largest project;
 *   - an issue page (the issue with its tag breakdown, its chart and its newest events) of that
 *     project's busiest error issue;
 *   - the events page (list + histogram, last 24 hours; also with a level
 *     filter and with a text search);
 *   - the issue page's tag breakdown (24 hours, 7 and 30 days) of that issue,
 *     by an equivalent query over issue_tag_hours / issue_tag_days (lib has
 *     no read of it yet);
 *   - the summary's facts and built-in digest (lib/ai/load-facts.ts, no model)
 *     for 1 hour, 24 hours and 7 days, for that project and for all 20
 *     projects of their member.
 * Targets (p95): 50 ms for each page's data, 200 ms for a summary of any
 * window (the 7-day one reads the most); the text search is reported without
 * one (no index: its chart scans the window's events).
 * Then runs EXPLAIN (ANALYZE, BUFFERS) on every SQL statement each one sent
 * and reports the statements' execution time (less sensitive to a busy
 * machine than the wall clock). --explain prints the plans of statements
 * slower than 5 ms.
 *
 * Runs with the young generation `npm start` and the container image give
 * the server (--max-semi-space-size=64, set by the npm script): with V8's
 * default, the summaries' garbage collection took a third more of Node.js's CPU.
 *
 * Times are relative to the data's end (kept in the database), not the wall
 * clock, so a database built yesterday measures the same windows.
 */
import fs from "node:fs";
import path from "node:path";
import pg from "pg";
import { admin, ADMIN_URL, databaseUrl, ROOT, schemaTag } from "@/harness/bench/harness";
import { META_TABLE, READ_USER_EMAIL, seedReadDatabase } from "@/harness/bench/read-seed";

const EVENTS = Number(process.env.BENCH_EVENTS ?? 10_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 30);
// Warm-up rounds before the measured runs: a summary's statements spread over
// the pool's ten connections, and each connection's first statements on a
// table are slower (its catalog caches); the first measured runs of the 7-day
// summary of all projects still showed it after three (docs/performance.md).
// The first run of each query, on new connections, is reported beside.
const WARMUP = Number(process.env.BENCH_WARMUP ?? 10);
const showPlans = process.argv.includes("--explain");
const rebuild = process.argv.includes("--rebuild");
const only = process.argv.includes("--only") ? process.argv[process.argv.indexOf("--only") + 1] : undefined;

process.env.TELLTALE_SECRET ??= "bench-secret-bench-secret-bench-secret-0123";
process.env.TELLTALE_LOG ??= "silent";

const PAGE_TARGET_MS = 50;
const SUMMARY_TARGET_MS = 200;

/** The database for this schema and size, built the first time (the same size for an older schema is dropped). */
async function seededDatabase(): Promise<string> {
  const prefix = "telltale_bench_read_";
  const name = `${prefix}${schemaTag()}_${EVENTS}`;
  if (rebuild) await admin((c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
  const exists = await admin(async (c) => (await c.query("SELECT 1 FROM pg_database WHERE datname = $1", [name])).rowCount === 1);
  if (exists) return databaseUrl(name);
  // Same size for an older schema, or half-built: ~5 GB each at 10 million events.
  const stale = await admin(
    async (c) => (await c.query<{ datname: string }>("SELECT datname FROM pg_database WHERE datname LIKE $1 AND (datname LIKE $2 OR datname LIKE '%\\_building')", [`${prefix}%`, `%\\_${EVENTS}`])).rows,
  );
  for (const { datname } of stale) {
    console.log(`dropping ${datname} (another schema, or left half-built)`);
    await admin((c) => c.query(`DROP DATABASE IF EXISTS "${datname}" WITH (FORCE)`));
  }
  const building = `${name}_building`;
  await admin((c) => c.query(`CREATE DATABASE "${building}"`));
  const started = Date.now();
  const { applyMigrations } = await import("@/tools/db/migrate");
  await applyMigrations(databaseUrl(building));
  console.log(`building ${name}: ~${EVENTS.toLocaleString("en-US")} events (made once, then kept)`);
  await seedReadDatabase(databaseUrl(building), EVENTS);
  await admin((c) => c.query(`ALTER DATABASE "${building}" RENAME TO "${name}"`));
  console.log(`built in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  return databaseUrl(name);
}

// Every statement the measured code sends, caught below node-postgres's
// Client (Prisma's driver adapter and lib's pool both go through it).
type Statement = { text: string; values: unknown[] };
let captured: Statement[] | null = null;
const originalQuery = pg.Client.prototype.query;
pg.Client.prototype.query = function (this: pg.Client, config: unknown, values?: unknown, callback?: unknown) {
  if (captured) {
    if (typeof config === "string") captured.push({ text: config, values: Array.isArray(values) ? values : [] });
    else if (config && typeof config === "object" && "text" in config) {
      const c = config as { text: string; values?: unknown[] };
      captured.push({ text: c.text, values: c.values ?? [] });
    }
  }
  return (originalQuery as (...args: unknown[]) => unknown).call(this, config, values, callback);
} as typeof pg.Client.prototype.query;

/** target: p95 in ms; null for a query reported without one. */
type Op = { name: string; target: number | null; run: () => Promise<unknown> };

function percentile(sorted: number[], p: number): number {
  return sorted[Math.max(0, Math.ceil(p * sorted.length) - 1)]!;
}

async function main() {
  const url = await seededDatabase();
  process.env.DATABASE_URL = url;
  const { resetSettings } = await import("@/lib/config/settings");
  resetSettings();
  const { prisma, disconnectDb } = await import("@/lib/db/client");
  const { resolveProjectAccess } = await import("@/lib/auth/access");
  const { listProjectNamesOfUser } = await import("@/lib/projects/service");
  const { listProjectIssues } = await import("@/lib/issues/service");
  const { getIssueDetails } = await import("@/lib/issues/issue-details");
  const { issueChart } = await import("@/lib/issues/chart-window");
  const { listProjectEvents } = await import("@/lib/events/list");
  const { eventHistogram } = await import("@/lib/issues/histogram");
  const { loadSummaryFacts } = await import("@/lib/ai/load-facts");
  const { buildDigest } = await import("@/lib/ai/digest");

  const meta = await prisma.$queryRawUnsafe<{ now: Date; user_id: string; events: bigint }[]>(`SELECT now, user_id, events FROM ${META_TABLE}`);
  const { now, user_id: userId } = meta[0]!;
  const stats = await prisma.$queryRawUnsafe<{ projects: bigint; issues: bigint; minutes: bigint; hours: bigint }[]>(
    `SELECT (SELECT count(*) FROM projects) AS projects, (SELECT count(*) FROM issues) AS issues,
            (SELECT count(*) FROM issue_counts) AS minutes, (SELECT count(*) FROM issue_hours) AS hours`,
  );
  const projects = await listProjectNamesOfUser(userId);
  // The largest project (the seed's first): the slowest pages.
  const largest = projects.find((p) => p.name === "bench-read-01")!;
  const access = await resolveProjectAccess(userId, largest.id);
  const day = new Date(now.getTime() - 86_400_000);
  const topError = (await listProjectIssues(access, { level: ["error"], sort: "events", limit: 1 }, now)).issues[0]!;
  const firstPage = await listProjectIssues(access, {}, now);
  console.log(
    `database: ${new URL(url).pathname.slice(1)} at ${new URL(ADMIN_URL).host}: ${Number(meta[0]!.events).toLocaleString("en-US")} events, ` +
      `${stats[0]!.projects} projects, ${stats[0]!.issues} issues, ${Number(stats[0]!.minutes).toLocaleString("en-US")} minute rows, ` +
      `${Number(stats[0]!.hours).toLocaleString("en-US")} hour rows; data ends ${now.toISOString()} (the runs' "now")`,
  );
  console.log(`one project: ${largest.name} (${READ_USER_EMAIL} is a member of ${projects.length}); issue page: "${topError.title}" (${topError.windowCount} events in 24 h)`);
  console.log(`${RUNS} runs per query after ${WARMUP} warm-up runs, lib functions called in this process (no HTTP)\n`);

  const summary = (label: string, windowMs: number, all: boolean): Op => ({
    name: `summary ${label}, ${all ? `all ${projects.length} projects` : "one project"}`,
    // 200 ms is the 7-day summary's target; a shorter window is held to it too.
    target: SUMMARY_TARGET_MS,
    run: async () => {
      const list = all ? await listProjectNamesOfUser(userId) : [{ id: access.projectId, name: access.projectName }];
      const facts = await loadSummaryFacts({ projects: list, since: new Date(now.getTime() - windowMs), now, limit: 50 });
      return buildDigest(facts, { limitExamined: 50 });
    },
  });
  // The issue page's tag breakdown: lib/issues has no read of it yet, so
  // this is the query such a read would send (whole days from
  // issue_tag_days, the window's partial days from issue_tag_hours; the top
  // 10 values per key, with each key's total and number of values).
  const tagBreakdown = (label: string, windowMs: number): Op => ({
    name: `issue tag breakdown ${label} (equivalent query)`,
    target: PAGE_TARGET_MS,
    run: () => {
      const since = new Date(Math.floor((now.getTime() - windowMs) / 3_600_000) * 3_600_000);
      const firstDay = new Date(Math.ceil(since.getTime() / 86_400_000) * 86_400_000);
      const lastDay = new Date(Math.max(firstDay.getTime(), Math.floor(now.getTime() / 86_400_000) * 86_400_000));
      return prisma.$queryRawUnsafe(
        `WITH per_value AS (
           SELECT key, value, sum(count)::bigint AS n FROM (
             SELECT key, value, count FROM issue_tag_days WHERE issue_id = $1::uuid AND project_id = $2 AND day >= $3 AND day < $4
             UNION ALL
             SELECT key, value, count FROM issue_tag_hours WHERE issue_id = $1::uuid AND project_id = $2
               AND ((hour >= $5 AND hour < $3) OR (hour >= $4 AND hour <= $6))
           ) t GROUP BY key, value
         )
         SELECT key, value, n, total, value_count FROM (
           SELECT key, value, n, sum(n) OVER (PARTITION BY key) AS total, count(*) OVER (PARTITION BY key) AS value_count,
                  row_number() OVER (PARTITION BY key ORDER BY n DESC, value) AS rank
           FROM per_value
         ) r WHERE rank <= 10 ORDER BY key, rank`,
        topError.id,
        access.projectId,
        firstDay,
        lastDay,
        since,
        now,
      );
    },
  });
  const ops: Op[] = [
    { name: "issues list, first page (24 h)", target: PAGE_TARGET_MS, run: () => listProjectIssues(access, {}, now) },
    {
      name: "issues list, errors matching 'failed', by events",
      target: PAGE_TARGET_MS,
      run: () => listProjectIssues(access, { level: ["error"], q: "failed", sort: "events" }, now),
    },
    { name: "issues list, page 2 (cursor)", target: PAGE_TARGET_MS, run: () => listProjectIssues(access, { cursor: firstPage.nextCursor ?? undefined }, now) },
    {
      name: "issue page (issue with its tag breakdown, chart fitted to its events, 20 events, latest event)",
      target: PAGE_TARGET_MS,
      run: async () => {
        const issue = await getIssueDetails(access, topError.id, { since: day }, now);
        return Promise.all([
          issueChart(access, issue.id, { since: day, until: now }),
          listProjectEvents(access, { issueId: issue.id, limit: 20 }),
          listProjectEvents(access, { issueId: issue.id, limit: 1 }),
        ]);
      },
    },
    {
      name: "events page (24 h)",
      target: PAGE_TARGET_MS,
      run: () => Promise.all([listProjectEvents(access, { since: day, limit: 50 }), eventHistogram(access, { since: day, until: now })]),
    },
    {
      name: "events page, level=error",
      target: PAGE_TARGET_MS,
      run: () => Promise.all([listProjectEvents(access, { since: day, level: ["error"], limit: 50 }), eventHistogram(access, { since: day, until: now, level: ["error"] })]),
    },
    {
      name: "events page, q=timeout",
      // A substring search has no index: its chart scans the window's events
      // (reported, no target; docs/scaling.md).
      target: null,
      run: () => Promise.all([listProjectEvents(access, { since: day, q: "timeout", limit: 50 }), eventHistogram(access, { since: day, until: now, q: "timeout" })]),
    },
    tagBreakdown("24 h", 86_400_000),
    tagBreakdown("7 d", 7 * 86_400_000),
    tagBreakdown("30 d", 30 * 86_400_000),
    summary("1 h", 3_600_000, false),
    summary("24 h", 86_400_000, false),
    summary("7 d", 7 * 86_400_000, false),
    summary("1 h", 3_600_000, true),
    summary("24 h", 86_400_000, true),
    summary("7 d", 7 * 86_400_000, true),
  ].filter((op) => !only || op.name.includes(only));

  const firstRun = new Map<string, number>();
  for (let i = 0; i < WARMUP; i++) {
    for (const op of ops) {
      const t0 = performance.now();
      await op.run();
      if (i === 0) firstRun.set(op.name, performance.now() - t0);
    }
  }
  const times = new Map(ops.map((op) => [op.name, [] as number[]]));
  for (let i = 0; i < RUNS; i++) {
    for (const op of ops) {
      const t0 = performance.now();
      await op.run();
      times.get(op.name)!.push(performance.now() - t0);
    }
  }

  // EXPLAIN (ANALYZE, BUFFERS) of what each query sent, on a connection of its own.
  const explainer = new pg.Client({ connectionString: url });
  await explainer.connect();
  // The session the app's connections have (no JIT, no parallel workers); no deadline.
  const { sessionSettingsSql } = await import("@/lib/db/client");
  await explainer.query(sessionSettingsSql(3_600_000));
  const rows: Record<string, string | number>[] = [];
  const plans: string[] = [];
  for (const op of ops) {
    captured = [];
    await op.run();
    const statements = captured;
    captured = null;
    let totalMs = 0;
    let slowest = 0;
    // Queries only: a new connection's SET, or a transaction's BEGIN, has no plan.
    for (const s of statements.filter((st) => /^\s*(?:SELECT|WITH)\b/i.test(st.text))) {
      const [{ "QUERY PLAN": plan }] = (await explainer.query(`EXPLAIN (ANALYZE, BUFFERS, FORMAT JSON) ${s.text}`, s.values)).rows as [{ "QUERY PLAN": [{ "Execution Time": number; "Planning Time": number }] }];
      const ms = plan[0]["Execution Time"] + plan[0]["Planning Time"];
      totalMs += ms;
      slowest = Math.max(slowest, ms);
      if (showPlans && ms > 5) {
        const text = (await explainer.query(`EXPLAIN (ANALYZE, BUFFERS) ${s.text}`, s.values)).rows.map((r: Record<string, string>) => r["QUERY PLAN"]).join("\n");
        plans.push(`\n=== ${op.name}: ${ms.toFixed(1)} ms\n${s.text.trim()}\n-- values: ${JSON.stringify(s.values).slice(0, 400)}\n${text}`);
      }
    }
    const sorted = [...times.get(op.name)!].sort((a, b) => a - b);
    const p95 = percentile(sorted, 0.95);
    rows.push({
      query: op.name,
      "p50 ms": +percentile(sorted, 0.5).toFixed(1),
      "p95 ms": +p95.toFixed(1),
      "p99 ms": +percentile(sorted, 0.99).toFixed(1),
      "max ms": +sorted.at(-1)!.toFixed(1),
      "first run ms": +(firstRun.get(op.name) ?? NaN).toFixed(1),
      target: op.target === null ? "none" : `p95 < ${op.target}`,
      ok: op.target === null ? "-" : p95 < op.target ? "yes" : "NO",
      statements: statements.length,
      "EXPLAIN ms": +totalMs.toFixed(1),
      "slowest stmt ms": +slowest.toFixed(1),
    });
  }
  await explainer.end();
  await disconnectDb();

  for (const plan of plans) console.log(plan);
  console.log("");
  console.table(rows);
  console.log("EXPLAIN ms: planning + execution time of every statement the query sent, run one after another (the page runs some at once).");
  fs.mkdirSync(path.join(ROOT, "bench-results"), { recursive: true });
  fs.writeFileSync(path.join(ROOT, "bench-results", `read-${Date.now()}.json`), JSON.stringify({ events: Number(meta[0]!.events), runs: RUNS, rows }, null, 2));
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
