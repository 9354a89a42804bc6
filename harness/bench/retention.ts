/**
 * npm run bench:retention: deleting millions of expired events while the
 * production server ingests, and what that costs ingestion.
 *
 *   1. a database cloned from a template (made once, then kept) holding
 *      BENCH_EXPIRED events (default 5,000,000) between 120 and 91 days old
 *      and BENCH_FRESH (default 500,000) from the last 89 days, in 4 projects
 *      of 250 issues each, with their per-minute and per-hour counts and
 *      issue totals, plus 100,000 expired idempotency keys; vacuumed, as
 *      autovacuum would have (PostgreSQL at BENCH_DATABASE_URL, default
 *      postgresql://postgres@127.0.0.1:5432/postgres);
 *   2. `next build` (skip with --no-build; NEXT_DIST_DIR is honoured), `next start`;
 *   3. wrk POST /api/events at concurrency BENCH_CONNECTIONS (default 16), in
 *      windows of BENCH_WINDOW seconds (default 10): 3 windows without
 *      deletion, then windows while `runRetention` (RETENTION_DAYS 90, as
 *      `npm run telltale -- retention` runs it) deletes, then 1 after;
 *      BENCH_RETENTION_BATCH and BENCH_RETENTION_PAUSE override its step
 *      size and pause ratio;
 *   4. prints each window's requests/s, p50, p99, the deletion's rows/s, and
 *      checks that issue totals did not change and the fresh events remain.
 *
 * Generated rows are made by INSERT … SELECT generate_series (seconds per
 * million rows), not through the API.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";
import { buildApp, checkpoint, cloneSeeded, ROOT, schemaTag, startServer, wrk, type WrkResult, useDatabase } from "@/harness/bench/harness";
import { wrkScript } from "@/harness/bench/workload";

const EXPIRED = Number(process.env.BENCH_EXPIRED ?? 5_000_000);
const FRESH = Number(process.env.BENCH_FRESH ?? 500_000);
const WINDOW = Number(process.env.BENCH_WINDOW ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const PORT = Number(process.env.BENCH_PORT ?? 3140);
const BATCH = process.env.BENCH_RETENTION_BATCH ? Number(process.env.BENCH_RETENTION_BATCH) : undefined;
/** Pause after each step, as a multiple of the step's time (runRetention's pauseRatio); unset: its default. */
const PAUSE = process.env.BENCH_RETENTION_PAUSE ? Number(process.env.BENCH_RETENTION_PAUSE) : undefined;
const PROJECTS = 4;
const ISSUES_PER_PROJECT = 250;
const RETENTION_DAYS = 90;
const DAY_MS = 86_400_000;
const build = !process.argv.includes("--no-build");

process.env.TELLTALE_SECRET ??= "bench-secret-bench-secret-bench-secret-0123";
process.env.TELLTALE_LOG ??= "silent";

// A UUIDv7-shaped id from the event's time (time-ordered, as the server makes
// them) and the row number.
const ID_SQL = `(lpad(to_hex((extract(epoch FROM t) * 1000)::bigint), 12, '0') || '7' || substr(md5(g::text), 1, 3) || '8' || substr(md5(g::text), 4, 15))::uuid`;

/** `count` events, evenly spread over [from, to), each in an issue drawn with a skew (a few issues carry most events). */
function insertEventsSql(count: number, offset: number, total: number, from: Date, to: Date): string {
  const span = to.getTime() - from.getTime();
  return `
INSERT INTO events (id, project_id, issue_id, level, message, context, received_at, occurred_at)
SELECT ${ID_SQL}, i.project_id, i.id, i.level,
       'Job ord_' || substr(md5(g::text), 1, 8) || ' failed in stage ' || i.n || ' after ' || (g % 997) || ' ms',
       jsonb_build_object('region', CASE WHEN g % 2 = 0 THEN 'eu-west-1' ELSE 'us-east-1' END, 'attempt', 1 + g % 3),
       t, t
FROM (
  SELECT g, TIMESTAMPTZ '${from.toISOString()}' + make_interval(secs => (g::float8 / ${total}) * ${span / 1000}) AS t,
         floor(${PROJECTS * ISSUES_PER_PROJECT} * power(((g::bigint * 2654435761) % 4294967296) / 4294967296.0, 3))::int AS n
  FROM generate_series(${offset}, ${offset + count - 1}) AS g
) s
JOIN bench_issues i ON i.n = s.n`;
}

async function seed(url: string): Promise<void> {
  process.env.DATABASE_URL = url;
  const { resetSettings } = await import("@/lib/config/settings");
  resetSettings();
  const { applyMigrations } = await import("@/tools/db/migrate");
  await applyMigrations(url);
  const { createProject, findOrCreateUserByEmail } = await import("@/lib/project-setup/create-project");
  const { disconnectDb } = await import("@/lib/db/client");
  const owner = await findOrCreateUserByEmail("bench-retention@example.test");
  for (let p = 0; p < PROJECTS; p++) await createProject(owner.id, `bench-retention-${p}`);
  await disconnectDb();

  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const step = async (label: string, sql: string) => {
    const t0 = Date.now();
    process.stdout.write(`${label}… `);
    const r = await client.query(sql);
    console.log(`${r.rowCount ?? ""} in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  };
  try {
    const now = Date.now();
    await step(
      "issues",
      `INSERT INTO issues (project_id, fingerprint_hash, level, title, sample_message, first_seen, last_seen, count)
       SELECT p.id, md5(p.id || ':' || k), (ARRAY['error','warn','info']::event_level[])[1 + k % 3],
              'Job <id> failed in stage ' || k || ' after <n> ms', 'Job ord_x failed in stage ' || k, now(), now(), 0
       FROM projects p, generate_series(0, ${ISSUES_PER_PROJECT - 1}) k WHERE p.name LIKE 'bench-retention-%'`,
    );
    await step(
      "issue table",
      `CREATE TABLE bench_issues AS SELECT (row_number() OVER (ORDER BY project_id, fingerprint_hash) - 1)::int AS n, id, project_id, level FROM issues`,
    );
    const chunk = 1_000_000;
    const expiredFrom = new Date(now - 120 * DAY_MS);
    const expiredTo = new Date(now - (RETENTION_DAYS + 1) * DAY_MS);
    for (let offset = 0; offset < EXPIRED; offset += chunk) {
      await step(`expired events ${offset.toLocaleString("en-US")}+`, insertEventsSql(Math.min(chunk, EXPIRED - offset), offset, EXPIRED, expiredFrom, expiredTo));
    }
    for (let offset = 0; offset < FRESH; offset += chunk) {
      await step(`fresh events ${offset.toLocaleString("en-US")}+`, insertEventsSql(Math.min(chunk, FRESH - offset), EXPIRED + offset, FRESH, new Date(now - 89 * DAY_MS), new Date(now - 60_000)));
    }
    await step("drop issue table", "DROP TABLE bench_issues");
    await step(
      "per-minute counts",
      `INSERT INTO issue_counts (issue_id, minute, level, project_id, count)
       SELECT issue_id, date_bin('1 minute', occurred_at, TIMESTAMPTZ 'epoch'), level, project_id, count(*) FROM events GROUP BY 1, 2, 3, 4`,
    );
    await step(
      "per-hour counts",
      `INSERT INTO issue_hours (issue_id, hour, level, project_id, count)
       SELECT issue_id, date_bin('1 hour', occurred_at, TIMESTAMPTZ 'epoch'), level, project_id, count(*) FROM events GROUP BY 1, 2, 3, 4`,
    );
    await step(
      "per-day counts",
      `INSERT INTO issue_days (issue_id, day, level, project_id, count)
       SELECT issue_id, date_bin('1 day', occurred_at, TIMESTAMPTZ 'epoch'), level, project_id, count(*) FROM events GROUP BY 1, 2, 3, 4`,
    );
    await step(
      "issue totals",
      `UPDATE issues i SET count = s.n, first_seen = s.f, last_seen = s.l
       FROM (SELECT issue_id, count(*) AS n, min(occurred_at) AS f, max(occurred_at) AS l FROM events GROUP BY 1) s WHERE i.id = s.issue_id`,
    );
    await step(
      "expired idempotency keys",
      `INSERT INTO idempotency_keys (project_id, key, response, created_at)
       SELECT (SELECT id FROM projects WHERE name = 'bench-retention-0'), 'k' || g, '{}'::jsonb, now() - interval '3 days' + g * interval '1 second'
       FROM generate_series(1, 100000) g`,
    );
    // As autovacuum would in production (this machine runs with it off).
    await step("VACUUM (ANALYZE)", "VACUUM (ANALYZE)");
  } finally {
    await client.end();
  }
}

type Window = { phase: "before" | "during" | "after"; result: WrkResult };

async function main() {
  const db = await cloneSeeded(`telltale_bench_retention_${schemaTag()}_${EXPIRED}_${FRESH}`, seed);
  let stopServer = () => {};
  const idsDir = fs.mkdtempSync(path.join(os.tmpdir(), "telltale-bench-retention-"));
  const pool = new pg.Pool({ connectionString: db.url, max: 2 });
  try {
    await useDatabase(db.url);
    const { prisma, disconnectDb } = await import("@/lib/db/client");
    const { rotateProjectKey } = await import("@/lib/keys/service");
    const { runRetention } = await import("@/lib/retention/retention");
    const target = await prisma.project.findFirstOrThrow({ where: { name: "bench-retention-0" }, select: { id: true } });
    const apiKey = await rotateProjectKey(target.id); // the seed key's plaintext is not kept

    const totals = async () =>
      (
        await pool.query<{ events: string; expired: string; issues: string; digest: string; minutes: string; hours: string }>(
          `SELECT (SELECT count(*) FROM events) AS events,
                  (SELECT count(*) FROM events WHERE occurred_at < now() - make_interval(days => ${RETENTION_DAYS})) AS expired,
                  (SELECT count(*) FROM issues) AS issues,
                  (SELECT md5(string_agg(id::text || count || first_seen || last_seen, ',' ORDER BY id)) FROM issues WHERE project_id <> $1) AS digest,
                  (SELECT count(*) FROM issue_counts) AS minutes, (SELECT count(*) FROM issue_hours) AS hours`,
          [target.id],
        )
      ).rows[0]!;
    const before = await totals();
    console.log(
      `database: ${Number(before.events).toLocaleString("en-US")} events (${Number(before.expired).toLocaleString("en-US")} older than ${RETENTION_DAYS} days), ` +
        `${Number(before.minutes).toLocaleString("en-US")} per-minute and ${Number(before.hours).toLocaleString("en-US")} per-hour count rows`,
    );

    if (build) buildApp();
    const server = await startServer(PORT, { DATABASE_URL: db.url, INGEST_RATE_LIMIT: "0" });
    stopServer = server.stop;
    const scriptFile = path.join(idsDir, "ingest.lua");
    fs.mkdirSync(path.join(idsDir, "ids"));
    fs.writeFileSync(scriptFile, wrkScript({ projectId: target.id, apiKey, idsDir: path.join(idsDir, "ids") }));
    const load = () => wrk(server, { path: "/", connections: CONNECTIONS, seconds: WINDOW, script: scriptFile });

    await load(); // warm-up: JIT, the pool, route compilation
    await checkpoint(); // as bench:ingest: the windows before and during retention start from the same point of the checkpoint cycle
    const windows: Window[] = [];
    const show = (w: Window) =>
      console.log(`${w.phase.padEnd(6)} ${Math.round(w.result.rps).toString().padStart(5)} req/s  p50 ${w.result.p50.toFixed(1).padStart(6)} ms  p99 ${w.result.p99.toFixed(1).padStart(6)} ms  max ${w.result.max.toFixed(0).padStart(5)} ms  non-2xx ${w.result.non2xx}  errors ${w.result.errors}`);
    for (let i = 0; i < 3; i++) {
      windows.push({ phase: "before", result: await load() });
      show(windows.at(-1)!);
    }

    console.log(`retention (${RETENTION_DAYS} days, batches of ${BATCH ?? "the default"}, pause ratio ${PAUSE ?? "the default"}) starts, with the load`);
    let finished = false;
    const retention = runRetention({ days: RETENTION_DAYS, batchSize: BATCH, pauseRatio: PAUSE }).finally(() => (finished = true));
    let failures = 0;
    while (!finished) {
      try {
        windows.push({ phase: "during", result: await load() });
        show(windows.at(-1)!);
      } catch (error) {
        // Another process on this shared machine may kill wrk: that window is lost, the run goes on.
        console.log(`a wrk window failed: ${(error as Error).message.split("\n")[0]}`);
        if (++failures > 5) throw error;
      }
    }
    const report = await retention;
    windows.push({ phase: "after", result: await load() });
    show(windows.at(-1)!);
    await disconnectDb();

    const after = await totals();
    const seconds = report.durationMs / 1000;
    const { events, minuteCounts, hourCounts, dayCounts, idempotencyKeys } = report.deleted;
    console.log(
      `\nretention: ${events.toLocaleString("en-US")} events, ${minuteCounts.toLocaleString("en-US")} per-minute, ${hourCounts.toLocaleString("en-US")} per-hour and ${dayCounts.toLocaleString("en-US")} per-day counts, ` +
        `${idempotencyKeys.toLocaleString("en-US")} idempotency keys in ${seconds.toFixed(1)} s: ` +
        `${Math.round(events / seconds).toLocaleString("en-US")} events/s, ${Math.round((events + minuteCounts + hourCounts + dayCounts + idempotencyKeys) / seconds).toLocaleString("en-US")} rows/s`,
    );

    const phase = (p: Window["phase"]) => windows.filter((w) => w.phase === p).map((w) => w.result);
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
    const summary = (["before", "during", "after"] as const).map((p) => {
      const rs = phase(p);
      return {
        phase: p,
        windows: rs.length,
        "req/s (median)": Math.round(median(rs.map((r) => r.rps))),
        "p50 ms (median)": median(rs.map((r) => r.p50)),
        "p99 ms (median)": median(rs.map((r) => r.p99)),
        "p99 ms (worst)": Math.max(...rs.map((r) => r.p99)),
        "non-2xx": rs.reduce((n, r) => n + r.non2xx + r.errors, 0),
      };
    });
    console.log("");
    console.table(summary);

    const during = summary[1]!;
    const checks = [
      [`every expired event deleted (${Number(before.expired).toLocaleString("en-US")})`, events === Number(before.expired) && Number(after.expired) === 0],
      ["issue totals of the other projects unchanged", after.digest === before.digest],
      ["no non-2xx answers or socket errors", summary.every((s) => s["non-2xx"] === 0)],
      [`ingest p99 while deleting < 50 ms (c${CONNECTIONS}, median of ${during.windows} windows)`, during["p99 ms (median)"] < 50],
      [`ingest p99 while deleting < 50 ms in every window (worst ${during["p99 ms (worst)"]} ms)`, during["p99 ms (worst)"] < 50],
    ] as const;
    for (const [name, ok] of checks) console.log(`${ok ? "PASS" : "MISS"}  ${name}`);
    console.log("(a shared 2-core machine: figures move with whatever else runs)");
    fs.mkdirSync(path.join(ROOT, "bench-results"), { recursive: true });
    fs.writeFileSync(
      path.join(ROOT, "bench-results", `retention-${Date.now()}.json`),
      JSON.stringify({ expired: EXPIRED, fresh: FRESH, connections: CONNECTIONS, window: WINDOW, report, windows, summary, checks }, null, 2),
    );
  } finally {
    stopServer();
    await pool.end().catch(() => {});
    await db.drop().catch((e) => console.error("could not drop the bench database:", e));
    fs.rmSync(idsDir, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
