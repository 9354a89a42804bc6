import type { QueryCreator } from "kysely";
import type { DB } from "@/lib/db/sql";

/** What a statement's input says about the key that sent each row. */
export type KeyedInput = { key_id: string; project_id: string };

/**
 * The ingest statement's check of the keys its rows were sent with: still
 * active and still of that project. A key rotated (or a project deleted) by
 * another instance stops working at once, whatever a process's key cache says.
 */
export function activeKeysCte(qc: QueryCreator<DB & { input: KeyedInput }>) {
  return qc
    .selectFrom("api_keys")
    .select(["api_keys.id", "api_keys.project_id"])
    .where("api_keys.id", "in", (eb) => eb.selectFrom("input").select("input.key_id").distinct())
    .where("api_keys.revoked_at", "is", null);
}
