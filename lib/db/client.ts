import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { PrismaClient } from "./generated/client.ts";
import { settings } from "@/lib/config/settings";

export { Prisma } from "./generated/client.ts";
export type { PrismaClient } from "./generated/client.ts";

type Db = { prisma: PrismaClient; pool: pg.Pool };

// Dates sent to node-postgres (Kysely's parameters) are written in UTC: its
// default, local time with the offset in whole minutes, shifts times of zones
// whose old offsets had seconds (0001-01-01 in Europe/Paris became 00:00:21Z).
pg.defaults.parseInputDatesAsUTC = true;

const globalForDb = globalThis as unknown as { __telltaleDb?: Db };

/** Reads DATABASE_URL; the launchers (npm run dev/start, tests, scripts) set it
 * to the embedded server when the operator did not. */
export function databaseUrl(): string {
  const url = settings().database.url;
  if (!url) {
    throw new Error(
      "DATABASE_URL is not set. Start Telltale with `npm run dev` or `npm start`, which serve the embedded database when DATABASE_URL is unset.",
    );
  }
  return url;
}

/** The message of the error a query gets when its deadline passes (pg's own, which lib/db/errors.ts recognises). */
const READ_TIMEOUT = "Query read timeout";

/**
 * A client whose queries have a deadline (`deadlineMs`, from the pool's
 * options), after which its connection is closed, not reused: the server may
 * still be running the query, or be frozen, and the wire state is unknown.
 * Every query on it then fails with pg's "Query read timeout". (node-postgres
 * alone would hand it back to the pool, and Prisma, whose ROLLBACK then also
 * times out, would hand it back inside the open transaction, for the next
 * request to write into.)
 *
 * The deadline is this class's own timer, which holds the client only,
 * rather than pg's `query_timeout`, whose timer's closure holds the query:
 * with it, answers stayed reachable long after they were read, and each of
 * the young generation's collections copied 15-25 MB of them instead of 1-2
 * (docs/performance.md#the-summarys-young-generation-and-a-split-statement-2026-11-28-morning).
 */
class DeadlineClient extends pg.Client {
  private readonly deadlineMs: number | null;
  private readonly expire = () => (this as unknown as { connection: { stream: { destroy(error: Error): void } } }).connection.stream.destroy(new Error(READ_TIMEOUT));

  constructor(config?: string | (pg.ClientConfig & { deadlineMs?: number })) {
    super(config);
    this.deadlineMs = typeof config === "object" && config.deadlineMs ? config.deadlineMs : null;
    // A connection lost while the client is checked out (a Kysely
    // transaction between statements) emits 'error' with nobody listening,
    // which would crash the process; the next query on it fails instead,
    // and the pool replaces it.
    this.on("error", () => {});
  }

  // @ts-expect-error pg's overloads: every form is passed through unchanged.
  override query(config: unknown, values?: unknown, callback?: unknown): unknown {
    const own = Boolean(config && typeof (config as { submit?: unknown }).submit === "function");
    // pg's own promise form kept its answers reachable too (measured with no
    // deadline at all): the promise is made here, around the callback form.
    if (!own && typeof values !== "function" && typeof callback !== "function") {
      return new Promise((resolve, reject) => this.query(config, values, (error: unknown, result: unknown) => (error ? reject(error) : resolve(result))));
    }
    // A query object of its own (submit) settles through its own events: no deadline is kept for it.
    const timer = this.deadlineMs && !own ? setTimeout(this.expire, this.deadlineMs) : null;
    const settle = (error: unknown) => {
      if (timer) clearTimeout(timer);
      if ((error as Error | undefined)?.message === READ_TIMEOUT) this.end().catch(() => {});
    };
    if (typeof values === "function") {
      const done = values as (e: unknown, r: unknown) => void;
      values = (e: unknown, r: unknown) => (settle(e), done(e, r));
    } else if (typeof callback === "function") {
      const done = callback as (e: unknown, r: unknown) => void;
      callback = (e: unknown, r: unknown) => (settle(e), done(e, r));
    }
    try {
      return (super.query as (...args: unknown[]) => unknown)(config, values, callback);
    } catch (error) {
      settle(error);
      throw error;
    }
  }
}

/**
 * The database's own deadline for a statement, a little inside the client's:
 * a statement that runs too long is cancelled and rolled back by the server
 * (57014, a 503 that can truly say nothing was stored) before the client
 * stops waiting for it. Without it, a slow write that the client gave up on
 * still committed, after its caller had been told it was not stored.
 */
export function statementTimeoutMs(queryTimeoutMs: number): number {
  return clientDeadlineMs(queryTimeoutMs) - Math.min(250, Math.floor(queryTimeoutMs / 10));
}

/**
 * How long the client waits, for a connection and then for a query: a
 * little inside DATABASE_QUERY_TIMEOUT_MS, which promises the answer. Waiting
 * the whole of it answered the 503 after it (5.0-5.3 s against 5 s during a
 * freeze): building and sending the answer takes time too, more on a busy host.
 */
export function clientDeadlineMs(queryTimeoutMs: number): number {
  return queryTimeoutMs - Math.min(500, Math.floor(queryTimeoutMs / 5));
}

/**
 * What every connection of the app sets first: the statement deadline, and
 * no JIT compilation or parallel workers. The dashboard's and the summary's
 * queries read a few thousand index entries each; planned as costly (wide
 * bitmap scans), compiling them or starting workers took PostgreSQL far
 * longer than the work (docs/performance.md#figures-behind-the-code).
 */
export function sessionSettingsSql(queryTimeoutMs: number): string {
  return `SET statement_timeout = ${statementTimeoutMs(queryTimeoutMs)}; SET jit = off; SET max_parallel_workers_per_gather = 0`;
}

function createDb(): Db {
  const { url, poolSize, connectTimeoutMs, queryTimeoutMs } = { ...settings().database, url: databaseUrl() };
  const pool = new pg.Pool({
    connectionString: url,
    max: poolSize,
    Client: DeadlineClient as unknown as typeof pg.Client,
    // Deadlines: getting a connection (connecting, or waiting for a free one)
    // and each query. A frozen or restarting database answers 503 within
    // them instead of holding requests (lib/db/errors.ts).
    connectionTimeoutMillis: Math.min(connectTimeoutMs, clientDeadlineMs(queryTimeoutMs)),
    deadlineMs: clientDeadlineMs(queryTimeoutMs),
    keepAlive: true,
    // Kept for minutes, not seconds: a new connection's first statements on
    // each table are slower (its catalog caches), and a summary spreads over
    // the whole pool: on connections closed since the last one, the 7-day
    // summary of 20 projects took about four times as long.
    idleTimeoutMillis: 300_000,
    // The session's settings (sessionSettingsSql), as a SET rather than a
    // startup parameter: poolers such as PgBouncer refuse unknown startup
    // parameters. Awaited before the pool hands the client out, so it runs
    // first and alone (node-postgres deprecates queueing a second query on
    // a busy client). A failure leaves the defaults. (The embedded PGlite
    // accepts statement_timeout and does not enforce it.)
    onConnect: async (client: pg.ClientBase) => {
      await client.query(sessionSettingsSql(queryTimeoutMs)).catch(() => {});
    },
  } as pg.PoolConfig);
  // An idle client that loses its server emits 'error'; without a listener the
  // process would crash. The pool drops it and reconnects on the next query.
  pool.on("error", () => {});
  const prisma = new PrismaClient({ adapter: new PrismaPg(pool) });
  return { prisma, pool };
}

function db(): Db {
  globalForDb.__telltaleDb ??= createDb();
  return globalForDb.__telltaleDb;
}

/** The shared Prisma client (lazy, one per process, survives dev reloads). */
export const prisma: PrismaClient = new Proxy({} as PrismaClient, {
  get(_target, prop) {
    const client = db().prisma as unknown as Record<PropertyKey, unknown>;
    const value = client[prop];
    return typeof value === "function" ? (value as (...a: unknown[]) => unknown).bind(client) : value;
  },
});

/** The pg pool under Prisma, for the health check and COPY-style bulk paths. */
export function dbPool(): pg.Pool {
  return db().pool;
}

export async function disconnectDb(): Promise<void> {
  const current = globalForDb.__telltaleDb;
  globalForDb.__telltaleDb = undefined;
  if (current) {
    await current.prisma.$disconnect();
    await current.pool.end().catch(() => {});
  }
}
