import { sql } from "kysely";
import { textArray, uuidArray } from "@/lib/db/sql-values";

/** A tag value looked for in one issue between two times. */
export type TagProbe = { issueId: string; key: string; value: string; from: Date; to: Date };

/** Probes as the rows of a `q(n, issue_id, key, value, from_at, to_at)` table, `n` their index: one statement for them all. */
export function tagProbeRows(probes: readonly TagProbe[]) {
  return sql<{ n: number; issue_id: string; key: string; value: string; from_at: Date; to_at: Date }>`unnest(
    ${sql.val(probes.map((_, i) => i))}::int[], ${uuidArray(probes.map((p) => p.issueId))}, ${textArray(probes.map((p) => p.key))},
    ${textArray(probes.map((p) => p.value))}, ${sql.val(probes.map((p) => p.from.toISOString()))}::timestamptz[], ${sql.val(probes.map((p) => p.to.toISOString()))}::timestamptz[])`.as<"q">(
    sql`q(n, issue_id, key, value, from_at, to_at)`,
  );
}
