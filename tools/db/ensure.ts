/**
 * "Give me a database" for launchers, CLI scripts and tests:
 * 1. DATABASE_URL set: that server.
 * 2. else, with `attach`, a live process that owns the embedded data folder and
 *    serves it (`npm run dev`): connect to it as a client. That does not open
 *    the folder, so `npm run telltale -- ...` works while the dev server runs.
 * 3. else open the embedded data folder ourselves (and own it until stop()).
 * Scripts and tests only, never the Next.js app.
 */
import { spawn } from "node:child_process";
import { canConnect, defaultDataDir, maxConnections, readLiveOwner, startEmbeddedPostgres } from "@/tools/db/embedded";
import { resetSettings, settings } from "@/lib/config/settings";
import { applyMigrations } from "@/tools/db/migrate";

export interface EnsureOptions {
  /** Apply pending migrations before returning. */
  migrate: boolean;
  /** Use a live owner's server instead of failing with DataDirLockedError. */
  attach?: boolean;
  dataDir?: string;
  /** See StartOptions.handleSignals. */
  handleSignals?: boolean;
  /** Progress lines for humans ("Applied migration ..."). */
  log?: (line: string) => void;
}

export interface EnsuredDatabase {
  url: string;
  /** "env": DATABASE_URL; "embedded": we own the data folder; "attached":
   * another process owns it and we are its client. */
  source: "env" | "embedded" | "attached";
  embedded: boolean;
  /** Names of the migrations applied now (with `migrate`). */
  applied: string[];
  /** Stops the embedded server when we own it; otherwise does nothing. */
  stop(): Promise<void>;
  /** Drops the embedded server's own SIGINT/SIGTERM handlers (a launcher
   * that forwards signals to a child takes over). */
  releaseSignals(): void;
}

/** Points this process (lib/db/client) at `url`, or back at nothing. */
function useDatabaseUrl(url: string | undefined): void {
  if (url === undefined) delete process.env.DATABASE_URL;
  else {
    process.env.DATABASE_URL = url;
    // The embedded database is one session shared by every connection: a
    // statement one connection prepares is there, by name, for all of them.
    process.env.DATABASE_PREPARED_STATEMENTS ??= "false";
  }
  resetSettings();
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Waits (up to 30 s) for an owner that is still starting to publish its URL. */
async function liveOwnerUrl(dataDir: string): Promise<string | null> {
  for (let i = 0; i < 150; i++) {
    const owner = readLiveOwner(dataDir);
    if (!owner) return null;
    if (owner.url && (await canConnect(owner.url))) return owner.url;
    await sleep(200);
  }
  return null;
}

function checkPoolSize(): void {
  const pool = settings().database.poolSize;
  const max = maxConnections();
  // Leave room for a second client (the CLI, a migration) next to the app.
  if (pool >= max / 2) {
    throw new Error(
      `DATABASE_POOL_SIZE=${pool} is too large for the embedded database, which accepts ${max} connections ` +
        `(EMBEDDED_DB_MAX_CONNECTIONS) and drops the rest. Use at most ${Math.floor(max / 2) - 1}.`,
    );
  }
}

/** Sets DATABASE_URL for this process (so lib/db/client works in scripts). */
export async function ensureDatabase(options: EnsureOptions): Promise<EnsuredDatabase> {
  const log = options.log ?? (() => {});
  const migrate = async (url: string) => {
    if (!options.migrate) return [];
    const applied = await applyMigrations(url, { onWait: log });
    for (const name of applied) log(`Applied migration ${name}`);
    return applied;
  };

  const fromEnv = settings().database.url;
  if (fromEnv) {
    return { url: fromEnv, source: "env", embedded: false, applied: await migrate(fromEnv), stop: async () => {}, releaseSignals: () => {} };
  }

  checkPoolSize();
  const dataDir = options.dataDir ?? defaultDataDir();
  if (options.attach) {
    const url = await liveOwnerUrl(dataDir);
    if (url) {
      useDatabaseUrl(url);
      const applied = await migrate(url);
      return {
        url,
        source: "attached",
        embedded: true,
        applied,
        stop: async () => {
          if (process.env.DATABASE_URL === url) useDatabaseUrl(undefined);
        },
        releaseSignals: () => {},
      };
    }
  }

  const server = await startEmbeddedPostgres({ dataDir, handleSignals: options.handleSignals });
  try {
    const applied = await migrate(server.url);
    useDatabaseUrl(server.url);
    return {
      url: server.url,
      source: "embedded",
      embedded: true,
      applied,
      stop: async () => {
        if (process.env.DATABASE_URL === server.url) useDatabaseUrl(undefined);
        await server.stop();
      },
      releaseSignals: server.releaseSignals,
    };
  } catch (error) {
    await server.stop();
    throw error;
  }
}

const SIGNAL_EXIT: Partial<Record<NodeJS.Signals, number>> = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 };

/**
 * Runs a child (next dev / next start) with DATABASE_URL pointing at `db`,
 * forwards SIGINT/SIGTERM/SIGHUP to it (a second signal kills it), and when it
 * exits stops the database (releasing the embedded lock) and exits with its
 * code. Never returns.
 */
export function runChildWithDatabase(db: EnsuredDatabase, command: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<never> {
  const child = spawn(command, args, { stdio: "inherit", env: { ...env, DATABASE_URL: db.url } });
  let signalled = false;
  const forward = (signal: NodeJS.Signals) => {
    clearInterval(orphanWatch);
    if (signalled) {
      child.kill("SIGKILL");
      return;
    }
    signalled = true;
    child.kill(signal);
    setTimeout(() => child.kill("SIGKILL"), 15_000).unref();
  };
  // `npm run` starts us through `sh -c`, which dies on SIGTERM without passing
  // it on: a changed parent means whoever ran us is gone, so shut down too
  // (else next and the embedded lock would live on as orphans).
  const parent = process.ppid;
  const orphanWatch = setInterval(() => {
    if (process.ppid !== parent) forward("SIGTERM");
  }, 1000);
  orphanWatch.unref();
  db.releaseSignals();
  for (const signal of Object.keys(SIGNAL_EXIT) as NodeJS.Signals[]) process.on(signal, forward);
  return new Promise<never>(() => {
    const finish = (code: number) => {
      void db
        .stop()
        .catch((error) => console.error(`Could not stop the embedded database cleanly: ${(error as Error).message}`))
        .finally(() => process.exit(code));
    };
    child.once("error", (error) => {
      console.error(`Could not start ${command}: ${error.message}`);
      finish(1);
    });
    child.once("exit", (code, signal) => finish(code ?? (signal ? (SIGNAL_EXIT[signal] ?? 1) : 1)));
  });
}
