/**
 * Typed SQL: every statement that is not a plain Prisma call is built with
 * Kysely on row types generated from prisma/schema.prisma (prisma-kysely, at
 * `prisma generate`), so a renamed column fails `npm run typecheck`. Queries
 * run on the same pg pool as Prisma, with its deadlines.
 */
import { Kysely, PostgresDialect, type Compilable, type InferResult } from "kysely";
import type pg from "pg";
import { dbPool } from "@/lib/db/client";
import type { DB } from "@/lib/db/generated/kysely";
import { queryPrepared } from "@/lib/db/prepared";

export type { DB } from "@/lib/db/generated/kysely";

const globalForSql = globalThis as unknown as { __telltaleKysely?: Kysely<DB>; __telltaleKyselyPool?: pg.Pool };

/** The query builder on the app's pool (lazy; rebuilt when the pool is). */
export function sqlDb(): Kysely<DB> {
  const pool = dbPool();
  if (!globalForSql.__telltaleKysely || globalForSql.__telltaleKyselyPool !== pool) {
    globalForSql.__telltaleKysely = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) });
    globalForSql.__telltaleKyselyPool = pool;
  }
  return globalForSql.__telltaleKysely;
}

/**
 * Runs a built query as a named prepared statement (lib/db/prepared.ts):
 * for hot statements whose text is the same on every call, so PostgreSQL
 * plans them once per connection.
 */
export async function runPrepared<Q extends Compilable>(query: Q): Promise<InferResult<Q>> {
  const compiled = query.compile();
  const { rows } = await queryPrepared(compiled.sql, compiled.parameters as unknown[]);
  return rows as InferResult<Q>;
}
