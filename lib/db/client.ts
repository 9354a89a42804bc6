import { PrismaPg } from "@prisma/adapter-pg";
import pg from "pg";
import { PrismaClient } from "./generated/client.ts";
import { settings } from "@/lib/config/settings";

export { Prisma } from "./generated/client.ts";
export type { PrismaClient } from "./generated/client.ts";

type Db = { prisma: PrismaClient; pool: pg.Pool };

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

function createDb(): Db {
  const pool = new pg.Pool({
    connectionString: databaseUrl(),
    max: settings().database.poolSize,
    // Fail fast when the database is down, so the API answers 503 quickly
    // instead of queueing requests behind a dead server.
    connectionTimeoutMillis: settings().database.connectTimeoutMs,
    idleTimeoutMillis: 30_000,
  });
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
