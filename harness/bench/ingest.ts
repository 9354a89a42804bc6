/**
 * npm run bench:ingest: ingestion throughput, latency and server CPU of the
 * production server, loaded by wrk (a C load generator that leaves the
 * server the CPU) on a table that already holds BENCH_PREFILL events
 * (default 1,000,000 small ones, kept in a template database after the
 * first run).
 *
 *   1. a database cloned from the seeded template (PostgreSQL at
 *      BENCH_DATABASE_URL, default postgresql://postgres@127.0.0.1:5432/postgres);
 *   2. `next build` (skip with --no-build when .next is current), `next start`;
 *   3. runs, BENCH_DURATION seconds each (default 15), every one with
 *      SDK-sized events (about 4 KB: an exception with 20 frames,
 *      breadcrumbs, contexts, release, environment, a user, 5 tags; drawn
 *      from ~1,000 templates, Zipf; harness/bench/sdk-events.ts):
 *      GET /api/health/live (the same server with no database work),
 *      POST /api/events and the Sentry envelope route with the same event,
 *      at concurrency 16 and 64, in turn, BENCH_ROUNDS times each (default
 *      2); then POST /api/events/batch (100 events) at 16, BENCH_ROUNDS
 *      times, each followed by a COPY of the rows it stored into a scratch
 *      table of the events table's shape (the physical limit of writing
 *      those rows); then POST /v1/logs, OTLP/HTTP protobuf of 100 log
 *      records (one service's application logs, a tenth of them exceptions;
 *      harness/bench/otlp-logs.ts) at 16, BENCH_ROUNDS times, each followed
 *      by a COPY of the rows it stored;
 *      BENCH_ROUNDS_ONLY (a comma-separated list of single, batch, otlp)
 *      runs only those;
 *   4. after each run: every 200/201 answer has its row (an OTLP request's
 *      every record, by an attribute naming it; a refused request's none);
 *      issue totals,
 *      per-minute, per-hour and per-day counts equal the stored events, and
 *      the tag counts (per hour and per day) the events' tags; then the
 *      ratios against the targets. The machine's load (/proc/loadavg) is
 *      recorded with every run.
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { v7 as uuidv7 } from "uuid";
import { buildApp, checkpoint, cloneSeeded, cpuMsOf, progress, ROOT, schemaTag, startServer, wrk, type WrkResult, useDatabase } from "@/harness/bench/harness";
import { OTLP_RECORD_ATTRIBUTE, OTLP_TAG_KEYS, prepareOtlpRequests } from "@/harness/bench/otlp-logs";
import { prepareRequests, SDK_EVENT_TAG_KEYS, SERVICES, sdkEventFields, type RequestKind } from "@/harness/bench/sdk-events";
import { ingestTemplateName, sampler } from "@/harness/bench/workload";

const DURATION = Number(process.env.BENCH_DURATION ?? 15);
const PORT = Number(process.env.BENCH_PORT ?? 3100);
const PREFILL = Number(process.env.BENCH_PREFILL ?? 1_000_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const build = !process.argv.includes("--no-build");
/** The rounds to run: single (live, native and envelope at c16 and c64), batch (batches and their COPY), otlp. */
const ROUND_KINDS = ["single", "batch", "otlp"] as const;
const ONLY = (process.env.BENCH_ROUNDS_ONLY ?? ROUND_KINDS.join(",")).split(",").map((k) => k.trim()).filter(Boolean);
for (const k of ONLY) if (!(ROUND_KINDS as readonly string[]).includes(k)) throw new Error(`BENCH_ROUNDS_ONLY: unknown round "${k}" (one or more of ${ROUND_KINDS.join(", ")})`);
const runs = (kind: (typeof ROUND_KINDS)[number]) => ONLY.includes(kind);
/** The tags the checks compare with the events that have them: the SDK events' and the OTLP records'. */
const TAG_KEYS = [...new Set([...SDK_EVENT_TAG_KEYS, ...OTLP_TAG_KEYS])];

process.env.TELLTALE_SECRET ??= "bench-secret-bench-secret-bench-secret-0123";
process.env.TELLTALE_LOG ??= "silent";

/** The template: migrated, one project with PREFILL events over the last 7 days (realistic workload; small, with the SDK events' release, environment, user and tags), vacuumed. */
async function seed(url: string): Promise<void> {
  process.env.DATABASE_URL = url;
  // Seeding writes 5,000 events per statement on a cold table: more than a request's deadline.
  const deadline = process.env.DATABASE_QUERY_TIMEOUT_MS;
  process.env.DATABASE_QUERY_TIMEOUT_MS = "600000";
  const { resetSettings } = await import("@/lib/config/settings");
  resetSettings();
  const { applyMigrations } = await import("@/tools/db/migrate");
  await applyMigrations(url);
  const { createProject, findOrCreateUserByEmail } = await import("@/lib/project-setup/create-project");
  const { storeEventsNow } = await import("@/lib/ingest/writer");
  const { refreshStaleStatistics } = await import("@/lib/db/statistics");
  const { newEventRow } = await import("@/lib/ingest/ingest");
  const { settleTagCounts } = await import("@/lib/issues/tag-backlog");
  const { prisma, disconnectDb } = await import("@/lib/db/client");
  const owner = await findOrCreateUserByEmail("bench@example.test");
  const project = await createProject(owner.id, "bench-prefilled");
  const key = await prisma.apiKey.findFirstOrThrow({ where: { projectId: project.id }, select: { id: true } });
  const work = sampler(7);
  const now = Date.now();
  const started = Date.now();
  const batchSize = 5_000;
  for (let done = 0; done < PREFILL; ) {
    const n = Math.min(batchSize, PREFILL - done);
    const rows = Array.from({ length: n }, () => {
      const e = work.event();
      const at = new Date(now - Math.floor(work.random() * 7 * 86_400_000));
      const service = SERVICES.find((name) => e.message.includes(name)) ?? "gateway";
      return newEventRow(
        { ...e, projectId: project.id, timestamp: null, fingerprint: null, ...sdkEventFields(work.random, service) },
        key.id,
        at,
        uuidv7(),
      );
    });
    await storeEventsNow(rows);
    await settleTagCounts(); // as the server's background fold would
    done += n;
    // As autovacuum would (this machine runs with it off): plans made for the
    // tables' first rows scan them whole once they have grown.
    if (done % 100_000 === 0) await refreshStaleStatistics({ force: true });
    progress("prefilling", done, PREFILL, started);
  }
  await disconnectDb();
  if (deadline === undefined) delete process.env.DATABASE_QUERY_TIMEOUT_MS;
  else process.env.DATABASE_QUERY_TIMEOUT_MS = deadline;
  resetSettings();
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  // The prefill's new-issue notifications went out long ago in a real
  // deployment: a backlog of them would have the runs measure its delivery.
  await client.query(`UPDATE alert_deliveries SET status = 'sent', attempts = 1, last_attempt_at = created_at, sent_at = created_at WHERE status = 'pending'`);
  // As autovacuum would in production (this machine runs with it off).
  console.log("VACUUM (ANALYZE)…");
  await client.query("VACUUM (ANALYZE)");
  await client.end();
}

/** The machine's load when a figure was taken (1, 5 and 15 minutes, as `uptime` shows it). */
function load(): string {
  return fs.readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
}

async function main() {
  const db = await cloneSeeded(ingestTemplateName(schemaTag(), PREFILL), seed);
  let stopServer = () => {};
  const workDir = fs.mkdtempSync(path.join(os.tmpdir(), "telltale-bench-ingest-"));
  const pool = new pg.Pool({ connectionString: db.url, max: 2 });
  try {
    await useDatabase(db.url);
    const { prisma, disconnectDb } = await import("@/lib/db/client");
    const { rotateProjectKey } = await import("@/lib/keys/service");
    const prefilled = await prisma.project.findFirstOrThrow({ where: { name: "bench-prefilled" }, select: { id: true, number: true } });
    // Their seed keys' plaintexts are not kept.
    const apiKey = await rotateProjectKey(prefilled.id);
    const publicKey = await rotateProjectKey(prefilled.id, "public");
    await disconnectDb();

    if (build) buildApp();
    // One key (and one client address) carries the whole load: the per-key
    // and per-client limits would measure the limiter, not the write path.
    const server = await startServer(PORT, { DATABASE_URL: db.url, INGEST_RATE_LIMIT: "0", SENTRY_CLIENT_RATE_LIMIT: "0" });
    stopServer = server.stop;
    const [{ n: prefilledRows }] = (await pool.query<{ n: string }>("SELECT count(*) AS n FROM events")).rows as [{ n: string }];
    console.log(`database: PostgreSQL (${Number(prefilledRows).toLocaleString("en-US")} events before the runs); ${DURATION}s per run; server: ${server.base}; load ${load()}\n`);

    let seedNumber = 1;
    /** Fresh bodies for one run (stamped now), and when they were made. */
    const requests = async (kind: RequestKind) => {
      const madeAt = new Date();
      const dir = fs.mkdtempSync(path.join(workDir, `${kind}-`));
      const r = await prepareRequests(dir, kind, {
        projectId: prefilled.id,
        apiKey,
        publicKey,
        projectNumber: prefilled.number,
        count: kind === "batch" ? 40 : 2000,
        batch: 100,
        seed: seedNumber++ * 7919 + Date.now(),
      });
      return { ...r, madeAt };
    };
    const otlpRequests = async () => {
      const madeAt = new Date();
      const dir = fs.mkdtempSync(path.join(workDir, "otlp-"));
      return { ...(await prepareOtlpRequests(dir, { projectId: prefilled.id, apiKey, count: 40, batch: 100, seed: seedNumber++ * 7919 + Date.now() })), madeAt };
    };

    // Warm-up: JIT, the pool, route compilation. On the prefilled project:
    // a new project's first thousand issues would set off a storm of alert
    // mails (and their retries, with no mail server here) that ran on into
    // the first measured run, a startup cost rather than ingestion's.
    await wrk(server, { path: "/api/health/live", connections: 8, seconds: 5 });
    if (runs("single") || runs("batch")) for (const kind of ["native", "envelope"] as const) await wrk(server, { path: "/", connections: 8, seconds: 5, script: (await requests(kind)).script });
    if (runs("otlp")) await wrk(server, { path: "/", connections: 8, threads: 8, seconds: 5, script: (await otlpRequests()).script });
    await checkpoint();

    const rows: Record<string, unknown>[] = [];
    const report = (name: string, r: WrkResult, loadAvg: string, extra: Record<string, unknown> = {}) => {
      const row = { run: name, "req/s": Math.round(r.rps), "p50 ms": r.p50, "p90 ms": r.p90, "p99 ms": r.p99, "max ms": r.max, "non-2xx": r.non2xx, errors: r.errors, ...(r.errorKinds ? { "error kinds": r.errorKinds } : {}), "server CPU ms/req": r.cpuMsPerRequest.toFixed(2), "wrk CPU ms/req": r.wrkCpuMsPerRequest.toFixed(2), load: loadAvg, ...extra };
      rows.push(row);
      console.log(JSON.stringify(row));
    };
    const lines = (dir: string, prefix: string) =>
      fs
        .readdirSync(dir)
        .filter((f) => f.startsWith(prefix))
        .flatMap((f) => fs.readFileSync(path.join(dir, f), "utf8").split("\n").filter(Boolean));
    const readIds = (dir: string) => [...new Set(lines(dir, "ids-"))];
    /** The answers other than 2xx, by status, with the first one's problem. */
    const failures = (dir: string) => {
      const all = lines(dir, "failures-");
      if (all.length === 0) return undefined;
      const byStatus = new Map<string, number>();
      for (const l of all) byStatus.set(l.split(" ")[0]!, (byStatus.get(l.split(" ")[0]!) ?? 0) + 1);
      return `${[...byStatus].map(([s, n]) => `${n} x ${s}`).join(", ")}; first: ${all[0]!.slice(0, 200)}`;
    };

    /**
     * Every id a 200/201 answered with is a stored row: the native routes'
     * ids are the rows' own, an envelope's the event_id the row keeps in
     * context.sentry (its events are no older than their bodies).
     */
    async function unacknowledgedRows(dir: string, kind: RequestKind, madeAt: Date): Promise<{ acknowledged: number; missing: number; ids: string[] }> {
      const ids = readIds(dir);
      let found = 0;
      for (let i = 0; i < ids.length; i += 10_000) {
        const chunk = ids.slice(i, i + 10_000);
        const query =
          kind === "envelope"
            ? pool.query<{ n: string }>(
                `SELECT count(DISTINCT context -> 'sentry' ->> 'event_id') AS n FROM events
                 WHERE project_id = $1 AND occurred_at >= $2 AND context -> 'sentry' ->> 'event_id' = ANY($3::text[])`,
                [prefilled.id, new Date(madeAt.getTime() - 60_000), chunk],
              )
            : pool.query<{ n: string }>("SELECT count(*) AS n FROM events WHERE id = ANY($1::uuid[])", [chunk]);
        found += Number((await query).rows[0]!.n);
      }
      return { acknowledged: ids.length, missing: ids.length - found, ids };
    }

    /**
     * Checkpoints PostgreSQL has started so far (timed or requested: by
     * max_wal_size), to tell which runs had one inside: its writes compete
     * with the run's (pg_stat_checkpointer from PostgreSQL 17 on).
     */
    const checkpointsSql =
      Number((await pool.query<{ v: string }>("SHOW server_version_num")).rows[0]!.v) >= 170000
        ? "SELECT num_timed + num_requested AS n FROM pg_stat_checkpointer"
        : "SELECT checkpoints_timed + checkpoints_req AS n FROM pg_stat_bgwriter";
    async function checkpointsNow(): Promise<number> {
      return Number((await pool.query<{ n: string }>(checkpointsSql)).rows[0]!.n);
    }

    /** One measured wrk run, with the checkpoints that started during it. */
    /** A wrk run, with the checkpoints PostgreSQL started and the CPU its processes used (ms per request) meanwhile. */
    async function measuredWrk(opts: Parameters<typeof wrk>[1]): Promise<{ r: WrkResult; checkpoints: number; postgresCpu: string }> {
      const before = await checkpointsNow();
      const postgresBefore = cpuMsOf("postgres");
      const r = await wrk(server, opts);
      const postgresCpu = ((cpuMsOf("postgres") - postgresBefore) / r.requests).toFixed(2);
      return { r, checkpoints: (await checkpointsNow()) - before, postgresCpu };
    }

    /** When wrk stops: the ingest statements whose tag counts the server's background fold has not added yet. */
    async function tagBacklogNow(): Promise<number> {
      return Number((await pool.query<{ n: string }>("SELECT count(*) AS n FROM tag_count_backlog")).rows[0]!.n);
    }

    /** Issue totals, per-minute, per-hour and per-day counts = the stored events; tag counts per hour = per day = the events' tags. */
    const countProblems: string[] = [];
    async function verifyCounts(after: string): Promise<string> {
      await settled();
      // As every reader of the tag counts does: what was ingested is added to them first.
      const { settleTagCounts } = await import("@/lib/issues/tag-backlog");
      const { disconnectDb } = await import("@/lib/db/client");
      await settleTagCounts();
      await disconnectDb();
      // One snapshot for every count below.
      const client = await pool.connect();
      await client.query("BEGIN ISOLATION LEVEL REPEATABLE READ");
      try {
        return await countsIn(client, after);
      } finally {
        await client.query("COMMIT").catch(() => {});
        client.release();
      }
    }
    /**
     * Waits until the server's connections are idle: wrk stops with requests
     * still in flight, which the server goes on storing (a batch takes
     * seconds on a busy machine).
     */
    async function settled(): Promise<void> {
      const deadline = Date.now() + 60_000;
      let quiet = 0;
      while (quiet < 3 && Date.now() < deadline) {
        const { rows: active } = await pool.query<{ n: string }>(
          "SELECT count(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid() AND state NOT IN ('idle')",
        );
        quiet = Number(active[0]!.n) === 0 ? quiet + 1 : 0;
        await new Promise((r) => setTimeout(r, 200));
      }
    }
    async function countsIn(client: pg.PoolClient, after: string): Promise<string> {
      const [agg] = (
        await client.query<{ events: string; issues: string; minutes: string; hours: string; days: string }>(
          `SELECT (SELECT count(*) FROM events WHERE project_id = $1) AS events,
                  (SELECT sum(count) FROM issues WHERE project_id = $1) AS issues,
                  (SELECT sum(count) FROM issue_counts WHERE project_id = $1) AS minutes,
                  (SELECT sum(count) FROM issue_hours WHERE project_id = $1) AS hours,
                  (SELECT sum(count) FROM issue_days WHERE project_id = $1) AS days`,
          [prefilled.id],
        )
      ).rows;
      const perKey = async (table: string) =>
        new Map((await client.query<{ key: string; n: string }>(`SELECT key, sum(count) AS n FROM ${table} WHERE project_id = $1 GROUP BY key`, [prefilled.id])).rows.map((r) => [r.key, Number(r.n)]));
      const hours = await perKey("issue_tag_hours");
      const days = await perKey("issue_tag_days");
      const [events] = (
        await client.query<Record<string, string>>(
          `SELECT count(release) AS release, count(environment) AS environment, count(user_info) AS "user",
                  ${TAG_KEYS.map((k, i) => `count(*) FILTER (WHERE tags ? $${i + 2}) AS "${k}"`).join(", ")}
           FROM events WHERE project_id = $1`,
          [prefilled.id, ...TAG_KEYS],
        )
      ).rows;
      const problems: string[] = [];
      if (!(agg!.events === agg!.issues && agg!.events === agg!.minutes && agg!.events === agg!.hours && agg!.events === agg!.days)) {
        problems.push(`events ${agg!.events}, issue totals ${agg!.issues}, per-minute ${agg!.minutes}, per-hour ${agg!.hours}, per-day ${agg!.days}`);
      }
      for (const key of new Set([...hours.keys(), ...days.keys()])) if (hours.get(key) !== days.get(key)) problems.push(`tag ${key}: per hour ${hours.get(key)}, per day ${days.get(key)}`);
      for (const [key, n] of Object.entries(events!)) if ((hours.get(key) ?? 0) !== Number(n)) problems.push(`tag ${key}: counted ${hours.get(key) ?? 0}, events with it ${n}`);
      countProblems.push(...problems.map((p) => `after ${after}: ${p}`));
      const line = problems.length === 0 ? `exact (${Number(agg!.events).toLocaleString("en-US")} events, ${[...hours.values()].reduce((a, b) => a + b, 0).toLocaleString("en-US")} tag counts)` : `WRONG: ${problems.join("; ")}`;
      console.log(`  counts after ${after}: ${line}`);
      return problems.length === 0 ? "exact" : "WRONG";
    }

    /** One run of `kind` at `connections`, its rows and counts checked after. */
    async function measure(kind: RequestKind, connections: number, name: string, baseline?: { name: string; r: WrkResult }) {
      const req = await requests(kind);
      const loadAvg = load();
      const { r, checkpoints, postgresCpu } = await measuredWrk({ path: "/", connections, seconds: DURATION, script: req.script });
      const backlog = await tagBacklogNow();
      const check = await unacknowledgedRows(req.idsDir, kind, req.madeAt);
      const events = kind === "batch" ? 100 : 1;
      report(name, r, loadAvg, {
        "PostgreSQL CPU ms/req": postgresCpu,
        "body B": req.bodyBytes,
        "events/s": Math.round(r.rps * events),
        ...(baseline ? { vs: `${((r.rps / baseline.r.rps) * 100).toFixed(0)}% of ${baseline.name}` } : {}),
        "2xx ids": check.acknowledged,
        "without a row": check.missing,
        ...(failures(req.idsDir) ? { failures: failures(req.idsDir) } : {}),
        "tag backlog at the end": backlog,
        checkpoints,
        counts: await verifyCounts(name),
      });
      return { r, check };
    }

    /**
     * Every record of every request answered 200 has its row, once, and a
     * refused request's records none: the records are found by the
     * attribute naming them (the run's salt, the request, the record), and
     * a partialSuccess answer (hex) lets that many of its request's
     * records be missing. Requests wrk had in flight when it stopped have
     * no answer: their rows are counted, not judged.
     */
    async function unstoredOtlpRecords(req: Awaited<ReturnType<typeof otlpRequests>>): Promise<{ acknowledged: number; records: number; missing: number; duplicated: number; refusedStored: number; partial: number; unanswered: number }> {
      const acknowledged = new Map<string, number>();
      let partial = 0;
      for (const line of lines(req.idsDir, "ids-")) {
        const [id, hex] = line.split(" ");
        let rejected = 0;
        if (hex) {
          partial++;
          const { ExportLogsServiceResponse } = await import("@/lib/otlp/proto");
          const answer = ExportLogsServiceResponse.toObject(ExportLogsServiceResponse.decode(Buffer.from(hex, "hex")), { longs: Number }) as { partialSuccess?: { rejectedLogRecords?: number } };
          rejected = answer.partialSuccess?.rejectedLogRecords ?? 0;
        }
        acknowledged.set(id!, 100 - rejected);
      }
      const refused = new Set(lines(req.idsDir, "refused-"));
      const { rows: stored } = await pool.query<{ request: string; n: string; distinct: string }>(
        `SELECT left(context -> 'attributes' ->> '${OTLP_RECORD_ATTRIBUTE}', 24) AS request, count(*) AS n, count(DISTINCT context -> 'attributes' ->> '${OTLP_RECORD_ATTRIBUTE}') AS distinct
         FROM events WHERE project_id = $1 AND occurred_at >= $2 AND left(context -> 'attributes' ->> '${OTLP_RECORD_ATTRIBUTE}', 8) = $3
         GROUP BY 1`,
        [prefilled.id, new Date(req.madeAt.getTime() - 60_000), req.salt],
      );
      const byRequest = new Map(stored.map((r) => [r.request, { n: Number(r.n), distinct: Number(r.distinct) }]));
      let missing = 0;
      let duplicated = 0;
      let refusedStored = 0;
      let unanswered = 0;
      for (const [id, expected] of acknowledged) missing += Math.max(0, expected - (byRequest.get(id)?.distinct ?? 0));
      for (const [id, { n, distinct }] of byRequest) {
        duplicated += n - distinct;
        if (refused.has(id)) refusedStored += n;
        else if (!acknowledged.has(id)) unanswered += n;
      }
      const records = [...acknowledged.values()].reduce((a, b) => a + b, 0);
      return { acknowledged: acknowledged.size, records, missing, duplicated, refusedStored, partial, unanswered };
    }

    // The routes take turns, ROUNDS times each: on a small shared machine
    // one run's speed differs from the next, so a single pair would compare
    // two different moments (docs/performance.md, "How the benchmarks
    // measure"). Throughput: the rounds' mean; p99: the worst round.
    const results: Record<string, { rps: number; p99: number }> = {};
    /** How much the same route moved between rounds: the machine's own noise. */
    const steadiness: { c: number; live: number; ingestCpu: number }[] = [];
    let lost = 0;
    const mean = (runs: WrkResult[]) => runs.reduce((n, r) => n + r.rps, 0) / runs.length;
    // Coefficient of variation between rounds (needs two rounds or more).
    const variation = (values: number[]) => {
      const m = values.reduce((a, v) => a + v, 0) / values.length;
      return Math.sqrt(values.reduce((a, v) => a + (v - m) ** 2, 0) / (values.length - 1)) / m;
    };
    for (const c of runs("single") ? [16, 64] : []) {
      const live: WrkResult[] = [];
      const native: WrkResult[] = [];
      const envelope: WrkResult[] = [];
      for (let round = 1; round <= ROUNDS; round++) {
        const loadAvg = load();
        const { r: l, checkpoints } = await measuredWrk({ path: "/api/health/live", connections: c, seconds: DURATION });
        report(`GET /api/health/live c${c} #${round}`, l, loadAvg, { checkpoints });
        const n = await measure("native", c, `POST /api/events c${c} #${round}`, { name: "live", r: l });
        const e = await measure("envelope", c, `POST /api/<n>/envelope/ c${c} #${round}`, { name: "native", r: n.r });
        live.push(l);
        native.push(n.r);
        envelope.push(e.r);
        lost += n.check.missing + e.check.missing;
      }
      if (ROUNDS > 1) steadiness.push({ c, live: variation(live.map((r) => r.rps)), ingestCpu: variation(native.map((r) => r.cpuMsPerRequest)) });
      for (const [name, runs] of [["live", live], ["native", native], ["envelope", envelope]] as const) results[`${name}${c}`] = { rps: mean(runs), p99: Math.max(...runs.map((r) => r.p99)) };
      const at = (k: string) => results[`${k}${c}`]!;
      console.log(
        `c${c} over ${ROUNDS} rounds: native ${Math.round(at("native").rps)} req/s = ${((at("native").rps / at("live").rps) * 100).toFixed(0)}% of live (${Math.round(at("live").rps)} req/s); ` +
          `envelope ${Math.round(at("envelope").rps)} req/s = ${((at("envelope").rps / at("native").rps) * 100).toFixed(0)}% of native; worst p99 native ${at("native").p99} ms, envelope ${at("envelope").p99} ms (live ${at("live").p99} ms)`,
      );
    }

    // Batches, each followed by a COPY of the rows it stored: the same rows
    // written by PostgreSQL alone, on the same machine at about the same moment.
    const batchEventsPerSecond: number[] = [];
    const copyRowsPerSecond: number[] = [];
    for (let round = 1; round <= (runs("batch") ? ROUNDS : 0); round++) {
      const b = await measure("batch", 16, `POST /api/events/batch (100/req) c16 #${round}`);
      lost += b.check.missing;
      batchEventsPerSecond.push(b.r.rps * 100);
      const copy = await copyOf(b.check.ids);
      if (copy) {
        copyRowsPerSecond.push(copy.rowsPerSecond);
        const row = { run: `COPY of those rows #${round}`, rows: copy.rows, "rows/s": Math.round(copy.rowsPerSecond), "ms": Math.round(copy.ms), MB: +(copy.bytes / 1e6).toFixed(1), load: copy.load };
        rows.push(row);
        console.log(JSON.stringify(row));
      }
    }
    const batchRate = batchEventsPerSecond.reduce((a, b) => a + b, 0) / batchEventsPerSecond.length;
    const copyRate = copyRowsPerSecond.length ? copyRowsPerSecond.reduce((a, b) => a + b, 0) / copyRowsPerSecond.length : NaN;

    // OTLP logs: wrk runs one connection per thread, so that each answer
    // is known to be its thread's last request's.
    const otlpRecordsPerSecond: number[] = [];
    const otlpCopyRowsPerSecond: number[] = [];
    let otlpUnstored = 0;
    for (let round = 1; round <= (runs("otlp") ? ROUNDS : 0); round++) {
      const name = `POST /v1/logs (protobuf, 100/req) c16 #${round}`;
      const req = await otlpRequests();
      const loadAvg = load();
      const { r, checkpoints, postgresCpu } = await measuredWrk({ path: "/", connections: 16, threads: 16, seconds: DURATION, script: req.script });
      const backlog = await tagBacklogNow();
      await settled();
      const check = await unstoredOtlpRecords(req);
      otlpUnstored += check.missing + check.duplicated + check.refusedStored;
      otlpRecordsPerSecond.push(r.rps * 100);
      report(name, r, loadAvg, {
        "PostgreSQL CPU ms/req": postgresCpu,
        "body B": req.bodyBytes,
        "records/s": Math.round(r.rps * 100),
        "200 answers": check.acknowledged,
        "records acknowledged": check.records,
        "without a row": check.missing,
        "stored twice": check.duplicated,
        "refused but stored": check.refusedStored,
        ...(check.partial ? { partialSuccess: check.partial } : {}),
        "rows of unanswered requests": check.unanswered,
        ...(failures(req.idsDir) ? { failures: failures(req.idsDir) } : {}),
        "tag backlog at the end": backlog,
        checkpoints,
        counts: await verifyCounts(name),
      });
      // As after a batch run: the same rows written by COPY alone.
      const { rows: stored } = await pool.query<{ id: string }>(
        `SELECT id FROM events WHERE project_id = $1 AND occurred_at >= $2 AND left(context -> 'attributes' ->> '${OTLP_RECORD_ATTRIBUTE}', 8) = $3`,
        [prefilled.id, new Date(req.madeAt.getTime() - 60_000), req.salt],
      );
      const copy = await copyOf(stored.map((row) => row.id));
      if (copy) {
        otlpCopyRowsPerSecond.push(copy.rowsPerSecond);
        const row = { run: `COPY of those rows #${round}`, rows: copy.rows, "rows/s": Math.round(copy.rowsPerSecond), "ms": Math.round(copy.ms), MB: +(copy.bytes / 1e6).toFixed(1), load: copy.load };
        rows.push(row);
        console.log(JSON.stringify(row));
      }
    }
    const otlpRate = otlpRecordsPerSecond.reduce((a, b) => a + b, 0) / otlpRecordsPerSecond.length;
    const otlpCopyRate = otlpCopyRowsPerSecond.length ? otlpCopyRowsPerSecond.reduce((a, b) => a + b, 0) / otlpCopyRowsPerSecond.length : NaN;

    console.log("");
    console.table(rows);
    const ratio = (a: number, b: number) => a / b;
    const ratios = [
      ...(runs("single")
        ? ([
            ["native single ingest / no-database route, c16", ratio(results.native16!.rps, results.live16!.rps), 0.8],
            ["native single ingest / no-database route, c64", ratio(results.native64!.rps, results.live64!.rps), 0.8],
            ["envelope route / native route, c16", ratio(results.envelope16!.rps, results.native16!.rps), 0.8],
            ["envelope route / native route, c64", ratio(results.envelope64!.rps, results.native64!.rps), 0.8],
          ] as const)
        : []),
      ...(runs("batch") ? ([["batches (100/req) / COPY of the same rows", ratio(batchRate, copyRate), 0.75]] as const) : []),
      ...(runs("otlp") ? ([["OTLP protobuf (100 records/req) / 20,000 records/s", ratio(otlpRate, 20_000), 1]] as const) : []),
    ];
    console.log(`\nratios (means of ${ROUNDS} rounds; load now ${load()}):`);
    for (const [name, value, target] of ratios) console.log(`${value >= target ? "PASS" : "MISS"}  ${name}: ${value.toFixed(2)} (target >= ${target})`);
    if (runs("batch")) console.log(`      batches ${Math.round(batchRate).toLocaleString("en-US")} events/s, COPY ${Math.round(copyRate).toLocaleString("en-US")} rows/s`);
    if (runs("otlp")) console.log(`      OTLP ${Math.round(otlpRate).toLocaleString("en-US")} records/s (${(otlpRate / otlpCopyRate).toFixed(2)} of a COPY of the same rows, ${Math.round(otlpCopyRate).toLocaleString("en-US")} rows/s)`);
    const checks = [
      ...(runs("single")
        ? ([
            ["native p99 < 50 ms at c16 (worst round)", results.native16!.p99 < 50],
            ["native p99 < 150 ms at c64 (worst round)", results.native64!.p99 < 150],
            ["envelope p99 < 50 ms at c16 (worst round)", results.envelope16!.p99 < 50],
            ["envelope p99 < 150 ms at c64 (worst round)", results.envelope64!.p99 < 150],
          ] as const)
        : []),
      ...(runs("batch") ? ([["batches >= 20,000 events/s", batchRate >= 20_000]] as const) : []),
      ...(runs("otlp")
        ? ([
            ["OTLP >= 20,000 records/s", otlpRate >= 20_000],
            ["every record of every OTLP 200 has its row, once; refused requests' none", otlpUnstored === 0],
          ] as const)
        : []),
      ["zero non-2xx and socket errors", rows.every((r) => !r["non-2xx"] && !r.errors)],
      ["every 200/201 has its row", lost === 0],
      ["issue, minute, hour, day and tag counts exact after every run", countProblems.length === 0],
    ];
    for (const [name, ok] of checks) console.log(`${ok ? "PASS" : "MISS"}  ${name}`);
    for (const p of countProblems) console.log(`      ${p}`);
    // On a shared machine the same code's speed moves between rounds; a
    // difference between two versions smaller than that says nothing.
    const percent = (x: number) => `${Math.round(x * 100)}%`;
    if (ROUNDS < 2) console.log("noise: not measured (BENCH_ROUNDS=1)");
    for (const { c, live, ingestCpu } of steadiness) {
      console.log(
        `noise at c${c}, between rounds (coefficient of variation): the no-database route's requests/s ${percent(live)}, ingest's server CPU per request ${percent(ingestCpu)}; ` +
          `the mean of ${ROUNDS} rounds is uncertain by about ${percent(live / Math.sqrt(ROUNDS))}`,
      );
    }
    if (steadiness.some((x) => x.live > 0.1 || x.ingestCpu > 0.1)) {
      console.log("NOTE  this machine's speed varied by more than 10% between rounds: compare versions with more rounds (BENCH_ROUNDS) or on a quieter machine");
    }
    fs.mkdirSync(path.join(ROOT, "bench-results"), { recursive: true });
    fs.writeFileSync(
      path.join(ROOT, "bench-results", `ingest-${Date.now()}.json`),
      JSON.stringify({ prefilled: Number(prefilledRows), duration: DURATION, rounds: ROUNDS, rows, results, batchRate, copyRate, otlpRate, otlpCopyRate, ratios, steadiness, checks, countProblems }, null, 2),
    );
  } finally {
    stopServer();
    await pool.end().catch(() => {});
    await db.drop().catch((e) => console.error("could not drop the bench database:", e));
    fs.rmSync(workDir, { recursive: true, force: true });
  }

  /**
   * The physical limit: the rows a batch run stored, written again by a
   * single COPY (psql's \copy, text format, over TCP like the server's
   * connections) into an empty table of the events table's shape (LIKE
   * events INCLUDING ALL: its primary key and indexes). Null without psql.
   */
  async function copyOf(ids: string[]): Promise<{ rows: number; ms: number; rowsPerSecond: number; bytes: number; load: string } | null> {
    const psql = (command: string) => {
      const r = spawnSync("psql", [db.url, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-c", command], { encoding: "utf8" });
      if (r.error || r.status !== 0) throw new Error(`psql failed: ${r.error?.message ?? r.stderr}`);
    };
    if (spawnSync("psql", ["--version"]).status !== 0) {
      console.log("COPY: skipped (no psql on this machine)");
      return null;
    }
    await pool.query("DROP TABLE IF EXISTS bench_copy_source, bench_copy_scratch");
    await pool.query("CREATE TABLE bench_copy_source AS SELECT * FROM events WHERE false");
    for (let i = 0; i < ids.length; i += 10_000) await pool.query("INSERT INTO bench_copy_source SELECT * FROM events WHERE id = ANY($1::uuid[])", [ids.slice(i, i + 10_000)]);
    const file = path.join(workDir, "copy.tsv");
    psql(`\\copy bench_copy_source TO '${file}'`);
    await pool.query("CREATE TABLE bench_copy_scratch (LIKE events INCLUDING ALL)");
    const loadAvg = load();
    const t0 = performance.now();
    psql(`\\copy bench_copy_scratch FROM '${file}'`);
    const ms = performance.now() - t0;
    const [{ n }] = (await pool.query<{ n: string }>("SELECT count(*) AS n FROM bench_copy_scratch")).rows as [{ n: string }];
    const bytes = fs.statSync(file).size;
    await pool.query("DROP TABLE bench_copy_source, bench_copy_scratch");
    fs.rmSync(file);
    return { rows: Number(n), ms, rowsPerSecond: Number(n) / (ms / 1000), bytes, load: loadAvg };
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
