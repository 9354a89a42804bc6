/**
 * Typed SQL: every statement that is not a plain Prisma call is built with
 * Kysely on row types generated from prisma/schema.prisma (prisma-kysely, at
 * `prisma generate`), so a renamed column fails `npm run typecheck`. Queries
 * run on the same pg pool as Prisma, with its deadlines.
 */
import { DummyDriver, Kysely, PostgresAdapter, PostgresDialect, PostgresIntrospector, PostgresQueryCompiler, sql, type Compilable, type InferResult, type InsertQueryBuilder, type QueryCreator, type RawBuilder } from "kysely";
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

/** A query builder that only compiles (no connection): for statements built once at start-up. */
export const sqlBuilder: Kysely<DB> = new Kysely<DB>({
  dialect: {
    createAdapter: () => new PostgresAdapter(),
    createDriver: () => new DummyDriver(),
    createIntrospector: (db) => new PostgresIntrospector(db),
    createQueryCompiler: () => new PostgresQueryCompiler(),
  },
});

class Placeholder {
  constructor(readonly name: string) {}
}

/** A named parameter of a statement built once (see `statementOnce`). */
export function placeholder<T>(name: string): RawBuilder<T> {
  return sql<T>`${new Placeholder(name)}`;
}

/**
 * A statement built and compiled once, run many times as a prepared
 * statement: the hot ingest statement is tens of CTEs, and building it per
 * flush would cost more than sending it. Its `placeholder()`s are filled by
 * name on each run. `on`: run it on that connection (inside its
 * transaction), unnamed, rather than prepared on the pool.
 */
export function statementOnce<Q extends Compilable, P extends string>(build: () => Q): (values: Record<P, unknown>, on?: pg.ClientBase) => Promise<InferResult<Q>> {
  let compiled: { sql: string; slots: (Placeholder | { value: unknown })[] } | null = null;
  return async (values, on) => {
    if (!compiled) {
      const query = build().compile();
      compiled = { sql: query.sql, slots: query.parameters.map((p) => (p instanceof Placeholder ? p : { value: p })) };
    }
    const parameters = compiled.slots.map((slot) => (slot instanceof Placeholder ? values[slot.name as P] : slot.value));
    const { rows } = on ? await on.query(compiled.sql, parameters) : await queryPrepared(compiled.sql, parameters);
    return rows as InferResult<Q>;
  };
}

/**
 * A part of a statement written by a table's owner against the CTEs it
 * needs (`QueryCreator<DB & {valid: Row}>`), used in a statement whose CTEs
 * include those: the compiler checks that each one it needs is there with
 * the fields it reads. (Kysely's QueryCreator is invariant in its tables.)
 */
export function part<Need extends DB, R>(fragment: (qc: QueryCreator<Need>) => R) {
  return <Have extends Need>(qc: QueryCreator<Have>): Rebased<R, Have> => fragment(qc as unknown as QueryCreator<Need>) as Rebased<R, Have>;
}

/** A data-modifying part's builder, as the statement that holds it types it. */
type Rebased<R, Have> = R extends InsertQueryBuilder<infer _D, infer T, infer O> ? InsertQueryBuilder<Have, T & keyof Have, O> : R;
