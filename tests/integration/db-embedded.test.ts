import { setEnv } from "@/tests/helpers/env";
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { afterEach, describe, expect, it } from "vitest";
import { DataDirLockedError, LOCK_FILE_NAME, readLiveOwner, startEmbeddedPostgres, type EmbeddedPostgres } from "@/tools/db/embedded";
import { ensureDatabase } from "@/tools/db/ensure";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const OPEN_EMBEDDED = path.join(ROOT, "tests", "setup", "open-embedded.ts");

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

function tempDataDir(): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "telltale-embedded-test-"));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  return path.join(dir, "nested", "pgdata"); // parents must be created
}

async function start(dataDir: string): Promise<EmbeddedPostgres> {
  const db = await startEmbeddedPostgres({ dataDir, handleSignals: false });
  cleanups.push(() => db.stop());
  return db;
}

async function query<T extends pg.QueryResultRow>(url: string, sql: string, params: unknown[] = []): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql, params)).rows;
  } finally {
    await client.end();
  }
}

/** Starts tests/setup/open-embedded.ts in a new process; resolves with its first line. */
function openInChild(dataDir: string): Promise<{ child: ChildProcessWithoutNullStreams; result: { ok: boolean; url?: string; pid?: number; name?: string; message?: string } }> {
  const child = spawn(process.execPath, ["--import", "tsx", OPEN_EMBEDDED, dataDir], { cwd: ROOT, env: { ...process.env } });
  cleanups.push(() => {
    if (child.exitCode === null) child.kill("SIGKILL");
  });
  return new Promise((resolve, reject) => {
    let stderr = "";
    child.stderr.on("data", (d) => (stderr += d));
    createInterface({ input: child.stdout }).once("line", (line) => resolve({ child, result: JSON.parse(line) }));
    child.once("exit", (code) => reject(new Error(`child exited (${code}) before answering: ${stderr}`)));
  });
}

function deadPid(): number {
  const r = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], { encoding: "utf8" });
  return Number(r.stdout);
}

describe("embedded PostgreSQL data folder ownership", () => {
  it("refuses a second owner in the same process with a clear DataDirLockedError", async () => {
    const dataDir = tempDataDir();
    const first = await start(dataDir);

    const second = startEmbeddedPostgres({ dataDir, handleSignals: false });
    await expect(second).rejects.toBeInstanceOf(DataDirLockedError);
    await expect(second).rejects.toThrow(`The embedded database in ${dataDir} is already open by process ${process.pid}`);
    await expect(second).rejects.toThrow(/DATABASE_URL/);

    // The first owner is unharmed.
    expect(await query(first.url, "SELECT 1 AS one")).toEqual([{ one: 1 }]);
  });

  it("refuses a second owner in another process, and lets it in once the owner stops", async () => {
    const dataDir = tempDataDir();
    const owner = await openInChild(dataDir);
    expect(owner.result.ok).toBe(true);
    expect(owner.result.pid).toBe(owner.child.pid); // one process, no wrapper
    expect(readLiveOwner(dataDir)?.pid).toBe(owner.child.pid);

    // This process cannot open the folder while the child owns it...
    await expect(startEmbeddedPostgres({ dataDir, handleSignals: false })).rejects.toThrow(
      `The embedded database in ${dataDir} is already open by process ${owner.child.pid}`,
    );
    // ...nor can a third process.
    const third = await openInChild(dataDir);
    expect(third.result).toMatchObject({ ok: false, name: "DataDirLockedError" });
    expect(third.result.message).toContain(`already open by process ${owner.child.pid}`);

    // The owner stops cleanly and releases the lock.
    const exited = new Promise((r) => owner.child.once("exit", r));
    owner.child.stdin.end();
    await exited;
    expect(fs.existsSync(path.join(dataDir, LOCK_FILE_NAME))).toBe(false);
    const db = await start(dataDir);
    expect(await query(db.url, "SELECT 1 AS one")).toEqual([{ one: 1 }]);
  });

  it("takes over a stale lock left by a dead process", async () => {
    const dataDir = tempDataDir();
    fs.mkdirSync(dataDir, { recursive: true });
    const pid = deadPid();
    const lockFile = path.join(dataDir, LOCK_FILE_NAME);
    fs.writeFileSync(lockFile, JSON.stringify({ pid, url: "postgresql://postgres@127.0.0.1:1/postgres", hostname: os.hostname(), procStart: null, token: "old", startedAt: "2020-01-01T00:00:00Z" }));

    expect(readLiveOwner(dataDir)).toBeNull();
    const db = await start(dataDir);
    const lock = JSON.parse(fs.readFileSync(lockFile, "utf8"));
    expect(lock).toMatchObject({ pid: process.pid, url: db.url });
  });

  it("takes over a stale lock that carries its own pid (a restarted container) and a torn lock file", async () => {
    const dataDir = tempDataDir();
    fs.mkdirSync(dataDir, { recursive: true });
    const lockFile = path.join(dataDir, LOCK_FILE_NAME);
    fs.writeFileSync(lockFile, JSON.stringify({ pid: process.pid, url: null, hostname: os.hostname(), procStart: null, token: "previous-life", startedAt: "2020-01-01T00:00:00Z" }));
    let db = await start(dataDir);
    await db.stop();

    fs.writeFileSync(lockFile, '{"pid": 12'); // crash while writing
    const old = new Date(Date.now() - 60_000);
    fs.utimesSync(lockFile, old, old);
    db = await start(dataDir);
    expect(JSON.parse(fs.readFileSync(lockFile, "utf8")).pid).toBe(process.pid);
  });

  it("after its owner is killed (SIGKILL): the stale lock is taken over and committed rows survive", async () => {
    const dataDir = tempDataDir();
    const owner = await openInChild(dataDir);
    expect(owner.result.ok).toBe(true);
    await query(owner.result.url!, "CREATE TABLE acked (id int PRIMARY KEY)");
    await query(owner.result.url!, "INSERT INTO acked SELECT generate_series(1, 100)");

    const exited = new Promise((r) => owner.child.once("exit", r));
    owner.child.kill("SIGKILL");
    await exited;
    expect(fs.existsSync(path.join(dataDir, LOCK_FILE_NAME))).toBe(true); // left behind
    expect(readLiveOwner(dataDir)).toBeNull();

    const db = await start(dataDir);
    expect(await query(db.url, "SELECT count(*)::int AS n FROM acked")).toEqual([{ n: 100 }]);
  });

  it("keeps data across stop and start, and releases the lock on stop", async () => {
    const dataDir = tempDataDir();
    let db = await start(dataDir);
    await query(db.url, "CREATE TABLE kept (id int PRIMARY KEY, note text)");
    await query(db.url, "INSERT INTO kept VALUES (1, $1)", ["survives a restart"]);
    await db.stop();
    expect(fs.existsSync(path.join(dataDir, LOCK_FILE_NAME))).toBe(false);

    db = await start(dataDir);
    expect(await query(db.url, "SELECT id, note FROM kept")).toEqual([{ id: 1, note: "survives a restart" }]);
  });

  it("serves several pg clients at once (the app's pool) without mixing their answers", async () => {
    const db = await start(tempDataDir());
    const pool = new pg.Pool({ connectionString: db.url, max: 10 });
    try {
      const answers = await Promise.all(Array.from({ length: 200 }, (_, i) => pool.query<{ v: number; s: string }>("SELECT $1::int AS v, $2::text AS s", [i, `n${i}`])));
      answers.forEach((r, i) => expect(r.rows[0]).toEqual({ v: i, s: `n${i}` }));
    } finally {
      await pool.end();
    }
  });

  it("ensureDatabase attaches to a live owner instead of opening the folder", async () => {
    const dataDir = tempDataDir();
    const owner = await start(dataDir);
    const saved = process.env.DATABASE_URL;
    setEnv("DATABASE_URL", undefined);
    try {
      const attached = await ensureDatabase({ migrate: false, attach: true, dataDir });
      expect(attached).toMatchObject({ source: "attached", url: owner.url });
      expect(await query(attached.url, "SELECT 2 AS two")).toEqual([{ two: 2 }]);
      await attached.stop(); // does not stop the owner's server
      expect(await query(owner.url, "SELECT 3 AS three")).toEqual([{ three: 3 }]);

      await expect(ensureDatabase({ migrate: false, attach: false, dataDir })).rejects.toBeInstanceOf(DataDirLockedError);
    } finally {
      setEnv("DATABASE_URL", saved);
    }
  });
});
