/**
 * What the benchmarks share: databases cloned from a seeded template, the
 * production server in its own process group, wrk runs, and the CPU the
 * server spent (read from /proc, so the load generator is not counted).
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";

export const ROOT = path.resolve(import.meta.dirname, "../..");
export const ADMIN_URL = process.env.BENCH_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";

export function databaseUrl(name: string): string {
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return url.toString();
}

export async function admin<T>(fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: ADMIN_URL, connectionTimeoutMillis: 3000 });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end().catch(() => {});
  }
}

/** A short hash of the migrations: a seeded template is reused only by the schema it was made for. */
export function schemaTag(): string {
  const dir = path.join(ROOT, "prisma", "migrations");
  const hash = createHash("sha256");
  for (const name of fs.readdirSync(dir).sort()) {
    const file = path.join(dir, name, "migration.sql");
    if (fs.existsSync(file)) hash.update(name).update(fs.readFileSync(file));
  }
  return hash.digest("hex").slice(0, 10);
}

/**
 * A database cloned from template `template`, made by `seed` the first time
 * (then kept: seeding millions of events takes minutes, cloning seconds).
 */
export async function cloneSeeded(template: string, seed: (url: string) => Promise<void>): Promise<{ url: string; name: string; drop: () => Promise<void> }> {
  const exists = await admin(async (c) => (await c.query("SELECT 1 FROM pg_database WHERE datname = $1", [template])).rowCount === 1);
  if (!exists) {
    const building = `${template}_building`;
    await admin((c) => c.query(`DROP DATABASE IF EXISTS "${building}" WITH (FORCE)`));
    await admin((c) => c.query(`CREATE DATABASE "${building}"`));
    await seed(databaseUrl(building));
    await admin((c) => c.query(`ALTER DATABASE "${building}" RENAME TO "${template}"`));
  }
  const name = `telltale_bench_${Date.now()}`;
  console.log(`cloning ${template} into ${name}…`);
  await admin(async (c) => {
    // PostgreSQL 15+ copies a template through the WAL by default, which set
    // off a checkpoint inside the measured runs; FILE_COPY copies the files
    // (docs/performance.md, "Ingest on other hosts", the sixth host).
    const version = Number((await c.query<{ v: string }>("SHOW server_version_num")).rows[0]!.v);
    await c.query(`CREATE DATABASE "${name}" TEMPLATE "${template}"${version >= 150000 ? " STRATEGY FILE_COPY" : ""}`);
  });
  return {
    url: databaseUrl(name),
    name,
    drop: () => admin((c) => c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`)).then(() => {}),
  };
}

/**
 * Flushes PostgreSQL's dirty pages before the measured runs, so that they
 * start from the same point of the checkpoint cycle (as pgbench does) rather
 * than inside a checkpoint that seeding, cloning or an earlier run set off.
 * Checkpoints the runs' own writes cause still count. Needs a superuser or
 * pg_checkpoint; without them the runs go on as they are.
 */
/** CPU ms of every process whose command name starts with `name` (Linux /proc). */
export function cpuMsOf(name: string): number {
  let total = 0;
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      if (!comm.startsWith(name)) continue;
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      total += Number(fields[11]) + Number(fields[12]);
    } catch {
      // ended meanwhile
    }
  }
  return total * 10;
}

export async function checkpoint(): Promise<void> {
  await admin((c) => c.query("CHECKPOINT")).catch((error: unknown) => console.warn(`CHECKPOINT failed (${error instanceof Error ? error.message : error}); measuring without it`));
}

/** Points this process's lib/db (and everything reading settings) at `url`. */
export async function useDatabase(url: string): Promise<void> {
  process.env.DATABASE_URL = url;
  const { resetSettings } = await import("@/lib/config/settings");
  resetSettings();
}

export function progress(label: string, done: number, total: number, started: number): void {
  const width = 30;
  const filled = Math.round((done / total) * width);
  const rate = done / Math.max(0.001, (Date.now() - started) / 1000);
  process.stdout.write(`\r${label} [${"#".repeat(filled)}${" ".repeat(width - filled)}] ${done.toLocaleString("en-US")}/${total.toLocaleString("en-US")} (${Math.round(rate).toLocaleString("en-US")}/s)   `);
  if (done >= total) process.stdout.write("\n");
}

export function buildApp(): void {
  console.log("building (next build)…");
  const r = spawnSync(path.join(ROOT, "node_modules", ".bin", "next"), ["build"], { cwd: ROOT, stdio: "inherit", env: { ...process.env, NODE_ENV: "production" } });
  if (r.status !== 0) throw new Error("next build failed");
}

export type Server = { base: string; pid: number; stop: () => void; cpuMs: () => number };

/** `next start` on `port` in its own process group (it forks; both must go), as `npm start` runs it. */
export async function startServer(port: number, env: Record<string, string>, options: { cpuProfileDir?: string } = {}): Promise<Server> {
  const inUse = await fetch(`http://127.0.0.1:${port}/`).then(() => true, () => false);
  if (inUse) throw new Error(`port ${port} is already in use (a server left from an earlier run?); set BENCH_PORT`);
  // Flags NODE_OPTIONS refuses, given to node itself (next start serves in that process):
  // --cpu-prof, and BENCH_NODE_FLAGS (V8 flags such as --no-parallel-scavenge) to compare a server run with them.
  const nodeArgs = [
    ...(options.cpuProfileDir ? ["--cpu-prof", "--cpu-prof-dir", options.cpuProfileDir] : []),
    ...(process.env.BENCH_NODE_FLAGS ?? "").split(" ").filter(Boolean),
  ];
  const nextBin = path.join(ROOT, "node_modules", "next", "dist", "bin", "next");
  const child: ChildProcess = spawn(process.execPath, [...nodeArgs, nextBin, "start", "-p", String(port), "-H", "127.0.0.1"], {
    cwd: ROOT,
    detached: true,
    stdio: ["ignore", "ignore", "inherit"],
    env: {
      ...process.env,
      NODE_ENV: "production",
      AUTH_SECRET: process.env.AUTH_SECRET ?? randomBytes(32).toString("base64"),
      AUTH_TRUST_HOST: "true",
      TELLTALE_LOG: "silent",
      NODE_OPTIONS: process.env.NODE_OPTIONS ?? "--max-semi-space-size=64",
      ...env,
    },
  });
  const base = `http://127.0.0.1:${port}`;
  const deadline = Date.now() + 60_000;
  for (;;) {
    if (Date.now() > deadline) throw new Error("server did not become ready");
    if (await fetch(`${base}/api/health/ready`).then((r) => r.ok, () => false)) break;
    await new Promise((r) => setTimeout(r, 250));
  }
  const pgid = child.pid!;
  return {
    base,
    pid: pgid,
    stop: () => {
      try {
        process.kill(-pgid, "SIGTERM");
      } catch {
        // already gone
      }
    },
    cpuMs: () => processGroupCpuMs(pgid),
  };
}

/** User + system CPU of every process in a process group, in ms (Linux /proc). */
function processGroupCpuMs(pgid: number): number {
  const ticks = 100; // USER_HZ on Linux
  let total = 0;
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[2]) !== pgid) continue; // pgrp
      total += Number(fields[11]) + Number(fields[12]); // utime, stime
    } catch {
      // the process ended meanwhile
    }
  }
  return (total * 1000) / ticks;
}

export type WrkResult = {
  rps: number;
  requests: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  non2xx: number;
  errors: number;
  /** wrk's socket errors by kind ("connect 0, read 2, write 0, timeout 0"), when there were any. */
  errorKinds?: string;
  cpuMsPerRequest: number;
  /** The load generator's own CPU per request. */
  wrkCpuMsPerRequest: number;
};

function toMs(value: string): number {
  const match = /^([\d.]+)(us|ms|s|m)$/.exec(value.trim());
  if (!match) return NaN;
  const n = Number(match[1]);
  return match[2] === "us" ? n / 1000 : match[2] === "ms" ? n : match[2] === "s" ? n * 1000 : n * 60_000;
}

/**
 * Each connection's first request waits OPENING_PAUSE_MS, so that the server
 * has accepted every connection before the load starts: libuv accepts one
 * connection per loop iteration, and the first requests of connections
 * opened at a saturated server made the whole c64 p99 (docs/performance.md,
 * "Ingest on other hosts", the c64 tail). The pause counts in wrk's elapsed
 * time, so requests/s is slightly understated for every route alike.
 * BENCH_OPEN_UNDER_LOAD=1 measures the opening storm as well.
 */
export const OPENING_PAUSE_MS = process.env.BENCH_OPEN_UNDER_LOAD === "1" ? 0 : 300;

/** `script` (or none) with wrk's delay() pausing the first request of each of a thread's `connections` connections. */
function withOpeningPause(connections: number, script?: string): string | undefined {
  if (OPENING_PAUSE_MS === 0) return script;
  // Each thread has its own script state: the first `connections` calls of
  // its delay() are its connections' first requests, all made before any
  // answer can arrive.
  const prelude = `
local unopened = ${connections}
function delay()
  if unopened > 0 then unopened = unopened - 1; return ${OPENING_PAUSE_MS} end
  return 0
end
`;
  const file = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "telltale-wrk-")), "script.lua");
  fs.writeFileSync(file, prelude + (script ? fs.readFileSync(script, "utf8") : ""));
  return file;
}

/**
 * One wrk run: one thread, so the load generator takes as little CPU as it
 * can, unless `threads` (connections a multiple of it) says otherwise; a
 * script that must tell its connections apart runs one per thread.
 */
export async function wrk(server: Server, opts: { path: string; connections: number; seconds: number; script?: string; threads?: number }): Promise<WrkResult> {
  const threads = opts.threads ?? 1;
  const args = [`-t${threads}`, `-c${opts.connections}`, `-d${opts.seconds}s`, "--latency", "--timeout", "10s"];
  const script = withOpeningPause(Math.ceil(opts.connections / threads), opts.script);
  if (script) args.push("-s", script);
  args.push(`${server.base}${opts.path}`);
  const cpuBefore = server.cpuMs();
  // Through bash's `times`: wrk's own CPU (it shares the 2 cores with the server and PostgreSQL).
  const out = await new Promise<string>((resolve, reject) => {
    const child = spawn("bash", ["-c", 'wrk "$@"; status=$?; times; exit $status', "wrk", ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let text = "";
    child.stdout.on("data", (d) => (text += d));
    child.stderr.on("data", (d) => (text += d));
    child.on("error", reject);
    child.on("close", (code) => (code === 0 ? resolve(text) : reject(new Error(`wrk exited ${code}: ${text}`))));
  }).finally(() => {
    if (script && script !== opts.script) fs.rmSync(path.dirname(script), { recursive: true, force: true });
  });
  const cpu = server.cpuMs() - cpuBefore;
  const percentile = (p: string) => toMs(new RegExp(`\\n\\s+${p}%\\s+(\\S+)`).exec(out)?.[1] ?? "NaN");
  const requests = Number(/(\d+) requests in/.exec(out)?.[1] ?? NaN);
  const errorsLine = /Socket errors: connect (\d+), read (\d+), write (\d+), timeout (\d+)/.exec(out);
  return {
    rps: Number(/Requests\/sec:\s+([\d.]+)/.exec(out)?.[1] ?? NaN),
    requests,
    p50: percentile("50"),
    p90: percentile("90"),
    p99: percentile("99"),
    max: toMs(/Latency\s+\S+\s+\S+\s+(\S+)/.exec(out)?.[1] ?? "NaN"),
    non2xx: Number(/Non-2xx or 3xx responses: (\d+)/.exec(out)?.[1] ?? 0),
    errors: errorsLine ? errorsLine.slice(1).reduce((n, v) => n + Number(v), 0) : 0,
    ...(errorsLine ? { errorKinds: errorsLine[0].replace("Socket errors: ", "") } : {}),
    cpuMsPerRequest: requests > 0 ? cpu / requests : NaN,
    wrkCpuMsPerRequest: requests > 0 ? childCpuMs(out) / requests : NaN,
  };
}

/** Children's user + system CPU from bash's `times` (its second line: "0m1.234s 0m0.567s"), in ms. */
function childCpuMs(out: string): number {
  const lines = out.trim().split("\n");
  const m = /^(\d+)m([\d.]+)s (\d+)m([\d.]+)s$/.exec(lines[lines.length - 1]!.trim());
  return m ? (Number(m[1]) * 60 + Number(m[2]) + Number(m[3]) * 60 + Number(m[4])) * 1000 : NaN;
}
