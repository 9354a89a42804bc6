/**
 * npm run bench:statement: what one ingest statement costs PostgreSQL, per
 * event, for statements of BENCH_SIZES events (default 16, 100, 1000: a
 * flush of single requests at c16, one batch request, a backlog), measured
 * as the CPU time of the database's own backends (/proc/<pid>/stat), which
 * a busy host moves far less than wall time. Runs storeEventsNow (the
 * statement group commit sends, without the queue) on a clone of the
 * bench:ingest template with SDK-sized events (harness/bench/sdk-events.ts,
 * the same sampler bench:ingest sends), BENCH_RUNS statements per size
 * (default 20), sizes interleaved, and prints per size the
 * backend CPU per event (summed over the runs: /proc counts in 10 ms
 * ticks) and the wall time per statement.
 * The same rows inserted from one JSON parameter into a table of the events
 * table's shape, nothing else, are measured the same way: the floor of
 * storing them. The tag counts the statements leave in the backlog are
 * folded every BENCH_FOLD_EVERY runs (default 10: about what a busy
 * server's background fold takes at once), and that CPU is printed per
 * event too. BENCH_SETUP_SQL runs on the clone first (an experiment:
 * a dropped constraint, an index).
 */
import fs from "node:fs";
import pg from "pg";
import { v7 as uuidv7 } from "uuid";
import { checkpoint, cloneSeeded, schemaTag, useDatabase } from "@/harness/bench/harness";
import { nativeEventOf, sdkEventSampler } from "@/harness/bench/sdk-events";
import { ingestTemplateName } from "@/harness/bench/workload";

const PREFILL = Number(process.env.BENCH_PREFILL ?? 1_000_000);
const RUNS = Number(process.env.BENCH_RUNS ?? 20);
const SIZES = (process.env.BENCH_SIZES ?? "16,100,1000").split(",").map(Number);
const FOLD_EVERY = Number(process.env.BENCH_FOLD_EVERY ?? 10);

process.env.TELLTALE_SECRET ??= "bench-secret-bench-secret-bench-secret-0123";
process.env.TELLTALE_LOG ??= "silent";

const TICK_MS = 1000 / 100; // USER_HZ: /proc/<pid>/stat counts in ticks of 10 ms

/** CPU ms used so far by the backends connected to `database` (one of them is `probe` itself, which is idle between reads). */
async function backendsCpuMs(probe: pg.Client): Promise<number> {
  const { rows } = await probe.query<{ pid: number }>("SELECT pid FROM pg_stat_activity WHERE datname = current_database()");
  let ticks = 0;
  for (const { pid } of rows) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      ticks += Number(fields[11]) + Number(fields[12]); // utime, stime
    } catch {
      // A backend that ended between the two reads.
    }
  }
  return ticks * TICK_MS;
}

const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const fmt = (n: number, digits = 0) => n.toLocaleString("en-US", { maximumFractionDigits: digits, minimumFractionDigits: digits });

async function main() {
  const template = ingestTemplateName(schemaTag(), PREFILL);
  const db = await cloneSeeded(template, async () => {
    throw new Error(`no template ${template}: run npm run bench:ingest once first`);
  });
  const probe = new pg.Client({ connectionString: db.url });
  try {
    await useDatabase(db.url);
    await probe.connect();
    const { prisma, disconnectDb } = await import("@/lib/db/client");
    const { storeEventsNow } = await import("@/lib/ingest/writer");
    const { settleTagCounts } = await import("@/lib/issues/tag-backlog");
    const { newEventRow } = await import("@/lib/ingest/ingest");
    const { validateEvent } = await import("@/lib/events/schema");
    const project = await prisma.project.findFirstOrThrow({ where: { name: "bench-prefilled" }, select: { id: true } });
    const key = await prisma.apiKey.findFirstOrThrow({ where: { projectId: project.id }, select: { id: true } });
    await probe.query("CREATE TABLE copy_floor (LIKE events INCLUDING ALL)");
    // An experiment on the clone before measuring (a dropped constraint, an index, a setting).
    if (process.env.BENCH_SETUP_SQL) await probe.query(process.env.BENCH_SETUP_SQL);

    const work = sdkEventSampler(7);
    const rowsOf = async (n: number) => {
      const now = new Date();
      const rows = [];
      for (let i = 0; i < n; i++) {
        const native = await nativeEventOf(work.sentryEvent("0".repeat(32), now), project.id);
        delete ((native.context as Record<string, unknown>).sentry as Record<string, unknown>).event_id;
        const valid = validateEvent(native).event;
        if (!valid) throw new Error("the bench's event is refused");
        rows.push(newEventRow(valid, key.id, now, uuidv7()));
      }
      return rows;
    };
    // Warm-up: the prepared statement gets its generic plan from the sixth run on.
    for (let i = 0; i < 8; i++) await storeEventsNow(await rowsOf(SIZES[0]!));
    await settleTagCounts();
    await checkpoint();
    const fold = { cpu: 0, events: 0, statements: 0 };

    const results = new Map<number, { cpu: number[]; wall: number[]; copyCpu: number[] }>(SIZES.map((s) => [s, { cpu: [], wall: [], copyCpu: [] }]));
    for (let run = 0; run < RUNS; run++) {
      for (const size of SIZES) {
        const rows = await rowsOf(size);
        const cpu0 = await backendsCpuMs(probe);
        const t0 = performance.now();
        const { stored } = await storeEventsNow(rows);
        const wall = performance.now() - t0;
        const cpu = (await backendsCpuMs(probe)) - cpu0;
        if (stored !== size) throw new Error(`stored ${stored} of ${size}`);
        const r = results.get(size)!;
        r.cpu.push(cpu);
        r.wall.push(wall);
        // The floor: the same rows from one JSON parameter straight into a table, nothing else.
        const json = JSON.stringify(
          rows.map((row) => ({ ...row, id: uuidv7(), project_id: row.projectId, received_at: row.receivedAt, occurred_at: row.occurredAt, user_info: row.user })),
        );
        const copyCpu0 = await backendsCpuMs(probe);
        await probe.query("INSERT INTO copy_floor SELECT * FROM jsonb_populate_recordset(null::copy_floor, $1::jsonb)", [json]);
        r.copyCpu.push((await backendsCpuMs(probe)) - copyCpu0);
      }
      if ((run + 1) % FOLD_EVERY === 0 || run === RUNS - 1) {
        const pending = Number((await probe.query<{ n: string }>("SELECT count(*) AS n FROM tag_count_backlog")).rows[0]!.n);
        const cpu0 = await backendsCpuMs(probe);
        await settleTagCounts();
        fold.statements += pending;
        fold.cpu += (await backendsCpuMs(probe)) - cpu0;
      }
      fold.events += sum(SIZES);
      process.stdout.write(`\rrun ${run + 1}/${RUNS}   `);
    }
    process.stdout.write("\n");
    const load = fs.readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");
    console.log(`\nIngest statement, SDK-sized events, ${RUNS} statements per size (load ${load})`);
    console.log("| events per statement | backend CPU µs per event | wall ms per statement, median (lowest) | the same rows alone from JSON, CPU µs per event |");
    console.log("|---:|---:|---:|---:|");
    const perEvent = (ms: number[], size: number) => (sum(ms) * 1000) / (ms.length * size);
    for (const [size, r] of results) {
      console.log(`| ${size} | ${fmt(perEvent(r.cpu, size))} | ${fmt(median(r.wall), 1)} (${fmt(Math.min(...r.wall), 1)}) | ${fmt(perEvent(r.copyCpu, size))} |`);
    }
    console.log(`Folding the tag count backlog (${fold.statements} statements' rows, every ${FOLD_EVERY} runs): ${fmt((fold.cpu * 1000) / fold.events)} µs of backend CPU per event, all sizes.`);
    console.log("(CPU is counted in 10 ms ticks, so it is summed over all runs of a size before dividing.)");
    await disconnectDb();
  } finally {
    await probe.end().catch(() => {});
    await db.drop();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
