/**
 * npm run bench:ingest — ingestion throughput and latency of the production
 * server, measured from a separate load process (autocannon).
 *
 * 1. a fresh database: a new database on PostgreSQL (BENCH_DATABASE_URL, or
 *    127.0.0.1:5432 when it answers), else an in-memory embedded one;
 * 2. `next build` (skip with --no-build when .next is current), `next start`;
 * 3. loads GET /api/health/live (no database) and POST /api/events at
 *    concurrency 16 and 64, and POST /api/events/batch (100 events/request);
 * 4. prints events/s, p50/p99, non-2xx, and rows stored against 201 answers.
 *
 * Options (env): BENCH_DURATION seconds per run (default 10), BENCH_PORT.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import path from "node:path";
import pg from "pg";

const ROOT = path.resolve(import.meta.dirname, "../..");
const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const PORT = Number(process.env.BENCH_PORT ?? 3100);
const BASE = `http://127.0.0.1:${PORT}`;
const build = !process.argv.includes("--no-build");

type LoadResult = { rps: number; p50: number; p99: number; twoxx: number; non2xx: number; errors: number; timeouts: number };

async function freshDatabase(): Promise<{ url: string; drop: () => Promise<void>; kind: string }> {
  const admin = process.env.BENCH_DATABASE_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";
  const name = `telltale_bench_${Date.now()}`;
  const client = new pg.Client({ connectionString: admin, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query(`CREATE DATABASE ${name}`);
    await client.end();
    const url = new URL(admin);
    url.pathname = `/${name}`;
    return {
      url: url.toString(),
      kind: `PostgreSQL ${url.host}`,
      drop: async () => {
        const c = new pg.Client({ connectionString: admin });
        await c.connect();
        await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
        await c.end();
      },
    };
  } catch {
    await client.end().catch(() => {});
    const { startEphemeralPostgres } = await import("@/tools/db/embedded");
    const db = await startEphemeralPostgres();
    return { url: db.url, kind: "embedded PGlite (in memory)", drop: () => db.stop() };
  }
}

function autocannon(args: string[], duration = DURATION): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    const bin = path.join(ROOT, "node_modules", ".bin", "autocannon");
    const child = spawn(bin, ["--json", "--duration", String(duration), ...args], { stdio: ["ignore", "pipe", "pipe"] });
    let out = "";
    let err = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (err += d));
    child.on("close", (code) => {
      let r;
      try {
        if (code !== 0) throw new Error(`exit code ${code}`);
        r = JSON.parse(out);
      } catch (e) {
        return reject(new Error(`autocannon failed (${(e as Error).message}): ${err.slice(-500)}`));
      }
      resolve({
        rps: r.requests.average,
        p50: r.latency.p50,
        p99: r.latency.p99,
        twoxx: r["2xx"],
        non2xx: r.non2xx,
        errors: r.errors,
        timeouts: r.timeouts,
      });
    });
  });
}

async function waitReady(timeoutMs = 60_000) {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    try {
      if ((await fetch(`${BASE}/api/health/ready`)).ok) return;
    } catch {}
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error("server did not become ready");
}

async function assertPortFree(port: number) {
  const inUse = await fetch(`http://127.0.0.1:${port}/`).then(() => true, () => false);
  if (inUse) throw new Error(`port ${port} is already in use (a server left from an earlier run?); set BENCH_PORT`);
}

async function main() {
  await assertPortFree(PORT);
  const db = await freshDatabase();
  let server: ChildProcess | undefined;
  const pool = new pg.Pool({ connectionString: db.url, max: 2 });
  try {
    process.env.DATABASE_URL = db.url;
    process.env.TELLTALE_SECRET ??= randomBytes(32).toString("base64");
    const { applyMigrations } = await import("@/tools/db/migrate");
    await applyMigrations(db.url);
    const { createProject, findOrCreateUserByEmail } = await import("@/lib/projects/create-project");
    const owner = await findOrCreateUserByEmail("bench@example.test");
    const projects = await Promise.all(["c16", "c64", "batch", "warmup"].map((n) => createProject(owner.id, `bench-${n}`)));
    const { disconnectDb } = await import("@/lib/db/client");
    await disconnectDb();

    if (build) {
      console.log("building (next build)…");
      const r = spawnSync(path.join(ROOT, "node_modules", ".bin", "next"), ["build"], { cwd: ROOT, stdio: "inherit", env: { ...process.env, NODE_ENV: "production" } });
      if (r.status !== 0) throw new Error("next build failed");
    }
    server = spawn(path.join(ROOT, "node_modules", ".bin", "next"), ["start", "-p", String(PORT), "-H", "127.0.0.1"], {
      cwd: ROOT,
      // Its own process group: `next start` forks the server, and both must go.
      detached: true,
      stdio: ["ignore", "ignore", "inherit"],
      env: {
        ...process.env,
        NODE_ENV: "production",
        DATABASE_URL: db.url,
        AUTH_SECRET: process.env.AUTH_SECRET ?? randomBytes(32).toString("base64"),
        AUTH_TRUST_HOST: "true",
        // One key is the whole load here: the per-key limit (1,000/s by
        // default) would measure the limiter, not the write path.
        INGEST_RATE_LIMIT: "0",
        TELLTALE_LOG: "silent",
        // As `npm start` sets it (scripts/start.ts).
        NODE_OPTIONS: process.env.NODE_OPTIONS ?? "--max-semi-space-size=64",
      },
    });
    await waitReady();
    console.log(`database: ${db.kind}; ${DURATION}s per run; server: next start on ${BASE}\n`);

    const body = (projectId: string) =>
      JSON.stringify({ level: "error", message: "Payment failed for order", projectId, context: { orderId: 1234, user: "u-42", retry: false } });
    const batchBody = (projectId: string) =>
      JSON.stringify({ events: Array.from({ length: 100 }, (_, i) => ({ level: ["error", "warn", "info"][i % 3], message: `batch event ${i % 7}`, projectId, context: { i } })) });
    const post = (key: string, payload: string, url: string, c: number, duration = DURATION) =>
      autocannon(["-c", String(c), "-m", "POST", "-H", `Authorization=Bearer ${key}`, "-H", "Content-Type=application/json", "-b", payload, url], duration);
    const count = async (projectId: string) => Number((await pool.query("SELECT count(*) FROM events WHERE project_id = $1", [projectId])).rows[0].count);

    // Warm up (JIT, connection pool, route compilation).
    await autocannon(["-c", "8", `${BASE}/api/health/live`], 3);
    const w = projects[3]!;
    await post(w.apiKey, body(w.id), `${BASE}/api/events`, 8, 3);
    await post(w.apiKey, batchBody(w.id), `${BASE}/api/events/batch`, 8, 3);

    const rows: Record<string, unknown>[] = [];
    const report = (name: string, r: LoadResult, extra: Record<string, unknown> = {}) => {
      const row = { run: name, "req/s": Math.round(r.rps), "p50 ms": r.p50, "p99 ms": r.p99, "2xx": r.twoxx, "non-2xx": r.non2xx, errors: r.errors + r.timeouts, ...extra };
      rows.push(row);
      console.log(JSON.stringify(row));
    };

    const results: Record<string, LoadResult> = {};
    for (const [i, c] of [16, 64].entries()) {
      const liveR = await autocannon(["-c", String(c), `${BASE}/api/health/live`]);
      report(`GET /api/health/live c${c}`, liveR);
      const p = projects[i]!;
      const before = await count(p.id);
      const r = await post(p.apiKey, body(p.id), `${BASE}/api/events`, c);
      await new Promise((res) => setTimeout(res, 500));
      const stored = (await count(p.id)) - before;
      report(`POST /api/events c${c}`, r, {
        "events/s": Math.round(r.rps),
        "rows stored": stored,
        "201 answers": r.twoxx,
        lost: Math.max(0, r.twoxx - stored),
        "ratio vs live": `${Math.round((r.rps / liveR.rps) * 100)}%`,
      });
      results[`live${c}`] = liveR;
      results[`ingest${c}`] = r;
    }
    const bp = projects[2]!;
    const br = await post(bp.apiKey, batchBody(bp.id), `${BASE}/api/events/batch`, 16);
    await new Promise((res) => setTimeout(res, 500));
    const bStored = await count(bp.id);
    report("POST /api/events/batch (100/req) c16", br, {
      "events/s": Math.round(br.rps * 100),
      "rows stored": bStored,
      "201 answers x100": br.twoxx * 100,
      lost: Math.max(0, br.twoxx * 100 - bStored),
    });

    console.log("");
    console.table(rows);
    const checks = [
      ["single ingest >= 80% of no-DB route (c16)", results.ingest16!.rps >= 0.8 * results.live16!.rps],
      ["p99 < 50 ms at c16", results.ingest16!.p99 < 50],
      ["p99 < 150 ms at c64", results.ingest64!.p99 < 150],
      ["batch >= 20,000 events/s", br.rps * 100 >= 20_000],
      ["zero non-2xx and errors", rows.every((r) => r["non-2xx"] === 0 && r.errors === 0)],
      ["zero lost", rows.every((r) => !("lost" in r) || r.lost === 0)],
    ] as const;
    for (const [name, ok] of checks) console.log(`${ok ? "PASS" : "MISS"}  ${name}`);
    if (rows.some((r) => r["2xx"] === 0)) throw new Error("a run got no 2xx answer at all: see the server log above");
    mkdirSync(path.join(ROOT, "bench-results"), { recursive: true });
    writeFileSync(path.join(ROOT, "bench-results", `ingest-${Date.now()}.json`), JSON.stringify({ database: db.kind, duration: DURATION, rows }, null, 2));
  } finally {
    if (server?.pid) {
      try {
        process.kill(-server.pid, "SIGTERM");
      } catch {}
    }
    await pool.end().catch(() => {});
    await db.drop().catch((e) => console.error("could not drop bench database:", e));
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
