/**
 * Embedded PostgreSQL for a fresh clone: PGlite (PostgreSQL compiled to WASM)
 * persisted in a data folder and served over the Postgres wire protocol on
 * 127.0.0.1 by pglite-socket, so the app reaches it through `pg` and
 * `@prisma/adapter-pg` exactly as it reaches a real server (one code path).
 *
 * For scripts, launchers and tests only: the Next.js app never imports this
 * file, it just reads DATABASE_URL.
 *
 * Limits (why it is the zero-install development default, not production):
 * - PGlite is one single-user backend. Every query runs on the event loop of
 *   the process that owns it and blocks that loop while it runs; queries from
 *   all connections are queued one at a time, and while one connection is in a
 *   transaction the others wait. All connections also share one session, so
 *   session state (advisory locks, temp tables, SET) is shared.
 * - It does not fsync: a power loss or kernel crash can lose recent commits.
 * - Two processes opening the same folder corrupt it silently, hence the lock
 *   file below: only one process OWNS a data folder; others connect to the
 *   owner's server as clients.
 */
import { PGlite } from "@electric-sql/pglite";
import { PGLiteSocketServer } from "@electric-sql/pglite-socket";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import net from "node:net";
import os from "node:os";
import path from "node:path";

import { settings } from "@/lib/config/settings";
import { ConnectionAffinityQueue } from "@/tools/db/connection-affinity-queue";

export const LOCK_FILE_NAME = "telltale.lock";

export function defaultDataDir(): string {
  return path.resolve(settings().embedded.dataDir);
}

/** pglite-socket drops connections beyond this; the app's pool must stay below. */
export function maxConnections(): number {
  return settings().embedded.maxConnections;
}

export class DataDirLockedError extends Error {
  readonly code = "DATA_DIR_LOCKED";
  constructor(
    readonly dataDir: string,
    readonly pid: number,
    readonly url: string | null,
    readonly hostname?: string,
  ) {
    const where = hostname && hostname !== os.hostname() ? ` on host ${hostname}` : "";
    const serving = url ? ` (serving ${url})` : "";
    super(
      `The embedded database in ${dataDir} is already open by process ${pid}${where}${serving}. ` +
        `Only one process may open an embedded data folder. Stop it, or set DATABASE_URL to use a PostgreSQL server ` +
        `(or TELLTALE_DATA_DIR to use another folder). If that process no longer exists, delete ${path.join(dataDir, LOCK_FILE_NAME)}.`,
    );
    this.name = "DataDirLockedError";
  }
}

export interface LockInfo {
  pid: number;
  url: string | null;
  hostname: string;
  /** Process start time (Linux /proc), to tell a reused pid from the owner. */
  procStart: string | null;
  token: string;
  startedAt: string;
}

export interface EmbeddedPostgres {
  url: string;
  port: number;
  /** null for an in-memory (ephemeral) database. */
  dataDir: string | null;
  stop(): Promise<void>;
  /** Removes the SIGINT/SIGTERM handlers installed by handleSignals. */
  releaseSignals(): void;
}

export interface StartOptions {
  dataDir?: string;
  /** 0 or unset: EMBEDDED_DB_PORT, else a free port. */
  port?: number;
  maxConnections?: number;
  /** Stop cleanly on SIGINT/SIGTERM and exit (default true). Launchers that
   * forward signals to a child pass false and call stop() themselves. */
  handleSignals?: boolean;
}

// Tokens of the locks this process holds, so that a lock carrying our own pid
// is told apart from a stale one left by an earlier process that had our pid
// (pid 1 in a container, for instance).
const heldTokens = new Set<string>();

function lockPath(dataDir: string): string {
  return path.join(dataDir, LOCK_FILE_NAME);
}

function processStartTime(pid: number): string | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after "(comm)"; comm may hold spaces and parentheses.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return fields[19] ?? null; // field 22, starttime
  } catch {
    return null;
  }
}

/** True when a process with this pid exists (on this host). */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** True when the lock's owner may still be running (conservative). */
function ownerAlive(lock: LockInfo): boolean {
  if (lock.hostname !== os.hostname()) return true; // cannot check another host's processes
  if (lock.pid === process.pid) return heldTokens.has(lock.token);
  if (!pidAlive(lock.pid)) return false;
  const start = processStartTime(lock.pid);
  return !(lock.procStart && start && start !== lock.procStart); // pid reused by another program
}

function readLock(file: string): { raw: string; lock: LockInfo | null } | null {
  let raw: string;
  try {
    raw = fs.readFileSync(file, "utf8");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw error;
  }
  try {
    const lock = JSON.parse(raw) as LockInfo;
    return { raw, lock: typeof lock?.pid === "number" ? lock : null };
  } catch {
    return { raw, lock: null };
  }
}

function fileAgeMs(file: string): number {
  try {
    return Date.now() - fs.statSync(file).mtimeMs;
  } catch {
    return 0;
  }
}

const sleepSync = (ms: number) => Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);

/**
 * Removes a stale lock, guarded by a second exclusive file so that two
 * processes taking over the same stale lock cannot delete each other's new one.
 */
function removeStaleLock(file: string, staleRaw: string): void {
  const guard = `${file}.takeover`;
  let fd: number;
  try {
    fd = fs.openSync(guard, "wx");
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    // Another process is taking over; a guard left by a crash expires.
    if (fileAgeMs(guard) > 10_000) fs.rmSync(guard, { force: true });
    return;
  }
  try {
    const current = readLock(file);
    if (current && current.raw === staleRaw) fs.rmSync(file, { force: true });
  } finally {
    fs.closeSync(fd);
    fs.rmSync(guard, { force: true });
  }
}

/** Takes the data folder's lock (atomic create), or throws DataDirLockedError. */
function acquireLock(dataDir: string): LockInfo {
  const file = lockPath(dataDir);
  const lock: LockInfo = {
    pid: process.pid,
    url: null,
    hostname: os.hostname(),
    procStart: processStartTime(process.pid),
    token: randomBytes(12).toString("hex"),
    startedAt: new Date().toISOString(),
  };
  for (let attempt = 0; attempt < 100; attempt++) {
    try {
      fs.writeFileSync(file, JSON.stringify(lock), { flag: "wx", mode: 0o600 });
      heldTokens.add(lock.token);
      return lock;
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== "EEXIST") throw error;
    }
    const existing = readLock(file);
    if (!existing) continue; // released meanwhile
    if (!existing.lock) {
      // Being written by a racing owner right now, or garbage left by a crash.
      if (fileAgeMs(file) > 5_000) removeStaleLock(file, existing.raw);
      else sleepSync(50);
      continue;
    }
    if (ownerAlive(existing.lock)) {
      throw new DataDirLockedError(dataDir, existing.lock.pid, existing.lock.url, existing.lock.hostname);
    }
    removeStaleLock(file, existing.raw);
    sleepSync(10);
  }
  throw new Error(`Could not take the lock ${file}: it keeps changing. Is another process starting on ${dataDir}?`);
}

/** Rewrites our lock (atomically) to publish the URL; only while we still own it. */
function updateLock(dataDir: string, lock: LockInfo): void {
  const file = lockPath(dataDir);
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(lock), { mode: 0o600 });
  fs.renameSync(tmp, file);
}

function releaseLock(dataDir: string, token: string): void {
  heldTokens.delete(token);
  const current = readLock(lockPath(dataDir));
  if (current?.lock?.token === token) fs.rmSync(lockPath(dataDir), { force: true });
}

/**
 * The live owner of a data folder and the URL it serves, or null when nobody
 * holds it (or the lock is stale). `url` is null while the owner is starting.
 */
export function readLiveOwner(dataDir: string = defaultDataDir()): LockInfo | null {
  const existing = readLock(lockPath(path.resolve(dataDir)));
  if (!existing?.lock || !ownerAlive(existing.lock)) return null;
  return existing.lock;
}

/** Resolves when something accepts TCP connections at the URL's host:port. */
export function canConnect(url: string, timeoutMs = 1000): Promise<boolean> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname, port: Number(port || 5432) });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}

function requestedPort(port: number | undefined): number {
  return port || settings().embedded.port;
}

/** A client idle this long inside a transaction while others wait is disconnected (one session for all). */
const IDLE_IN_TRANSACTION_MS = 10_000;

async function serve(db: PGlite, port: number, max: number): Promise<{ server: PGLiteSocketServer; port: number }> {
  const server = new PGLiteSocketServer({ db, host: "127.0.0.1", port, maxConnections: max });
  type Handler = { handlerId: number; detach(close: boolean): Promise<unknown> };
  const terminate = (handlerId: number) => {
    for (const handler of (server as unknown as { handlers: Set<Handler> }).handlers) {
      if (handler.handlerId === handlerId) void handler.detach(true).catch(() => {});
    }
  };
  // Before any connection: the handlers take the queue from the server.
  (server as unknown as { queryQueue: ConnectionAffinityQueue }).queryQueue = new ConnectionAffinityQueue(db, {
    idleInTransactionMs: IDLE_IN_TRANSACTION_MS,
    terminate,
  });
  try {
    await server.start();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "EADDRINUSE") {
      throw new Error(`EMBEDDED_DB_PORT ${port} is already in use on 127.0.0.1. Choose another port or unset EMBEDDED_DB_PORT for a free one.`);
    }
    throw error;
  }
  const bound = Number(server.getServerConn().split(":").pop());
  return { server, port: bound };
}

function urlFor(port: number): string {
  return `postgresql://postgres@127.0.0.1:${port}/postgres`;
}

/**
 * Opens (creating and initialising when new) the PGlite data folder, takes its
 * lock and serves it on 127.0.0.1. Throws DataDirLockedError when another live
 * process owns the folder.
 */
export async function startEmbeddedPostgres(options: StartOptions = {}): Promise<EmbeddedPostgres> {
  const dataDir = path.resolve(options.dataDir ?? defaultDataDir());
  fs.mkdirSync(dataDir, { recursive: true });
  const lock = acquireLock(dataDir);

  let db: PGlite | undefined;
  let server: PGLiteSocketServer | undefined;
  let stopped = false;
  const onExit = () => releaseLock(dataDir, lock.token); // last resort: synchronous
  const onSignal = (signal: NodeJS.Signals) => {
    void stop().finally(() => process.exit(signal === "SIGINT" ? 130 : 143));
  };

  const releaseSignals = () => {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
  };

  async function stop(): Promise<void> {
    if (stopped) return;
    stopped = true;
    process.off("exit", onExit);
    releaseSignals();
    try {
      await server?.stop();
      if (db && !db.closed) await db.close(); // checkpoint, so the next start needs no recovery
    } finally {
      releaseLock(dataDir, lock.token);
    }
  }

  process.on("exit", onExit);
  try {
    // A new folder starts from a dump of a blank cluster: much faster than
    // initdb on disk, the same files.
    const isNew = !fs.existsSync(path.join(dataDir, "PG_VERSION"));
    db = await PGlite.create(isNew ? { dataDir, loadDataDir: await blankTemplate() } : { dataDir });
    const served = await serve(db, requestedPort(options.port), options.maxConnections ?? maxConnections());
    server = served.server;
    lock.url = urlFor(served.port);
    updateLock(dataDir, lock);
    if (options.handleSignals !== false) {
      process.once("SIGINT", onSignal);
      process.once("SIGTERM", onSignal);
    }
    return { url: lock.url, port: served.port, dataDir, stop, releaseSignals };
  } catch (error) {
    await stop().catch(() => {});
    throw error;
  }
}

// initdb is slow and loading a dump of a blank database is quick: the dump is
// made once per process, for new data folders, the shadow databases of
// migration diffs, and tests.
let template: Promise<Blob> | undefined;
function blankTemplate(): Promise<Blob> {
  template ??= (async () => {
    const blank = await PGlite.create();
    try {
      return (await blank.dumpDataDir("none")) as Blob;
    } finally {
      await blank.close();
    }
  })();
  return template;
}

/** An in-memory PGlite served the same way: no folder, no lock. For the
 * migration shadow database and throwaway tests. */
export async function startEphemeralPostgres(options: { maxConnections?: number } = {}): Promise<EmbeddedPostgres> {
  const db = await PGlite.create({ loadDataDir: await blankTemplate() });
  const { server, port } = await serve(db, 0, options.maxConnections ?? 20);
  let stopped = false;
  return {
    url: urlFor(port),
    port,
    dataDir: null,
    releaseSignals: () => {},
    async stop() {
      if (stopped) return;
      stopped = true;
      await server.stop();
      await db.close();
    },
  };
}

