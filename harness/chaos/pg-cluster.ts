/**
 * A throwaway PostgreSQL cluster made from the machine's own PostgreSQL
 * binaries (initdb, pg_ctl), for tests that must stop, crash and restart the
 * database itself: the embedded PGlite cannot be killed like a server, and
 * the shared server on 5432 must not be.
 *
 * - Binaries: `pg_config --bindir`, else the newest /usr/lib/postgresql/<n>/bin.
 * - A temp folder holds the data directory, the Unix socket and the log;
 *   the server listens on 127.0.0.1 at a spare port, trust authentication,
 *   fsync on (durability is what the chaos run checks).
 * - initdb refuses to run as root: as root, every command runs as the
 *   `postgres` OS user (runuser) and the temp folder is handed to it.
 * - `stop({ mode: "fast" })` ends sessions and shuts down cleanly;
 *   `"immediate"` quits without a checkpoint, so the next `start()` runs
 *   crash recovery, as after a power cut of the server process.
 * - The cluster is also torn down (immediate stop, folder removed) when the
 *   process exits without calling `destroy()`.
 *
 * A start after an immediate stop runs crash recovery, which first syncs the
 * whole data directory: allow seconds for it, more on a loaded machine
 * (`timings` records each step; typical ones in docs/reliability.md).
 */
import { execFile, execFileSync, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { freePort } from "@/tests/helpers/free-port";

export type StopMode = "smart" | "fast" | "immediate";

export interface PgCluster {
  /** postgresql://postgres@127.0.0.1:<port>/<database> */
  readonly url: string;
  readonly port: number;
  readonly dataDir: string;
  readonly logFile: string;
  readonly running: boolean;
  /** Milliseconds each step took, in order: `{ step: "initdb" | "start" | "stop fast" | ..., ms }`. */
  readonly timings: { step: string; ms: number }[];
  stop(options?: { mode?: StopMode }): Promise<void>;
  start(): Promise<void>;
  /** Stops the server (immediate) and removes the folder. */
  destroy(): Promise<void>;
}

export type PgClusterOptions = {
  /** The database in `url`, created if it is not `postgres`. Default `postgres`. */
  database?: string;
  /** Default: a free port. */
  port?: number;
  /** Extra `postgresql.conf` lines. */
  config?: Record<string, string | number>;
};

/** The directory holding initdb, pg_ctl and postgres. */
export function postgresBinDir(): string {
  try {
    const dir = execFileSync("pg_config", ["--bindir"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
    if (fs.existsSync(path.join(dir, "initdb"))) return dir;
  } catch {
    // no pg_config on PATH
  }
  const root = "/usr/lib/postgresql";
  const versions = fs.existsSync(root) ? fs.readdirSync(root).filter((v) => fs.existsSync(path.join(root, v, "bin", "initdb"))) : [];
  versions.sort((a, b) => Number(b) - Number(a));
  if (!versions[0]) throw new Error("No PostgreSQL binaries found (pg_config --bindir, /usr/lib/postgresql/*/bin).");
  return path.join(root, versions[0], "bin");
}


const isRoot = () => typeof process.getuid === "function" && process.getuid() === 0;

/** The command line that runs `bin` as the postgres OS user when we are root. */
function asPostgres(bin: string, args: string[]): [string, string[]] {
  return isRoot() ? ["runuser", ["-u", "postgres", "--", bin, ...args]] : [bin, args];
}

function run(bin: string, args: string[], timeoutMs = 120_000): Promise<string> {
  const [cmd, argv] = asPostgres(bin, args);
  return new Promise((resolve, reject) => {
    // Never from the caller's cwd: the postgres user may not be allowed in it.
    execFile(cmd, argv, { cwd: "/", timeout: timeoutMs, encoding: "utf8" }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${path.basename(bin)} ${args.join(" ")} failed: ${error.message}\n${stderr || stdout}`));
      else resolve(stdout);
    });
  });
}

export async function startPgCluster(options: PgClusterOptions = {}): Promise<PgCluster> {
  const bin = postgresBinDir();
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "telltale-pg-"));
  const dataDir = path.join(root, "data");
  const logFile = path.join(root, "postgres.log");
  if (isRoot()) {
    const uid = Number(execFileSync("id", ["-u", "postgres"], { encoding: "utf8" }).trim());
    const gid = Number(execFileSync("id", ["-g", "postgres"], { encoding: "utf8" }).trim());
    fs.chownSync(root, uid, gid);
  }
  const port = options.port ?? (await freePort());
  const database = options.database ?? "postgres";
  const timings: { step: string; ms: number }[] = [];
  const timed = async <T>(step: string, fn: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    try {
      return await fn();
    } finally {
      timings.push({ step, ms: Math.round(performance.now() - started) });
    }
  };

  // --no-sync only skips flushing the freshly made files; the server runs with fsync on.
  await timed("initdb", () => run(path.join(bin, "initdb"), ["-D", dataDir, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--locale=C", "--no-sync"]));
  const config: Record<string, string | number> = {
    port,
    listen_addresses: "'127.0.0.1'",
    unix_socket_directories: `'${root}'`,
    fsync: "on",
    synchronous_commit: "on",
    max_connections: 100,
    shared_buffers: "'32MB'",
    logging_collector: "off",
    ...options.config,
  };
  fs.appendFileSync(path.join(dataDir, "postgresql.conf"), `\n# telltale test cluster\n${Object.entries(config).map(([k, v]) => `${k} = ${v}`).join("\n")}\n`);

  let running = false;
  let destroyed = false;
  const pgCtl = path.join(bin, "pg_ctl");

  let lastStop: StopMode | "never" = "never";
  const start = async () => {
    const step = lastStop === "never" ? "start (first)" : `start (after stop ${lastStop})`;
    await timed(step, () => run(pgCtl, ["start", "-D", dataDir, "-l", logFile, "-w", "-t", "60"]));
    running = true;
  };
  const stop = async ({ mode = "fast" }: { mode?: StopMode } = {}) => {
    await timed(`stop ${mode}`, () => run(pgCtl, ["stop", "-D", dataDir, "-m", mode, "-w", "-t", "60"]));
    running = false;
    lastStop = mode;
  };

  // Last resort when the caller dies without destroy(): no cluster left behind.
  const onExit = () => {
    if (destroyed) return;
    const [cmd, argv] = asPostgres(pgCtl, ["stop", "-D", dataDir, "-m", "immediate", "-w"]);
    spawnSync(cmd, argv, { cwd: "/", stdio: "ignore", timeout: 10_000 });
    fs.rmSync(root, { recursive: true, force: true });
  };
  process.once("exit", onExit);

  await start();
  if (database !== "postgres") {
    await run(path.join(bin, "psql"), ["-h", "127.0.0.1", "-p", String(port), "-U", "postgres", "-d", "postgres", "-v", "ON_ERROR_STOP=1", "-qc", `CREATE DATABASE "${database}"`]);
  }

  return {
    url: `postgresql://postgres@127.0.0.1:${port}/${database}`,
    port,
    dataDir,
    logFile,
    get running() {
      return running;
    },
    timings,
    stop,
    start,
    async destroy() {
      if (destroyed) return;
      if (running) await stop({ mode: "immediate" }).catch(() => {});
      destroyed = true;
      process.off("exit", onExit);
      fs.rmSync(root, { recursive: true, force: true });
    },
  };
}
