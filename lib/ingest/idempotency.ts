import { sql, type QueryCreator } from "kysely";
import { logger } from "@/lib/log";
import { placeholder, sqlDb, type DB } from "@/lib/db/sql";

/**
 * The idempotency_keys table: the first answer given to a request with an
 * Idempotency-Key, kept 24 hours. A key is claimed in the same statement
 * that stores the request's rows, so a retry (even a concurrent one) gets the
 * first answer and stores nothing; a key older than 24 hours is claimed afresh.
 */

/** The claims a statement tries, one per request with a key: `{project_id, key, response, key_id}` as JSON. */
export type ClaimInput = { project_id: string; key: string; response: unknown; key_id: string };

export const claimKey = (projectId: string, key: string) => `${projectId}\u0001${key}`;

/** Claims decoded from the statement's `claims` parameter. */
export function claimInputCte() {
  return sql<ClaimInput>`(SELECT * FROM json_to_recordset(${placeholder("claims")}::json) AS c(project_id text, key text, response jsonb, key_id text))`;
}

/**
 * Claims the keys of requests whose key is active, in (project, key) order
 * so that concurrent statements lock them in the same order. Returns
 * `project_id \x01 key` per claim won.
 */
export function claimsCte(qc: QueryCreator<DB & { claim_input: ClaimInput; active_keys: { id: string; project_id: string } }>) {
  return qc
    .insertInto("idempotency_keys")
    .columns(["project_id", "key", "response", "created_at"])
    .expression((eb) =>
      eb
        .selectFrom("claim_input as c")
        .select(["c.project_id", "c.key", "c.response", sql<Date>`now()`.as("created_at")])
        .where(({ eb, refTuple, selectFrom }) => eb(refTuple("c.key_id", "c.project_id"), "in", selectFrom("active_keys").select(["active_keys.id", "active_keys.project_id"]).$asTuple("id", "project_id")))
        .orderBy("c.project_id")
        .orderBy("c.key"),
    )
    .onConflict((oc) =>
      oc
        .columns(["project_id", "key"])
        .doUpdateSet((eb) => ({ response: eb.ref("excluded.response"), created_at: eb.ref("excluded.created_at") }))
        .where("idempotency_keys.created_at", "<", sql<Date>`now() - interval '24 hours'`),
    )
    .returning((eb) => [sql<string>`${eb.ref("idempotency_keys.project_id")} || chr(1) || ${eb.ref("idempotency_keys.key")}`.as("claim")]);
}

/**
 * The answers kept for idempotency keys another request claimed first. Read
 * by a statement of its own: the claim that won may have committed after the
 * flush's statement took its snapshot (its insert waited for that commit).
 */
export async function firstAnswers(keys: { projectId: string; key: string }[]): Promise<Map<string, object>> {
  if (keys.length === 0) return new Map();
  const rows = await sqlDb()
    .selectFrom("idempotency_keys")
    .select(["project_id", "key", "response"])
    .where(({ eb, refTuple, tuple, or }) => or(keys.map((k) => eb(refTuple("project_id", "key"), "=", tuple(k.projectId, k.key)))))
    .execute();
  return new Map(rows.map((r) => [claimKey(r.project_id, r.key), r.response as object]));
}

/** Deletes idempotency records past their 24 hours, at most `limit` per call. */
export async function purgeExpiredIdempotencyKeys(limit = 1_000): Promise<number> {
  try {
    const result = await sqlDb()
      .deleteFrom("idempotency_keys")
      .where(sql<string>`ctid`, "in", (eb) =>
        eb
          .selectFrom("idempotency_keys")
          .select(sql<string>`ctid`.as("ctid"))
          .where("created_at", "<", sql<Date>`now() - interval '24 hours'`)
          .limit(limit),
      )
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  } catch (error) {
    logger.warn("idempotency purge failed", { error: String(error) });
    return 0;
  }
}
