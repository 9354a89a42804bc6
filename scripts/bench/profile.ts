/**
 * npm run bench:profile: where single-event ingest spends its CPU. Starts
 * the production server with --cpu-prof on a clone of the bench:ingest
 * template (run bench:ingest once first), loads POST /api/events with wrk
 * (grouping load, BENCH_CONNECTIONS, default 16) for BENCH_DURATION seconds
 * (default 10); BENCH_LIVE=1 loads the no-database route instead; then prints:
 *   - CPU per request of the server, of PostgreSQL's processes and of wrk;
 *   - the server's hottest functions by self time, and by file.
 * The .cpuprofile is kept (its path is printed) for Chrome's DevTools.
 */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { cloneSeeded, schemaTag, startServer, wrk, useDatabase } from "@/scripts/bench/harness";
import { ingestTemplateName, wrkScript } from "@/scripts/bench/workload";

const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const PORT = Number(process.env.BENCH_PORT ?? 3100);
const PREFILL = Number(process.env.BENCH_PREFILL ?? 1_000_000);
const BATCH = Number(process.env.BENCH_BATCH ?? 0);
/** BENCH_LIVE=1: profile the no-database route instead, to compare with. */
const LIVE = process.env.BENCH_LIVE === "1";

process.env.TELLTALE_SECRET ??= "bench-secret-bench-secret-bench-secret-0123";
process.env.TELLTALE_LOG ??= "silent";

/** CPU ms of every process whose command name starts with `name` (Linux /proc). */
function cpuMsOf(name: string): number {
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

type ProfileNode = { id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] };
type Profile = { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[] };

function summarize(file: string): void {
  const profile = JSON.parse(fs.readFileSync(file, "utf8")) as Profile;
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const total = [...self.values()].reduce((a, b) => a + b, 0);
  const byFunction = new Map<string, number>();
  const byFile = new Map<string, number>();
  for (const [id, us] of self) {
    const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
    const short = url.replace(/^file:\/\//, "").replace(process.cwd() + "/", "");
    const fileKey = short.replace(/\/[^/]*$/, "") || "(native)";
    const fnKey = `${functionName || "(anonymous)"} ${short ? `${short}:${lineNumber + 1}` : ""}`.trim();
    byFunction.set(fnKey, (byFunction.get(fnKey) ?? 0) + us);
    byFile.set(fileKey, (byFile.get(fileKey) ?? 0) + us);
  }
  const top = (m: Map<string, number>, n: number) =>
    [...m.entries()].sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, us]) => `${((us / total) * 100).toFixed(1).padStart(5)}%  ${k}`).join("\n");
  console.log(`\nhottest functions (self time, ${(total / 1000).toFixed(0)} ms sampled):\n${top(byFunction, 30)}`);
  console.log(`\nby directory:\n${top(byFile, 15)}`);
}

async function main() {
  const template = ingestTemplateName(schemaTag(), PREFILL);
  const db = await cloneSeeded(template, async () => {
    throw new Error(`no template ${template}: run npm run bench:ingest once first`);
  });
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "telltale-profile-"));
  let stop = () => {};
  try {
    await useDatabase(db.url);
    const { prisma, disconnectDb } = await import("@/lib/db/client");
    const { rotateProjectKey } = await import("@/lib/keys/service");
    const project = await prisma.project.findFirstOrThrow({ where: { name: "bench-prefilled" }, select: { id: true } });
    const apiKey = await rotateProjectKey(project.id);
    await disconnectDb();
    const server = await startServer(PORT, { DATABASE_URL: db.url, INGEST_RATE_LIMIT: "0" }, { cpuProfileDir: dir });
    stop = server.stop;
    const idsDir = path.join(dir, "ids");
    fs.mkdirSync(idsDir);
    const script = path.join(dir, "load.lua");
    fs.writeFileSync(script, wrkScript({ projectId: project.id, apiKey, idsDir, batch: BATCH }));
    const load = LIVE ? { path: "/api/health/live" } : { path: "/", script };
    await wrk(server, { ...load, connections: 8, seconds: 3 }); // warm-up
    const pgBefore = cpuMsOf("postgres");
    const r = await wrk(server, { ...load, connections: CONNECTIONS, seconds: DURATION });
    const pgMs = cpuMsOf("postgres") - pgBefore;
    console.log(
      `${LIVE ? "GET /api/health/live" : BATCH ? `batch ${BATCH}` : "single"} c${CONNECTIONS}: ${Math.round(r.rps)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms; ` +
        `CPU per request: server ${r.cpuMsPerRequest.toFixed(2)} ms, PostgreSQL ${(pgMs / r.requests).toFixed(2)} ms, wrk ${r.wrkCpuMsPerRequest.toFixed(2)} ms`,
    );
    stop();
    stop = () => {};
    // The profile is written when the server exits.
    const deadline = Date.now() + 30_000;
    let file: string | undefined;
    while (Date.now() < deadline && !(file = fs.readdirSync(dir).find((f) => f.endsWith(".cpuprofile")))) await new Promise((res) => setTimeout(res, 200));
    if (!file) throw new Error("no .cpuprofile written");
    await new Promise((res) => setTimeout(res, 1000));
    const files = fs.readdirSync(dir).filter((f) => f.endsWith(".cpuprofile")).map((f) => path.join(dir, f));
    // next start forks: the largest profile is the process that served.
    const largest = files.sort((a, b) => fs.statSync(b).size - fs.statSync(a).size)[0]!;
    summarize(largest);
    console.log(`\nprofile: ${largest}`);
  } finally {
    stop();
    await db.drop().catch(() => {});
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
