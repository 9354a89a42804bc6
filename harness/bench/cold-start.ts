/**
 * npm run bench:cold-start: time from starting a server process to its first
 * `201` on POST /api/events (the first event stored), median of
 * BENCH_RUNS runs (default 5), for
 *   - `node server.js` of the container image (the Dockerfile's runner stage
 *     performed on this checkout's build, as `npm run test:standalone` does);
 *   - `npm start` (ops/start.ts: settings and migration checks, then
 *     `next start`).
 * Needs a build (`npm run build`; NEXT_DIST_DIR is honoured) and the
 * machine's PostgreSQL (PGHOST/PGPORT/PGUSER). The disk cache is warm after
 * the first run, as on a serverless host that keeps the image on its disk;
 * the process, its JIT, its pool and key cache start cold every time.
 */
import fs from "node:fs";
import { freePort } from "@/tests/helpers/free-port";
import {
  assembleRunner,
  containerEnv,
  generatedSecret,
  readRunnerStage,
  readToolsCommand,
  ROOT,
  runTool,
  scratchDatabase,
  spawnImageCommand,
  stopGroup,
} from "@/scripts/standalone-image";

const RUNS = Number(process.env.BENCH_RUNS ?? 5);

type Sample = { firstLiveMs: number | null; first201Ms: number; rssMb: number };

/** Starts `command`, then POSTs an event every few milliseconds until one is answered 201. */
async function coldStart(command: string[], cwd: string, env: Record<string, string>, port: number, project: { id: string; apiKey: string }): Promise<Sample> {
  const base = `http://127.0.0.1:${port}`;
  const started = performance.now();
  const child = spawnImageCommand(command, cwd, env);
  let firstLiveMs: number | null = null;
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`${command.join(" ")} exited with ${child.exitCode}`);
      if (performance.now() - started > 120_000) throw new Error("no 201 within 120 s");
      const res = await fetch(`${base}/api/events`, {
        method: "POST",
        headers: { authorization: `Bearer ${project.apiKey}`, "content-type": "application/json" },
        body: JSON.stringify({ level: "info", message: "cold start probe", projectId: project.id }),
      }).catch(() => null);
      if (res) {
        firstLiveMs ??= performance.now() - started; // the first answer of any kind
        await res.arrayBuffer();
        if (res.status === 201) break;
      }
      await new Promise((r) => setTimeout(r, 5));
    }
    const first201Ms = performance.now() - started;
    const rssMb = groupRssMb(child.pid!);
    return { firstLiveMs, first201Ms, rssMb };
  } finally {
    await stopGroup(child, 5_000);
  }
}

/** Resident memory of every process in a process group (Linux /proc), in MB. */
function groupRssMb(pgid: number): number {
  let kb = 0;
  for (const entry of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, "utf8");
      if (Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[2]) !== pgid) continue;
      kb += Number(/VmRSS:\s+(\d+)/.exec(fs.readFileSync(`/proc/${entry}/status`, "utf8"))?.[1] ?? 0);
    } catch {
      // the process ended meanwhile
    }
  }
  return Math.round(kb / 1024);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

async function main(): Promise<void> {
  const stage = readRunnerStage();
  const app = assembleRunner(stage);
  const db = await scratchDatabase("coldstart");
  try {
    const secrets = { TELLTALE_SECRET: generatedSecret(), AUTH_SECRET: generatedSecret() };
    runTool(readToolsCommand(), { DATABASE_URL: db.url, NODE_ENV: "production" });
    const project = JSON.parse(
      runTool(["npm", "run", "--silent", "telltale", "--", "project", "create", "--name", "cold start", "--owner", "cold@bench.test", "--json"], {
        DATABASE_URL: db.url,
        NODE_ENV: "production",
        ...secrets,
      }),
    ) as { id: string; apiKey: string };
    const runtime = { DATABASE_URL: db.url, ...secrets, AUTH_URL: "http://localhost:3000", TELLTALE_LOG: "silent" };

    const servers: { name: string; run: (port: number) => Promise<Sample> }[] = [
      {
        name: `node server.js (container image, ${stage.env.NODE_OPTIONS ?? "no NODE_OPTIONS"})`,
        run: (port) => coldStart(stage.cmd, app, containerEnv(stage, { ...runtime, PORT: String(port) }), port, project),
      },
      {
        name: "npm start (checks, then next start)",
        run: (port) => coldStart(["npm", "start"], ROOT, { ...(process.env as Record<string, string>), ...runtime, NODE_ENV: "production", PORT: String(port) }, port, project),
      },
    ];
    const rows: Record<string, unknown>[] = [];
    for (const server of servers) {
      const samples: Sample[] = [];
      for (let i = 0; i < RUNS; i++) {
        const sample = await server.run(await freePort());
        samples.push(sample);
        console.log(`${server.name}: run ${i + 1}: first answer ${sample.firstLiveMs?.toFixed(0)} ms, first 201 ${sample.first201Ms.toFixed(0)} ms, RSS ${sample.rssMb} MB`);
      }
      rows.push({
        server: server.name,
        runs: RUNS,
        "first 201, median ms": Math.round(median(samples.map((s) => s.first201Ms))),
        "min ms": Math.round(Math.min(...samples.map((s) => s.first201Ms))),
        "max ms": Math.round(Math.max(...samples.map((s) => s.first201Ms))),
        "first answer, median ms": Math.round(median(samples.map((s) => s.firstLiveMs ?? NaN))),
        "RSS after, median MB": median(samples.map((s) => s.rssMb)),
      });
    }
    console.log("");
    console.table(rows);
    console.log("(a shared 2-core machine: figures move with whatever else runs)");
    fs.mkdirSync(`${ROOT}/bench-results`, { recursive: true });
    fs.writeFileSync(`${ROOT}/bench-results/cold-start-${Date.now()}.json`, JSON.stringify(rows, null, 2));
  } finally {
    await db.drop().catch((e) => console.error(`could not drop the database: ${(e as Error).message}`));
    fs.rmSync(app, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
