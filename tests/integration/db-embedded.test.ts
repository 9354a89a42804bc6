import { setEnv } from "@/tests/helpers/env";
import { spawn, spawnSync, type ChildProcessWithoutNullStreams } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { DataDirLockedError, LOCK_FILE_NAME, readLiveOwner, startEmbeddedPostgres, type EmbeddedPostgres } from "@/tools/db/embedded";
import { ensureDatabase } from "@/tools/db/ensure";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const OPEN_EMBEDDED = path.join(ROOT, "tests", "setup", "open-embedded.ts");

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

// A folder initialised once, copied for each test: opening an existing
// cluster takes well under a second, making one takes several.
let initialised: string;
beforeAll(async () => {
  initialised = fs.mkdtempSync(path.join(os.tmpdir(), "telltale-embedded-template-"));
  const db = await startEmbeddedPostgres({ dataDir: initialised, handleSignals: false });
  await db.stop();
});
afterAll(() => fs.rmSync(initialised, { recursive: true, force: true }));

/** A data folder path: a new one (parents included) or, with `copy`, a copy of an initialised cluster. */
function tempDataDir({ copy = true } = {}): string {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "telltale-embedded-test-"));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  const dataDir = path.join(dir, "nested", "pgdata"); // parents must be created
  if (copy) fs.cpSync(initialised, dataDir, { recursive: true });
  return dataDir;
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
  it("creates a new folder (parents too) and refuses a second owner in the same process with a clear DataDirLockedError", async () => {
    const dataDir = tempDataDir({ copy: false });
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

  it("keeps each connection's extended-protocol batches and transactions whole when many connections interleave", async () => {
    const db = await start(tempDataDir());
    await query(db.url, "CREATE TABLE ledger (id int PRIMARY KEY, note text)");
    const clients = await Promise.all(
      Array.from({ length: 8 }, async () => {
        const client = new pg.Client({ connectionString: db.url });
        await client.connect();
        cleanups.push(() => client.end());
        return client;
      }),
    );
    // Statements of different shapes: a Bind meant for one connection's
    // Parse fails (or answers wrongly) against another's.
    await Promise.all(
      clients.map(async (client, c) => {
        for (let i = 0; i < 40; i++) {
          if ((i + c) % 2 === 0) {
            const { rows } = await client.query<{ v: number }>("SELECT $1::int + $2::int AS v", [c, i]);
            expect(rows).toEqual([{ v: c + i }]);
          } else {
            const { rows } = await client.query<{ s: string; n: number }>("SELECT $1::text AS s, $2::int * $3::int AS n", [`c${c}`, i, 2]);
            expect(rows).toEqual([{ s: `c${c}`, n: i * 2 }]);
          }
        }
      }),
    );
    // A transaction that rolls back takes nothing of the others with it.
    await Promise.all(
      clients.map(async (client, c) => {
        if (c % 2 === 0) {
          await client.query("BEGIN");
          await client.query("INSERT INTO ledger VALUES ($1, $2)", [1000 + c, "rolled back"]);
          await client.query("ROLLBACK");
        } else {
          await client.query("INSERT INTO ledger VALUES ($1, $2)", [c, "kept"]);
        }
      }),
    );
    expect(await query(db.url, "SELECT id FROM ledger ORDER BY id")).toEqual([1, 3, 5, 7].map((id) => ({ id })));
  });

  it("a connection that goes away inside a transaction has it rolled back, and the others go on", async () => {
    const db = await start(tempDataDir());
    await query(db.url, "CREATE TABLE ledger (id int PRIMARY KEY)");
    const leaving = new pg.Client({ connectionString: db.url });
    leaving.on("error", () => {});
    await leaving.connect();
    await leaving.query("BEGIN");
    await leaving.query("INSERT INTO ledger VALUES (1)");
    // Others wait for its turn; then it vanishes (a killed process).
    const waiting = query(db.url, "INSERT INTO ledger VALUES (2) RETURNING id");
    (leaving as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
    expect(await waiting).toEqual([{ id: 2 }]);
    expect(await query(db.url, "SELECT id FROM ledger ORDER BY id")).toEqual([{ id: 2 }]);
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
