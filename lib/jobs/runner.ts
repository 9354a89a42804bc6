import { randomBytes } from "node:crypto";
import os from "node:os";
import { logger } from "@/lib/log";
import { sendInBackground } from "@/lib/jobs/background";
import { finishLease, takeLease } from "@/lib/jobs/lease";
import type { Job, JobResult } from "@/lib/jobs/job";

/**
 * Runs the schedule's jobs: one run at a time per job in a process, and,
 * through the job's lease (lib/jobs/lease.ts), at most once per interval
 * among all processes. A run gets its budget as a deadline; should it not
 * be done by then (plus a grace), the caller is answered anyway and the run
 * finishes in the background, still holding its lease.
 */

/** How long a lease outlives the budget: a run that overshoots a little still holds it. */
const LEASE_MARGIN_MS = 30_000;
/** Past its budget by this much, a run's caller stops waiting. */
const GRACE_MS = 1_000;
/** A run that left work over runs again this soon; a failed one at most this late. */
const CATCH_UP_MS = 60_000;
const RETRY_AFTER_FAILURE_MS = 5 * 60_000;

export type Clock = () => number;

export type JobRun = {
  job: string;
  ran: boolean;
  /** Not run: another process runs it now, or it is not due yet. */
  skipped?: "not due or running elsewhere";
  report?: Record<string, unknown>;
  /** The budget passed before the run ended; it goes on in the background. */
  overran?: boolean;
  error?: string;
  /** The error itself, for a caller that answers it (never serialized). */
  failure?: unknown;
  /** When this job is due next (null: unknown, another process holds it). */
  nextDueAt?: string | null;
};

/** This process's name in job_leases. */
const HOLDER = `${os.hostname()}:${process.pid}:${randomBytes(3).toString("hex")}`;

type RunOptions = {
  clock?: Clock;
  /** An explicit call (a per-job cron route): runs even if not due or already running elsewhere. */
  force?: boolean;
  /** Instead of the job's own budget (a cron route running two jobs in one call). */
  budgetMs?: number;
  /** Who holds the lease (tests play several processes). */
  holder?: string;
};

/** Starts a run if the lease allows: `finished` is its end, whenever that is. */
async function startJob(job: Job, options: RunOptions): Promise<{ finished: Promise<JobRun>; deadline: number } | JobRun> {
  const clock = options.clock ?? Date.now;
  const holder = options.holder ?? HOLDER;
  const budgetMs = options.budgetMs ?? job.budgetMs;
  const startedAt = clock();
  const now = new Date(startedAt);
  const lease = await takeLease({ job: job.name, holder, now, intervalMs: job.intervalMs, leaseMs: budgetMs + LEASE_MARGIN_MS, force: options.force });
  if (!lease.taken) return { job: job.name, ran: false, skipped: "not due or running elsewhere", nextDueAt: lease.retryAt.toISOString() };
  const deadline = startedAt + budgetMs;
  const finished = job.run({ now, deadline, clock }).then(
    async (result: JobResult): Promise<JobRun> => {
      if (clock() > deadline + GRACE_MS) logger.warn("background job overran its budget", { job: job.name, budgetMs, tookMs: clock() - startedAt });
      const dueAt = result.more ? new Date(clock() + CATCH_UP_MS) : undefined;
      const next = await finishLease(job.name, holder, new Date(clock()), result.report, dueAt);
      return { job: job.name, ran: true, report: result.report, nextDueAt: next?.toISOString() ?? null };
    },
    async (error: unknown): Promise<JobRun> => {
      const message = error instanceof Error ? error.message.slice(0, 200) : String(error);
      logger.warn("background job failed", { job: job.name, error: message });
      const next = await finishLease(job.name, holder, new Date(clock()), { error: message }, new Date(clock() + RETRY_AFTER_FAILURE_MS)).catch(() => null);
      return { job: job.name, ran: true, error: message, failure: error, nextDueAt: next?.toISOString() ?? null };
    },
  );
  return { finished, deadline };
}

/**
 * Runs a job now if its lease allows (or `force`), and answers within its
 * budget: a run not done by then (plus a grace) is answered `overran` and
 * goes on in the background, still holding its lease.
 */
export async function runJob(job: Job, options: RunOptions = {}): Promise<JobRun> {
  const clock = options.clock ?? Date.now;
  const started = await startJob(job, options);
  if (!("finished" in started)) return started;
  let timer: NodeJS.Timeout | undefined;
  const overran = new Promise<JobRun>((resolve) => {
    timer = setTimeout(() => resolve({ job: job.name, ran: true, overran: true, nextDueAt: null }), Math.max(0, started.deadline + GRACE_MS - clock()));
  });
  const run = await Promise.race([started.finished, overran]);
  clearTimeout(timer);
  if (run.overran) sendInBackground(() => started.finished);
  return run;
}

/** Every job that is due and free now, in parallel (POST /api/cron/all). */
export async function runDueJobs(options: { jobs: readonly Job[]; clock?: Clock; holder?: string }): Promise<JobRun[]> {
  const runs = await Promise.all(options.jobs.map((job) => runJob(job, { clock: options.clock, holder: options.holder })));
  return runs.map(({ failure: _, ...run }) => run);
}

/**
 * The in-process schedule of a long-running server: every second, each job
 * that this process believes due and that is not running here is offered to
 * its lease; the answer says when to ask again.
 */
export class InProcessSchedule {
  private readonly running = new Set<string>();
  private readonly nextCheck = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;

  constructor(private readonly options: { jobs: readonly Job[]; clock?: Clock; holder?: string }) {}

  /** Starts the jobs that are due; resolves when the runs it started have ended (tests await it; the timer does not). */
  async tick(): Promise<JobRun[]> {
    const clock = this.options.clock ?? Date.now;
    const started: Promise<JobRun>[] = [];
    for (const job of this.options.jobs) {
      if (this.running.has(job.name) || clock() < (this.nextCheck.get(job.name) ?? 0)) continue;
      if (job.inProcess && !job.inProcess()) continue;
      this.running.add(job.name);
      const run = startJob(job, { clock, holder: this.options.holder })
        .then((start) => ("finished" in start ? start.finished : start))
        .catch((error: unknown): JobRun => ({ job: job.name, ran: false, error: error instanceof Error ? error.message.slice(0, 200) : String(error) }))
        .then((result) => {
          this.running.delete(job.name);
          // Asked again when the lease says it is due; after a failure to ask at all (the database away), soon.
          this.nextCheck.set(job.name, result.nextDueAt ? Date.parse(result.nextDueAt) : clock() + Math.min(job.intervalMs, CATCH_UP_MS));
          return result;
        });
      started.push(run);
    }
    return Promise.all(started);
  }

  start(everyMs = 1_000): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.tick(), everyMs);
    this.timer.unref();
  }

  stop(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }
}

const globalForSchedule = globalThis as unknown as { __telltaleSchedule?: InProcessSchedule };

/** A long-running server's schedule (instrumentation.ts, with lib/schedule/schedule.ts): once per process, surviving dev reloads. */
export function startSchedule(jobs: readonly Job[]): void {
  if (globalForSchedule.__telltaleSchedule) return;
  globalForSchedule.__telltaleSchedule = new InProcessSchedule({ jobs });
  globalForSchedule.__telltaleSchedule.start();
}
