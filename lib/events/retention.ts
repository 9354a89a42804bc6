import { sql } from "kysely";
import { retryingConflicts } from "@/lib/db/errors";
import { sqlDb } from "@/lib/db/sql";

/** One bounded deletion: rows deleted, rows it took (fewer than the limit: nothing left), where it stopped. */
export type EventDeletionStep = { deleted: number; taken: number; last: { at: Date; id: string } | null };

/** Before every event: the keyset of a project's first step. */
export const FIRST_EVENT_POSITION = { at: "-infinity", id: "00000000-0000-0000-0000-000000000000" } as const;

/**
 * One step of retention in one project: the next `limit` events in
 * (occurred_at, id) order after `after` whose time is before `cutoff` (a
 * backward range scan of events_project_occurred_idx), then the DELETE of
 * exactly those, by ctid (a TID scan: no second index lookup). Nothing
 * updates events, so no row lock is taken first: a row deleted meanwhile
 * (its project was) is skipped, and its ctid cannot be reused while this
 * statement's snapshot lives.
 */
export async function deleteExpiredEvents(
  projectId: string,
  cutoff: Date,
  after: { at: Date | "-infinity"; id: string },
  limit: number,
): Promise<EventDeletionStep> {
  const row = await sqlDb()
    .with("doomed", (db) =>
      db
        .selectFrom("events")
        .select([sql<string>`ctid`.as("ctid"), "occurred_at", "id"])
        .where("project_id", "=", projectId)
        .where("occurred_at", "<", cutoff)
        .where((eb) => eb(eb.refTuple("occurred_at", "id"), ">", eb.tuple(sql<Date>`${after.at}::timestamptz`, sql<string>`${after.id}::uuid`)))
        .orderBy("occurred_at")
        .orderBy("id")
        .limit(limit),
    )
    .with("gone", (db) =>
      db
        .deleteFrom("events")
        .where((eb) => eb(sql`ctid`, "=", eb.fn.any(sql<string[]>`ARRAY(${eb.selectFrom("doomed").select("ctid")})`)))
        .returning(sql<number>`1`.as("one")),
    )
    .with("last", (db) => db.selectFrom("doomed").select(["occurred_at", "id"]).orderBy("occurred_at", "desc").orderBy("id", "desc").limit(1))
    .selectNoFrom((eb) => [
      eb.selectFrom("gone").select(sql<number>`count(*)::int`.as("n")).$asScalar().as("deleted"),
      eb.selectFrom("doomed").select(sql<number>`count(*)::int`.as("n")).$asScalar().as("taken"),
      eb.selectFrom("last").select("occurred_at").$asScalar().as("last_at"),
      eb.selectFrom("last").select(sql<string>`id::text`.as("id")).$asScalar().as("last_id"),
    ])
    .executeTakeFirstOrThrow();
  return { deleted: row.deleted, taken: row.taken, last: row.last_at && row.last_id ? { at: row.last_at, id: row.last_id } : null };
}

/**
 * Events stored before event times existed have none until `npm run
 * db:migrate` assigns it; their arrival time stands in. Normally none. One
 * step: at most `limit` of the project's that arrived before `cutoff`.
 */
export async function deleteExpiredUntimedEvents(projectId: string, cutoff: Date, limit: number): Promise<Omit<EventDeletionStep, "last">> {
  const row = await sqlDb()
    .with("doomed", (db) =>
      db
        .selectFrom("events")
        .select(sql<string>`ctid`.as("ctid"))
        .where("project_id", "=", projectId)
        .where("occurred_at", "is", null)
        .where("received_at", "<", cutoff)
        .limit(limit),
    )
    .with("gone", (db) =>
      db
        .deleteFrom("events")
        .where((eb) => eb(sql`ctid`, "=", eb.fn.any(sql<string[]>`ARRAY(${eb.selectFrom("doomed").select("ctid")})`)))
        .returning(sql<number>`1`.as("one")),
    )
    .selectNoFrom((eb) => [
      eb.selectFrom("gone").select(sql<number>`count(*)::int`.as("n")).$asScalar().as("deleted"),
      eb.selectFrom("doomed").select(sql<number>`count(*)::int`.as("n")).$asScalar().as("taken"),
    ])
    .executeTakeFirstOrThrow();
  return { deleted: row.deleted, taken: row.taken };
}

/**
 * A project's events before `cutoff` in steps of `limit` (each its own short
 * statement), then those with no time that arrived before it. Before each
 * step, `nextStep` may pause, or end the walk by answering false (then this
 * answers false: not done). `taken` < limit: done.
 */
export async function deleteProjectEventsBefore(
  projectId: string,
  cutoff: Date,
  limit: number,
  nextStep: () => Promise<boolean>,
  onDeleted: (n: number) => void,
): Promise<boolean> {
  let after: { at: Date | "-infinity"; id: string } = FIRST_EVENT_POSITION;
  for (;;) {
    if (!(await nextStep())) return false;
    const step = await retryingConflicts(() => deleteExpiredEvents(projectId, cutoff, after, limit));
    onDeleted(step.deleted);
    if (step.taken < limit || !step.last) break;
    after = step.last;
  }
  for (;;) {
    if (!(await nextStep())) return false;
    const step = await retryingConflicts(() => deleteExpiredUntimedEvents(projectId, cutoff, limit));
    onDeleted(step.deleted);
    if (step.taken < limit) return true;
  }
}
