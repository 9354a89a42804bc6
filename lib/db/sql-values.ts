import { sql, type Expression, type ExpressionBuilder, type RawBuilder, type SqlBool } from "kysely";
import type { DB } from "@/lib/db/sql";

/** `= ANY(...)` operands with their type spelled out, so the planner (and Prisma's adapter) never guess. */
export const textArray = (values: readonly string[]): RawBuilder<string[]> => sql<string[]>`${sql.val(values)}::text[]`;
export const uuidArray = (values: readonly string[]): RawBuilder<string[]> => sql<string[]>`${sql.val(values)}::uuid[]`;

/** A timestamptz column as unix milliseconds, exactly, read by pg as a number (a timestamp's text parses far slower). */
export const epochMs = (column: string): RawBuilder<number> => sql<number>`(extract(epoch FROM ${sql.ref(column)}) * 1000)::float8`;

/** A half-open range [from, to) in unix ms; `to` Infinity: no upper bound. */
export type Range = { from: number; to: number };

/** `column` inside any of `ranges` (half-open; `to` Infinity: no upper bound). */
export function inRanges<T extends keyof DB>(eb: ExpressionBuilder<DB, T>, column: string, ranges: Range[]): Expression<SqlBool> {
  return eb.or(
    ranges.map((r) => {
      const from = eb(sql.ref(column), ">=", new Date(r.from));
      return Number.isFinite(r.to) ? eb.and([from, eb(sql.ref(column), "<", new Date(r.to))]) : from;
    }),
  );
}
