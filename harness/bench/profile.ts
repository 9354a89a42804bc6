/**
 * npm run bench:profile: where single-event ingest spends its CPU, against
 * the no-database route of the same server. Starts the production server
 * with --cpu-prof on a clone of the bench:ingest template (run bench:ingest
 * once first), loads GET /api/health/live and then POST /api/events with
 * SDK-sized events (about 4 KB, harness/bench/sdk-events.ts; BENCH_BATCH=100:
 * the batch route; BENCH_ROUTE=envelope: the Sentry envelope route with the
 * same events; BENCH_ROUTE=otlp: POST /v1/logs with bench:ingest's protobuf
 * requests of 100 log records, harness/bench/otlp-logs.ts) with wrk, BENCH_CONNECTIONS
 * (default 16) for BENCH_DURATION seconds each (default 10), and cuts the one
 * profile at the two runs' start and end, so that start-up and warm-up are
 * left out and both routes are measured in the same process. Prints:
 *   - per route: requests/s and CPU per request of the server, PostgreSQL and wrk;
 *   - the profile's microseconds per request by kind of code (Next.js,
 *     Node.js's modules, the app's folders and the packages bundled with it,
 *     pg, garbage collection...), for each route and the difference;
 *   - the functions whose self time per request grew most from one route to the other.
 * Bundled frames are named by their source (the build's source maps). The
 * .cpuprofile is kept (its path is printed) for Chrome's DevTools, with its
 * runs' windows beside it: BENCH_REPORT=<its path> prints the tables again.
 */
import fs from "node:fs";
import { SourceMap } from "node:module";
import os from "node:os";
import path from "node:path";
import { checkpoint, cloneSeeded, cpuMsOf, OPENING_PAUSE_MS, schemaTag, startServer, wrk, useDatabase, type WrkResult } from "@/harness/bench/harness";
import { prepareOtlpRequests } from "@/harness/bench/otlp-logs";
import { prepareRequests } from "@/harness/bench/sdk-events";
import { ingestTemplateName } from "@/harness/bench/workload";

const DURATION = Number(process.env.BENCH_DURATION ?? 10);
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 16);
const PORT = Number(process.env.BENCH_PORT ?? 3100);
const PREFILL = Number(process.env.BENCH_PREFILL ?? 1_000_000);
const BATCH = Number(process.env.BENCH_BATCH ?? 0);
const ENVELOPE = process.env.BENCH_ROUTE === "envelope";
const OTLP = process.env.BENCH_ROUTE === "otlp";
/** The part of each run the profile leaves out: wrk's opening pause (harness.ts) and a margin after it, and the last moments. */
const SKIP_START_US = OPENING_PAUSE_MS * 1000 + 200_000;
const SKIP_END_US = 100_000;
if (!(DURATION >= 3)) throw new Error("BENCH_DURATION must be at least 3 seconds: the profile leaves out up to 0.6 s of each run");

process.env.TELLTALE_SECRET ??= "bench-secret-bench-secret-bench-secret-0123";
process.env.TELLTALE_LOG ??= "silent";

type ProfileNode = { id: number; callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number }; children?: number[] };
type Profile = { nodes: ProfileNode[]; samples: number[]; timeDeltas: number[]; startTime: number };
/** A run's place in the profile: microseconds on the clock V8 stamps samples with (CLOCK_MONOTONIC, as process.hrtime). */
type Window = { route: string; from: number; to: number; requests: number };
type Tally = { total: number; idle: number; byKind: Map<string, number>; byFunction: Map<string, number> };

const monotonicUs = () => Number(process.hrtime.bigint() / 1000n);

/**
 * A bundled frame's place in its source, through the build's source maps
 * (`next build` writes a .map beside each server chunk): the minified
 * names of the production bundles say nothing. Null when there is no map.
 */
type Original = { source: string; line: number; name: string | undefined };
const sourceMaps = new Map<string, SourceMap | null>();
function originalOf(url: string, line: number, column: number): Original | null {
  if (!url.includes("/.next/")) return null;
  let map = sourceMaps.get(url);
  if (map === undefined) {
    const file = `${url.replace(/^file:\/\//, "")}.map`;
    map = fs.existsSync(file) ? new SourceMap(JSON.parse(fs.readFileSync(file, "utf8"))) : null;
    sourceMaps.set(url, map);
  }
  const entry = map?.findEntry(line, column) as { originalSource?: string; originalLine?: number; name?: string } | undefined;
  if (!entry?.originalSource) return null;
  return { source: entry.originalSource.replace(/^(\.\.\/)+/, "").replace(/^.*node_modules\//, "node_modules/"), line: (entry.originalLine ?? 0) + 1, name: entry.name };
}

/** What kind of code a frame is: the unit of the by-kind table. */
function kindOf(url: string, functionName: string, original: Original | null): string {
  if (!url) return functionName.startsWith("(") ? functionName : "(native: builtins, JSON, regexps)";
  if (original) {
    // Bundled code by its source: Telltale's folders, and the packages bundled with it.
    if (original.source.startsWith("node_modules/")) return `bundled ${original.source.split("/")[1]!.startsWith("@") ? original.source.split("/").slice(1, 3).join("/") : original.source.split("/")[1]}`;
    return `app ${original.source.split("/").slice(0, original.source.startsWith("lib/") ? 2 : 1).join("/")}`;
  }
  if (url.includes("/.next/")) return "app bundles (Telltale, and what Next.js bundled with it)";
  if (url.includes("node_modules/next/")) return "next";
  if (url.includes("node_modules/")) return url.split("node_modules/").pop()!.split("/")[0]!;
  return url.replace(/^node:internal\/deps\/([^/]+).*/, "node:$1").replace(/^node:internal\/([^/]+).*/, "node:$1").replace(/^node:([a-z_]+).*/, "node:$1");
}

/** Self time per kind and per function of the samples inside each window, by route. */
function tally(profile: Profile, windows: Window[]): Map<string, Tally> {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const tallies = new Map(windows.map((w) => [w.route, { total: 0, idle: 0, byKind: new Map<string, number>(), byFunction: new Map<string, number>() }]));
  const add = (m: Map<string, number>, k: string, us: number) => m.set(k, (m.get(k) ?? 0) + us);
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i] ?? 0;
    const window = windows.find((w) => at >= w.from && at < w.to);
    if (!window) return;
    // A sample stands for the time until the next one.
    const us = profile.timeDeltas[i + 1] ?? 0;
    const { functionName, url, lineNumber, columnNumber } = byId.get(id)!.callFrame;
    const original = originalOf(url, lineNumber, columnNumber);
    const short = original ? `${original.source}:${original.line}` : url.replace(/^file:\/\//, "").replace(process.cwd() + "/", "").replace(/^.*node_modules\//, "");
    const name = original?.name ?? functionName;
    const t = tallies.get(window.route)!;
    // Samples cover wall-clock time: waiting is counted apart from work.
    if (functionName === "(idle)") t.idle += us;
    else t.total += us;
    add(t.byKind, kindOf(url, functionName, original), us);
    add(t.byFunction, `${name || "(anonymous)"} ${short ? (original ? short : `${short}:${lineNumber + 1}`) : ""}`.trim(), us);
  });
  return tallies;
}

function printComparison(profile: Profile, base: Window, subject: Window): void {
  const tallies = tally(profile, [base, subject]);
  const b = tallies.get(base.route)!;
  const s = tallies.get(subject.route)!;
  const perRequest = (t: Tally, w: Window, k: string, m: "byKind" | "byFunction") => (t[m].get(k) ?? 0) / w.requests;
  const rows = (m: "byKind" | "byFunction", n: number) =>
    [...new Set([...b[m].keys(), ...s[m].keys()])]
      .map((k) => ({ k, subject: perRequest(s, subject, k, m), base: perRequest(b, base, k, m) }))
      .sort((x, y) => y.subject - y.base - (x.subject - x.base))
      .slice(0, n)
      .map((r) => `${(r.subject - r.base).toFixed(1).padStart(8)} ${r.subject.toFixed(1).padStart(8)} ${r.base.toFixed(1).padStart(8)}  ${r.k}`)
      .join("\n");
  console.log(
    `\nthe main thread per request: ${subject.route} ${(s.total / subject.requests).toFixed(0)} µs working, ${(s.idle / subject.requests).toFixed(0)} µs waiting; ` +
      `${base.route} ${(b.total / base.requests).toFixed(0)} µs working, ${(b.idle / base.requests).toFixed(0)} µs waiting`,
  );
  console.log(`\nby kind of code, µs per request, every kind ("(idle)": waiting) (difference, ${subject.route}, ${base.route}):\n${rows("byKind", Infinity)}`);
  console.log(`\nfunctions whose self time grew most, µs per request (difference, ${subject.route}, ${base.route}):\n${rows("byFunction", 40)}`);
}

async function main() {
  // BENCH_REPORT=<.cpuprofile>: the tables of a kept profile again (its runs' windows are kept beside it), against the build it was taken with.
  const kept = process.env.BENCH_REPORT;
  if (kept) {
    const [base, subject] = JSON.parse(fs.readFileSync(`${kept}.windows.json`, "utf8")) as [Window, Window];
    printComparison(JSON.parse(fs.readFileSync(kept, "utf8")) as Profile, base, subject);
    return;
  }
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
    const project = await prisma.project.findFirstOrThrow({ where: { name: "bench-prefilled" }, select: { id: true, number: true } });
    const apiKey = await rotateProjectKey(project.id);
    const publicKey = await rotateProjectKey(project.id, "public");
    await disconnectDb();
    const server = await startServer(PORT, { DATABASE_URL: db.url, INGEST_RATE_LIMIT: "0", SENTRY_CLIENT_RATE_LIMIT: "0" }, { cpuProfileDir: dir });
    stop = server.stop;
    const kind = ENVELOPE ? "envelope" : BATCH ? "batch" : "native";
    const { script, bodyBytes } = OTLP
      ? await prepareOtlpRequests(dir, { projectId: project.id, apiKey, count: 40, batch: 100, seed: Date.now() })
      : await prepareRequests(dir, kind, {
          projectId: project.id,
          apiKey,
          publicKey,
          projectNumber: project.number,
          count: kind === "batch" ? 40 : 2000,
          batch: BATCH || 100,
          seed: Date.now(),
        });
    console.log(`bodies of ${bodyBytes} bytes (the first)`);
    const subjectRoute = OTLP ? "POST /v1/logs (protobuf, 100/req)" : ENVELOPE ? "POST /api/<n>/envelope/" : BATCH ? `POST /api/events/batch (${BATCH}/req)` : "POST /api/events";
    const routes = [
      { route: "GET /api/health/live", load: { path: "/api/health/live" } },
      // The OTLP script tells its connections apart: one per wrk thread, as in bench:ingest.
      { route: subjectRoute, load: { path: "/", script, ...(OTLP ? { threads: CONNECTIONS } : {}) } },
    ];
    for (const { load } of routes) await wrk(server, { ...load, connections: 8, ...("threads" in load ? { threads: 8 } : {}), seconds: 3 }); // warm-up: JIT, pool, routes
    await checkpoint(); // as bench:ingest: the runs start at the same point of PostgreSQL's checkpoint cycle
    const windows: Window[] = [];
    for (const { route, load } of routes) {
      const pgBefore = cpuMsOf("postgres");
      // Past wrk's opening pause (each connection's first request waits for it), and before its end.
      const start = monotonicUs();
      const from = start + SKIP_START_US;
      const r: WrkResult = await wrk(server, { ...load, connections: CONNECTIONS, seconds: DURATION });
      const to = Math.min(monotonicUs(), start + DURATION * 1_000_000) - SKIP_END_US;
      const pgMs = cpuMsOf("postgres") - pgBefore;
      // The rate while loaded: wrk's own requests/s counts the opening pause.
      windows.push({ route, from, to, requests: (r.requests / (DURATION - OPENING_PAUSE_MS / 1000)) * ((to - from) / 1e6) });
      console.log(
        `${route} c${CONNECTIONS}: ${Math.round(r.rps)} req/s, p50 ${r.p50} ms, p99 ${r.p99} ms; ` +
          `CPU per request: server ${r.cpuMsPerRequest.toFixed(2)} ms, PostgreSQL ${(pgMs / r.requests).toFixed(2)} ms, wrk ${r.wrkCpuMsPerRequest.toFixed(2)} ms`,
      );
    }
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
    fs.writeFileSync(`${largest}.windows.json`, JSON.stringify(windows));
    printComparison(JSON.parse(fs.readFileSync(largest, "utf8")) as Profile, windows[0]!, windows[1]!);
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
