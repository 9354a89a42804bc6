/**
 * The production server for the chaos run: a private copy of the build
 * (others build in the same working tree; a rebuild in the middle of the
 * run must not change the server between two restarts), `next start` in its
 * own process group, its output in a log file the run reads back.
 *
 * The build is read from NEXT_DIST_DIR (default `.next`) in the working
 * tree. With NEXT_DIST_DIR set, a stale or missing build is rebuilt into
 * that folder, so the next run can reuse it (`NEXT_DIST_DIR=.next-chaos`);
 * without it, `.next` is never written: a private copy of the sources is
 * built instead, and thrown away after the run.
 */
import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";

export const ROOT = path.resolve(import.meta.dirname, "../..");

/** What the build is made from: a newer file here means the build is stale. */
const SOURCES = ["app", "lib", "components", "public", "proxy.ts", "instrumentation.ts", "next.config.ts", "package.json", "package-lock.json", "tsconfig.json", "tsconfig.build.json", "postcss.config.mjs", "prisma/schema.prisma"];
/** Never copied into a private build folder. */
const NOT_COPIED = new Set(["node_modules", ".next", ".git", ".telltale", ".scratch", "bench-results", "test-results", "playwright-report", "tsconfig.tsbuildinfo"]);

function newestMtime(entry: string): number {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(entry);
  } catch {
    return 0;
  }
  if (!stat.isDirectory()) return stat.mtimeMs;
  let newest = stat.mtimeMs;
  for (const child of fs.readdirSync(entry)) newest = Math.max(newest, newestMtime(path.join(entry, child)));
  return newest;
}

/** The working tree's build folder: NEXT_DIST_DIR (as next.config.ts reads it), else `.next`. */
export function distDir(): string {
  return process.env.NEXT_DIST_DIR || ".next";
}

export function buildState(): { fresh: boolean; reason: string } {
  const buildId = path.join(ROOT, distDir(), "BUILD_ID");
  if (!fs.existsSync(buildId)) return { fresh: false, reason: `${distDir()} has no build` };
  const built = fs.statSync(buildId).mtimeMs;
  const newest = Math.max(...SOURCES.map((s) => newestMtime(path.join(ROOT, s))));
  return newest > built ? { fresh: false, reason: `sources changed after the build (${new Date(newest).toISOString()} > ${new Date(built).toISOString()})` } : { fresh: true, reason: "up to date" };
}

/**
 * The folder `next start` runs in: a copy of the working tree's build when it
 * is current (or when told not to build), else a build of its own made in a
 * private copy of the sources (node_modules hard-linked), so that neither
 * this run nor the others building in the working tree disturb each other.
 */
export function prepareApp(options: { build: boolean; log: (message: string) => void }): string {
  if (!options.build) {
    if (!fs.existsSync(path.join(ROOT, distDir(), "BUILD_ID"))) throw new Error(`--no-build, but ${distDir()} has no build`);
    return snapshotBuild();
  }
  const state = buildState();
  if (state.fresh) return snapshotBuild();
  if (process.env.NEXT_DIST_DIR) {
    options.log(`building into ${distDir()} (${state.reason})…`);
    buildInPlace();
    return snapshotBuild();
  }
  options.log(`building a private copy (${state.reason})…`);
  return buildPrivately();
}

/** `next build` in the working tree, into NEXT_DIST_DIR (never `.next`, which others use). */
function buildInPlace(): void {
  const started = Date.now();
  const build = spawnSync("npx", ["next", "build"], { cwd: ROOT, stdio: "inherit", env: { ...process.env, NODE_ENV: "production" } });
  if (build.status !== 0) throw new Error("next build failed (see above)");
  console.log(`built in ${Math.round((Date.now() - started) / 1000)} s`);
}

function buildPrivately(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "telltale-chaos-app-"));
  for (const entry of fs.readdirSync(ROOT)) {
    if (!NOT_COPIED.has(entry)) fs.cpSync(path.join(ROOT, entry), path.join(dir, entry), { recursive: true, verbatimSymlinks: true });
  }
  // Hard links: instant, no space; a build adds files but never rewrites a package's.
  const link = spawnSync("cp", ["-al", path.join(ROOT, "node_modules"), path.join(dir, "node_modules")], { stdio: "inherit" });
  if (link.status !== 0) throw new Error("could not link node_modules into the build folder");
  const started = Date.now();
  const build = spawnSync("npx", ["next", "build"], { cwd: dir, stdio: "inherit", env: { ...process.env, NODE_ENV: "production", NEXT_DIST_DIR: ".next" } });
  if (build.status !== 0) {
    fs.rmSync(dir, { recursive: true, force: true });
    throw new Error("next build failed (see above)");
  }
  console.log(`built in ${Math.round((Date.now() - started) / 1000)} s`);
  return dir;
}

/**
 * Copies .next (without its cache) into a private folder next to a link to
 * node_modules, and checks that no build replaced it during the copy.
 */
function snapshotBuild(): string {
  const source = path.join(ROOT, distDir());
  for (let attempt = 0; attempt < 3; attempt++) {
    const before = fs.readFileSync(path.join(source, "BUILD_ID"), "utf8");
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "telltale-chaos-app-"));
    fs.cpSync(source, path.join(dir, ".next"), { recursive: true, verbatimSymlinks: true, filter: (src) => src !== path.join(source, "cache") });
    const after = fs.readFileSync(path.join(source, "BUILD_ID"), "utf8");
    if (before === after && fs.readFileSync(path.join(dir, ".next", "BUILD_ID"), "utf8") === before) {
      fs.symlinkSync(path.join(ROOT, "node_modules"), path.join(dir, "node_modules"));
      // next start reads next.config.ts, and with it the file it imports.
      for (const file of ["package.json", "next.config.ts", "lib/edge/security-headers.ts"]) {
        fs.mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
        fs.copyFileSync(path.join(ROOT, file), path.join(dir, file));
      }
      return dir;
    }
    fs.rmSync(dir, { recursive: true, force: true });
  }
  throw new Error("the build kept changing while it was copied (someone is building): try again");
}

export type AppServer = {
  base: string;
  port: number;
  pid: number;
  /** SIGKILL to the whole process group (next start forks). */
  kill9(): void;
  /** SIGTERM, then SIGKILL after 10 s. */
  stop(): Promise<void>;
  exited: Promise<void>;
};

export async function startAppServer(options: { appDir: string; port: number; env: Record<string, string>; logFile: string; readyTimeoutMs?: number }): Promise<AppServer> {
  const log = fs.openSync(options.logFile, "a");
  const nextBin = path.join(ROOT, "node_modules", "next", "dist", "bin", "next");
  const env: Record<string, string> = {};
  // Only what the server needs: no OPENAI_* (summaries stay built-in), no DATABASE_URL of the caller.
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !/^(OPENAI_|AI_|DATABASE_|TELLTALE_|AUTH_|NEXTAUTH_|EMAIL_|INGEST_|SIGNIN_)/.test(k)) env[k] = v;
  const child = spawn(process.execPath, [nextBin, "start", "-p", String(options.port), "-H", "127.0.0.1"], {
    cwd: options.appDir,
    detached: true,
    stdio: ["ignore", log, log],
    // The build sits in the app folder's .next, whatever NEXT_DIST_DIR it was read from.
    env: { ...env, NODE_ENV: "production", NEXT_DIST_DIR: ".next", NODE_OPTIONS: "--max-semi-space-size=64", ...options.env },
  });
  fs.closeSync(log);
  const pid = child.pid!;
  const signalGroup = (signal: NodeJS.Signals) => {
    try {
      process.kill(-pid, signal);
    } catch {
      // already gone
    }
  };
  // The server runs detached: if the run dies, it must not outlive it.
  const killOnExit = () => signalGroup("SIGKILL");
  process.once("exit", killOnExit);
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  let gone = false;
  void exited.then(() => {
    gone = true;
    process.off("exit", killOnExit);
  });
  const base = `http://127.0.0.1:${options.port}`;
  const server: AppServer = {
    base,
    port: options.port,
    pid,
    kill9: () => signalGroup("SIGKILL"),
    async stop() {
      signalGroup("SIGTERM");
      const timer = setTimeout(() => signalGroup("SIGKILL"), 10_000);
      await exited;
      clearTimeout(timer);
      // A forked child may outlive the parent for a moment.
      signalGroup("SIGKILL");
    },
    exited,
  };
  const deadline = Date.now() + (options.readyTimeoutMs ?? 60_000);
  for (;;) {
    if (gone) throw new Error(`the server exited during start; see ${options.logFile}`);
    if (Date.now() > deadline) {
      server.kill9();
      throw new Error(`the server was not ready within ${options.readyTimeoutMs ?? 60_000} ms; see ${options.logFile}`);
    }
    const ready = await fetch(`${base}/api/health/ready`, { signal: AbortSignal.timeout(3000) }).then((r) => r.status === 200, () => false);
    if (ready) return server;
    await new Promise((r) => setTimeout(r, 150));
  }
}

/** Error lines the server wrote since `fromByte`: JSON lines at level error, and Next.js's own error lines. */
export function serverErrorLines(logFile: string, fromByte: number): { lines: string[]; end: number } {
  if (!fs.existsSync(logFile)) return { lines: [], end: 0 };
  const buffer = fs.readFileSync(logFile);
  const text = buffer.subarray(fromByte).toString("utf8");
  const lines = text.split("\n").filter((line) => /"level":"error"/.test(line) || /^\s*⨯ /.test(line) || /^(\w*Error: |Uncaught|Unhandled|FATAL)/.test(line));
  return { lines, end: buffer.length };
}

/** JSON lines at level warn since `fromByte`. */
export function serverWarnings(logFile: string, fromByte: number): string[] {
  if (!fs.existsSync(logFile)) return [];
  return fs.readFileSync(logFile).subarray(fromByte).toString("utf8").split("\n").filter((line) => line.startsWith("{") && line.includes('"level":"warn"'));
}

export function logSize(logFile: string): number {
  return fs.existsSync(logFile) ? fs.statSync(logFile).size : 0;
}
