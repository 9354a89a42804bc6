/**
 * npm run test:chaos: proof that hostile input and infrastructure failures
 * never produce a 5xx (other than 503 while the database is away), a hang,
 * or a wrongly stored row, and that no acknowledged event is lost.
 *
 *   1. a throwaway PostgreSQL cluster (harness/chaos/pg-cluster.ts), migrated,
 *      with fixtures; the production build copied aside, or, when .next is
 *      missing or stale (unless --no-build), built in a private copy of the
 *      sources; `next start` with DATABASE_URL through a TCP proxy
 *      (tests/helpers/tcp-proxy.ts);
 *   2. fuzz: every entry of harness/chaos/corpus.json, checked one by one;
 *   3. kill -9: load, SIGKILL of the server's process group, restart;
 *   4. database outage: the cluster stopped (fast, immediate), the proxy
 *      stalled, connections cut, each under load;
 *   5. races: the project cap under 20 concurrent creations, 80 concurrent
 *      creations queued (201 or 429, never 503) (harness/chaos/races.ts);
 *   6. alerts: one project's webhook never answers, another's alert still
 *      arrives within its normal delay;
 *   7. one table; exit code 1 when a must-be-zero column is not zero; the
 *      table and every failure as JSON in bench-results/chaos-<time>.json.
 *
 * CHAOS_SHORT=1: fewer cycles, shorter loads (CI). --no-build: use the
 * build as it is. CHAOS_PHASES=fuzz,kill,outage: only those phases.
 * CHAOS_ENTRIES=a,b: only the corpus entries whose names contain a or b.
 * NEXT_DIST_DIR=.next-x: read (and, when stale, rebuild) the build there.
 * harness/chaos/README.md says how to read the table.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import type { Corpus } from "@/harness/chaos/corpus-types";
import type { PlaceholderValues } from "@/harness/chaos/expand";
import { createFixtures, createLoadProject, protectedState, query, type Fixtures } from "@/harness/chaos/fixtures";
import { runFuzz, type EntryResult } from "@/harness/chaos/fuzz";
import { alertFairnessPhase, projectCapPhase, RACE_SERVER_ENV, transactionQueuePhase } from "@/harness/chaos/races";
import { IngestLoad, verifyStored } from "@/harness/chaos/load";
import { startPgCluster, type PgCluster } from "@/harness/chaos/pg-cluster";
import { addLoad, columnLabel, COLUMNS, emptyRow, fuzzRow, loadFailures, MUST_BE_ZERO, printFailures, printTable, slowestRecovery, totalRow, type Failure, type Row } from "@/harness/chaos/report";
import { logSize, prepareApp, ROOT, serverErrorLines, startAppServer, type AppServer } from "@/harness/chaos/server";
import { freePort } from "@/tests/helpers/free-port";
import { listenSmtpSink } from "@/tests/helpers/smtp-sink";
import { startTcpProxy, type TcpProxy } from "@/tests/helpers/tcp-proxy";

const SHORT = ["1", "true"].includes(process.env.CHAOS_SHORT ?? "");
const NO_BUILD = process.argv.includes("--no-build");
const PHASES = new Set((process.env.CHAOS_PHASES ?? "fuzz,kill,outage,races,alerts").split(",").map((p) => p.trim()));
/** Passed to the server as DATABASE_QUERY_TIMEOUT_MS: its deadline for a database call. */
const QUERY_TIMEOUT_MS = 2000;
/** "No request hangs beyond the service's deadline + 5 s." */
const OUTAGE_DEADLINE_MS = QUERY_TIMEOUT_MS + 5000;
const KILL_DEADLINE_MS = 10_000;
const RECOVERY_LIMIT_MS = 30_000;

const config = SHORT
  ? { killCycles: 2, outageRounds: 1, clients: 12, warmupAcks: 100, downMs: 3000, stallMs: 9000, tailMs: 1500 }
  : { killCycles: 5, outageRounds: 2, clients: 24, warmupAcks: 300, downMs: 5000, stallMs: 10_000, tailMs: 3000 };

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const log = (message: string) => console.log(`[chaos ${new Date().toISOString().slice(11, 19)}] ${message}`);

/** Everything the phases share. */
type Harness = {
  run: string;
  cluster: PgCluster;
  proxy: TcpProxy;
  fixtures: Fixtures;
  port: number;
  logFile: string;
  /** (Re)starts the server with extra settings; the previous one must be gone. */
  startServer: (env?: Record<string, string>) => Promise<AppServer>;
  server: () => AppServer;
  values: Omit<PlaceholderValues, "token">;
  secrets: { values: string[]; paths: string[]; origin: string };
  mails: { to: string[] }[];
  rows: Row[];
  failures: Failure[];
};

async function setUp(run: string, logFile: string, cleanups: (() => unknown)[]): Promise<Harness> {
  const cluster = await startPgCluster({ database: "telltale" });
  cleanups.push(() => cluster.destroy());
  const secret = randomBytes(32).toString("base64");
  const authSecret = randomBytes(32).toString("base64");
  // The runner uses lib/ itself for the fixtures, on a direct connection.
  process.env.DATABASE_URL = cluster.url;
  process.env.TELLTALE_SECRET = secret;
  process.env.TELLTALE_LOG = "silent";
  const { resetSettings } = await import("@/lib/config/settings");
  resetSettings();
  const { applyMigrations } = await import("@/tools/db/migrate");
  await applyMigrations(cluster.url);
  const fixtures = await createFixtures(run);
  const { disconnectDb } = await import("@/lib/db/client");
  cleanups.push(() => disconnectDb());

  const proxy = await startTcpProxy({ host: "127.0.0.1", port: cluster.port });
  cleanups.push(() => proxy.close());

  const appDir = prepareApp({ build: !NO_BUILD, log });
  cleanups.push(() => fs.rmSync(appDir, { recursive: true, force: true }));

  const mails: { to: string[] }[] = [];
  const smtp = await listenSmtpSink((mail) => mails.push(mail));
  cleanups.push(() => smtp.close());

  const port = await freePort();
  const origin = `http://127.0.0.1:${port}`;
  const baseEnv = {
    DATABASE_URL: cluster.url.replace(`:${cluster.port}/`, `:${proxy.port}/`),
    DATABASE_QUERY_TIMEOUT_MS: String(QUERY_TIMEOUT_MS),
    TELLTALE_SECRET: secret,
    AUTH_SECRET: authSecret,
    AUTH_URL: origin,
    EMAIL_SERVER: `smtp://127.0.0.1:${smtp.port}`,
    // Limits that would answer 429 to the corpus's many summaries and sign-ins,
    // and to every key not yet cached once 30 forged keys came from this
    // one address (harness/chaos/corpus.ts, NO_KEY).
    AI_RATE_LIMIT_PER_MINUTE: "0",
    SIGNIN_RATE_LIMIT_PER_IP: "1000",
    SIGNIN_RATE_LIMIT_PER_EMAIL: "1000",
    AUTH_FAILURES_PER_MINUTE: "0",
  };
  let server: AppServer | null = null;
  cleanups.push(() => server?.stop());
  const startServer = async (env: Record<string, string> = {}) => {
    server = await startAppServer({ appDir, port, env: { ...baseEnv, ...env }, logFile });
    return server;
  };
  const t0 = Date.now();
  await startServer();
  log(`server ready on :${port} in ${Date.now() - t0} ms (log: ${path.relative(ROOT, logFile)})`);

  // An event (and so an issue) for the corpus's {{eventId}} and {{issueId}}.
  const answer = await fetch(`${origin}/api/events`, {
    method: "POST",
    headers: { authorization: `Bearer ${fixtures.main.apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ level: "error", message: `fixture ${run}`, projectId: fixtures.main.id }),
  });
  if (answer.status !== 201) throw new Error(`the fixture event was answered ${answer.status}: ${await answer.text()}`);
  const eventId = ((await answer.json()) as { id: string }).id;
  const [issue] = await query<{ issue_id: string | null }>(cluster.url, "SELECT issue_id::text FROM events WHERE id = $1", [eventId]);

  return {
    run,
    cluster,
    proxy,
    fixtures,
    port,
    logFile,
    startServer,
    server: () => server!,
    values: {
      run,
      projectId: fixtures.main.id,
      otherProjectId: fixtures.other.id,
      scratchProjectId: fixtures.scratch.id,
      key: fixtures.main.apiKey,
      otherKey: fixtures.other.apiKey,
      revokedKey: fixtures.revokedKey,
      eventId,
      issueId: issue?.issue_id ?? "00000000-0000-7000-8000-000000000000",
      userId: fixtures.owner.id,
      memberUserId: fixtures.member.id,
      scratchInvitationId: fixtures.scratch.invitationId,
      inviteToken: fixtures.inviteToken,
      sessionToken: fixtures.owner.sessionToken,
      expiredSessionToken: fixtures.owner.expiredSessionToken,
      origin,
      host: `127.0.0.1:${port}`,
    },
    secrets: { values: [secret, authSecret, fixtures.main.apiKey, fixtures.other.apiKey, fixtures.owner.sessionToken, fixtures.outsider.sessionToken, fixtures.inviteToken], paths: [ROOT, appDir], origin },
    mails,
    rows: [],
    failures: [],
  };
}

async function fuzzPhase(h: Harness, corpus: Corpus): Promise<EntryResult[]> {
  const stateBefore = await protectedState(h.cluster.url, h.fixtures);
  // CHAOS_ENTRIES=text,...: only the entries whose name contains one of them (to look into a failure).
  const only = (process.env.CHAOS_ENTRIES ?? "").split(",").map((t) => t.trim()).filter(Boolean);
  const entries = only.length ? corpus.entries.filter((e) => only.some((t) => e.name.includes(t))) : corpus.entries;
  log(`fuzz: ${entries.length} requests…`);
  const started = Date.now();
  const fuzz = await runFuzz({
    entries,
    port: h.port,
    baseValues: h.values,
    credentials: { key: h.fixtures.main.apiKey, otherKey: h.fixtures.other.apiKey, session: h.fixtures.owner.sessionToken, otherSession: h.fixtures.outsider.sessionToken },
    secrets: h.secrets,
    logFile: h.logFile,
    dbUrl: h.cluster.url,
    mails: () => h.mails,
    onProgress: (done, total) => {
      if (done % 200 === 0 || done === total) log(`fuzz: ${done}/${total}`);
    },
  });
  const stateAfter = await protectedState(h.cluster.url, h.fixtures);
  const stateChanges = Object.keys(stateBefore).filter((k) => stateBefore[k] !== stateAfter[k]).map((k) => `${k}: ${stateBefore[k]} -> ${stateAfter[k]}`);
  h.rows.push(fuzzRow({ ...fuzz, stateChanges }));
  const f = h.failures;
  for (const r of fuzz.results) for (const detail of r.failures) f.push({ phase: "fuzz", what: r.name, detail });
  if (fuzz.unattributedRows) f.push({ phase: "fuzz", what: "rows without any entry's token", detail: `${fuzz.unattributedRows} event row(s) stored that no entry can own` });
  for (const a of fuzz.alteredRows) f.push({ phase: "fuzz", what: a.entry, detail: `stored altered: ${a.detail}` });
  for (const s of stateChanges) f.push({ phase: "fuzz", what: "protected state changed", detail: s });
  const tied = new Set(fuzz.results.flatMap((r) => r.serverErrors));
  for (const line of fuzz.serverErrors) if (!tied.has(line.slice(0, 400))) f.push({ phase: "fuzz", what: "server error line not tied to an entry", detail: line.slice(0, 400) });
  log(`fuzz done in ${Math.round((Date.now() - started) / 1000)} s`);
  return fuzz.results;
}

async function killPhase(h: Harness): Promise<void> {
  const project = await createLoadProject(h.fixtures.owner.id, `chaos kill ${h.run}`);
  const row = emptyRow("kill -9 (restart)");
  for (let cycle = 1; cycle <= config.killCycles; cycle++) {
    const marker = `kill-${h.run}-${cycle}`;
    const logFrom = logSize(h.logFile);
    const load = new IngestLoad({ port: h.port, projectId: project.id, apiKey: project.apiKey, clients: config.clients, timeoutMs: KILL_DEADLINE_MS, marker });
    load.start();
    await waitFor(() => load.created >= config.warmupAcks, 20_000);
    // Somewhere mid-load, not on a round number of answers.
    await sleep(100 + Math.floor(Math.random() * 400));
    const server = h.server();
    server.kill9();
    await server.exited;
    const killedAt = performance.now();
    await h.startServer({ INGEST_RATE_LIMIT: "0" });
    const restartedAt = performance.now();
    await sleep(config.tailMs);
    await load.stop();
    const verdict = await verifyStored(h.cluster.url, load, project.id, marker);
    const errors = serverErrorLines(h.logFile, logFrom).lines;
    addLoad(row, load, verdict, errors.length);
    h.failures.push(...loadFailures(`kill -9, cycle ${cycle}`, load, verdict, errors));
    const recovered = load.firstCreatedSentAfter(restartedAt);
    const downS = recovered === null ? null : (recovered - killedAt) / 1000;
    row.recoveryS = slowestRecovery(row.recoveryS, downS);
    if (recovered === null) {
      row.failedChecks++;
      h.failures.push({ phase: `kill -9, cycle ${cycle}`, what: "no recovery", detail: "no 201 after the restart" });
    }
    log(`kill -9 cycle ${cycle}: ${load.stats.requests} requests (${load.stats.connectionErrors} cut by the kill), ${load.stats.acknowledged.size} events acknowledged, ${verdict.lost.length} lost, 201 again ${downS?.toFixed(1) ?? "never"} s after the kill`);
  }
  h.rows.push(row);
}

const OUTAGES = ["stop fast", "stop immediate", "proxy stall", "proxy cut"] as const;
type Outage = (typeof OUTAGES)[number];

/** Makes the database go away; resolves when it is back. */
async function outage(h: Harness, kind: Outage): Promise<void> {
  if (kind === "stop fast" || kind === "stop immediate") {
    await h.cluster.stop({ mode: kind === "stop fast" ? "fast" : "immediate" });
    await sleep(config.downMs);
    await h.cluster.start();
  } else if (kind === "proxy stall") {
    h.proxy.stall();
    await sleep(config.stallMs);
    h.proxy.resume();
  } else {
    // Several cuts: the pool's connections are reopened between them, in-flight statements die.
    for (let i = 0; i < 3; i++) {
      h.proxy.cut();
      await sleep(700);
    }
  }
}

async function outagePhase(h: Harness): Promise<void> {
  const project = await createLoadProject(h.fixtures.owner.id, `chaos outage ${h.run}`);
  const rows = new Map<Outage, Row>(OUTAGES.map((kind) => [kind, emptyRow(`database ${kind}`)]));
  for (let round = 1; round <= config.outageRounds; round++) {
    for (const kind of OUTAGES) {
      const phase = `database ${kind}, round ${round}`;
      const marker = `outage-${h.run}-${round}-${kind.replace(" ", "-")}`;
      const logFrom = logSize(h.logFile);
      const load = new IngestLoad({ port: h.port, projectId: project.id, apiKey: project.apiKey, clients: config.clients, timeoutMs: OUTAGE_DEADLINE_MS, marker });
      load.start();
      await waitFor(() => load.created >= config.warmupAcks / 2, 20_000);
      await outage(h, kind);
      const backAt = performance.now();
      const recovered = await waitForValue(() => load.firstCreatedSentAfter(backAt), RECOVERY_LIMIT_MS);
      await sleep(config.tailMs);
      await load.stop();
      const row = rows.get(kind)!;
      const verdict = await verifyStored(h.cluster.url, load, project.id, marker);
      const errors = serverErrorLines(h.logFile, logFrom).lines;
      addLoad(row, load, verdict, errors.length);
      h.failures.push(...loadFailures(phase, load, verdict, errors));
      const recoveryS = recovered === null ? null : (recovered - backAt) / 1000;
      row.recoveryS = slowestRecovery(row.recoveryS, recoveryS);
      if (recovered === null) {
        row.failedChecks++;
        h.failures.push({ phase, what: "no recovery", detail: `no 201 within ${RECOVERY_LIMIT_MS / 1000} s after the database was back` });
      }
      const s = load.stats;
      log(`${phase}: ${s.requests} requests, ${s.created} 201, ${s.unavailable} 503, ${s.otherServerErrors} other 5xx, ${s.hangs} hangs, ${verdict.lost.length} lost, 201 again ${recoveryS?.toFixed(1) ?? "never"} s after it was back`);
    }
  }
  h.rows.push(...rows.values());
}

async function main(): Promise<number> {
  const started = Date.now();
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  const resultsDir = path.join(ROOT, "bench-results");
  fs.mkdirSync(resultsDir, { recursive: true });
  const logFile = path.join(resultsDir, `chaos-${stamp}.server.log`);
  const run = randomBytes(8).toString("hex").slice(0, 6);
  const corpus = JSON.parse(fs.readFileSync(path.join(import.meta.dirname, "corpus.json"), "utf8")) as Corpus;

  const cleanups: (() => unknown)[] = [];
  const cleanup = async () => {
    for (const fn of cleanups.splice(0).reverse()) await Promise.resolve(fn()).catch(() => {});
  };
  process.once("SIGINT", () => void cleanup().then(() => process.exit(130)));

  let rows: Row[] = [];
  const failures: Failure[] = [];
  let fuzzResults: EntryResult[] = [];
  try {
    log(`${SHORT ? "short" : "full"} run: PostgreSQL cluster, fixtures, build, server…`);
    const h = await setUp(run, logFile, cleanups);
    rows = h.rows;
    try {
      if (PHASES.has("fuzz")) fuzzResults = await fuzzPhase(h, corpus);
      // The load phases run with the per-key rate limit off: one key carries all the load.
      await h.server().stop();
      await h.startServer({ INGEST_RATE_LIMIT: "0" });
      if (PHASES.has("kill")) await killPhase(h);
      if (PHASES.has("outage")) await outagePhase(h);
      if (PHASES.has("races") || PHASES.has("alerts")) {
        await h.server().stop();
        await h.startServer({ INGEST_RATE_LIMIT: "0", ...RACE_SERVER_ENV });
        const c = { run: h.run, origin: h.secrets.origin, clusterUrl: h.cluster.url, logFile: h.logFile, rows: h.rows, failures: h.failures, log };
        if (PHASES.has("races")) {
          await projectCapPhase(c);
          await transactionQueuePhase(c);
        }
        if (PHASES.has("alerts")) await alertFairnessPhase(c);
      }
    } finally {
      failures.push(...h.failures);
    }
  } catch (error) {
    failures.push({ phase: "run", what: "the run stopped", detail: error instanceof Error ? (error.stack ?? error.message) : String(error) });
    console.error(error);
  } finally {
    await cleanup();
  }

  const table = [...rows, totalRow(rows)];
  console.log("");
  printTable(table);
  printFailures(failures, fuzzResults);
  const total = table.at(-1)!;
  const ok = !failures.some((f) => f.phase === "run") && MUST_BE_ZERO.every((k) => total[k] === 0);
  const seconds = Math.round((Date.now() - started) / 1000);
  const resultFile = path.join(resultsDir, `chaos-${stamp}.json`);
  const json = {
    ok,
    short: SHORT,
    seconds,
    mustBeZero: MUST_BE_ZERO.map(columnLabel),
    columns: COLUMNS.map(([, label]) => label),
    table: table.map((r) => COLUMNS.map(([key]) => r[key])),
    failures,
    fuzz: fuzzResults,
  };
  fs.writeFileSync(resultFile, JSON.stringify(json, null, 2));
  console.log(`\n${ok ? "PASS" : "FAIL"}: ${MUST_BE_ZERO.map(columnLabel).join(", ")} must all be 0. ${seconds} s.`);
  console.log(`Results: ${path.relative(ROOT, resultFile)}; server log: ${path.relative(ROOT, logFile)}`);
  return ok ? 0 : 1;
}

async function waitFor(predicate: () => boolean, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!predicate()) {
    if (Date.now() > deadline) throw new Error(`no progress within ${timeoutMs} ms (is the server answering 201?)`);
    await sleep(50);
  }
}

async function waitForValue<T>(get: () => T | null, timeoutMs: number): Promise<T | null> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = get();
    if (value !== null || Date.now() > deadline) return value;
    await sleep(100);
  }
}

const USAGE = `Usage: npm run test:chaos [-- --no-build]
  --no-build           use the build in .next (or NEXT_DIST_DIR) as it is
Environment:
  CHAOS_SHORT=1        fewer kill cycles and outage rounds, lighter load (CI)
  CHAOS_PHASES=a,b     only these phases: fuzz, kill, outage, races, alerts (default: all)
  CHAOS_ENTRIES=a,b    only the corpus entries whose names contain a or b
  NEXT_DIST_DIR=dir    read (and, when stale, rebuild) the build there
Needs PostgreSQL's initdb and pg_ctl. harness/chaos/README.md explains the table.`;

const unknown = process.argv.slice(2).filter((arg) => arg !== "--no-build" && arg !== "--help");
if (process.argv.includes("--help") || unknown.length > 0) {
  if (unknown.length > 0) console.error(`Unknown argument: ${unknown.join(" ")}`);
  console.log(USAGE);
  process.exit(unknown.length > 0 ? 2 : 0);
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
