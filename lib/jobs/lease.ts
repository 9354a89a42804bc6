import { sqlDb } from "@/lib/db/sql";

/**
 * The job_leases table: one row per periodic job, saying when the schedule
 * may start it next (due_at) and which process runs it now (holder, until
 * leased_until). Taking a lease is one statement, so among several server
 * processes (and serverless calls) one at a time runs a job, at most once
 * per interval; it works through a transaction-mode PgBouncer and on the
 * embedded database alike, where a session advisory lock would not.
 */

const later = (at: Date, ms: number) => new Date(at.getTime() + ms);

type LeaseRequest = {
  job: string;
  holder: string;
  now: Date;
  /** The next start is due this long after this one. */
  intervalMs: number;
  /** How long this run may hold the job (its budget and a margin); past it, another process may start it. */
  leaseMs: number;
  /** An explicit call (a per-job cron route): runs even if not due or held elsewhere. */
  force?: boolean;
};

/** Takes the job's lease if it is due and free (or forced); otherwise says when to ask again. */
export async function takeLease(request: LeaseRequest): Promise<{ taken: true } | { taken: false; retryAt: Date }> {
  const { job, holder, now, intervalMs, leaseMs, force = false } = request;
  const db = sqlDb();
  const values = { job, due_at: later(now, intervalMs), leased_until: later(now, leaseMs), holder, last_started_at: now };
  const taken = await db
    .insertInto("job_leases")
    .values(values)
    .onConflict((oc) =>
      oc
        .column("job")
        .doUpdateSet({ due_at: values.due_at, leased_until: values.leased_until, holder, last_started_at: now })
        .where((eb) =>
          force
            ? eb.lit(true)
            : eb.and([eb.or([eb("job_leases.leased_until", "is", null), eb("job_leases.leased_until", "<=", now)]), eb("job_leases.due_at", "<=", now)]),
        ),
    )
    .returning("job")
    .executeTakeFirst();
  if (taken) return { taken: true };
  const row = await db.selectFrom("job_leases").select(["due_at", "leased_until"]).where("job", "=", job).executeTakeFirst();
  const retry = Math.max(row?.due_at.getTime() ?? now.getTime(), row?.leased_until?.getTime() ?? 0);
  return { taken: false, retryAt: new Date(retry) };
}

/**
 * Ends a run: frees the lease (if this holder still has it), keeps what it
 * reported, and moves the next start to `dueAt` when given (sooner: work
 * was left over, or the run failed). Returns when the job is due next.
 */
export async function finishLease(job: string, holder: string, now: Date, outcome: unknown, dueAt?: Date): Promise<Date | null> {
  const row = await sqlDb()
    .updateTable("job_leases")
    .set((eb) => ({
      leased_until: null,
      holder: null,
      last_finished_at: now,
      last_outcome: JSON.stringify(outcome),
      due_at: dueAt ? eb.fn<Date>("least", [eb.ref("due_at"), eb.val(dueAt)]) : eb.ref("due_at"),
    }))
    .where("job", "=", job)
    .where("holder", "=", holder)
    .returning("due_at")
    .executeTakeFirst();
  return row?.due_at ?? null;
}

/** The job's row as it is (for tests and an operator's look). */
export function readLease(job: string) {
  return sqlDb().selectFrom("job_leases").selectAll().where("job", "=", job).executeTakeFirst();
}
