/**
 * What a background job is, for the runner (lib/jobs/runner.ts); the jobs
 * themselves are listed in lib/schedule/schedule.ts, above the domains they run.
 */

/** What a run gets: the time it started, and the deadline (ms by `clock`) it must finish by. */
export type JobContext = { now: Date; deadline: number; clock: () => number };

/** What a run did (its report, kept in job_leases and answered by the cron route); `more`: work was left for a soon next run. */
export type JobResult = { report: Record<string, unknown>; more: boolean };

export type Job = {
  name: string;
  /** What it does, for the docs and the log. */
  description: string;
  intervalMs: number;
  budgetMs: number;
  /** False: not run in process (ALERTS_CRON_ONLY for the alert jobs); the cron route still runs it. */
  inProcess?: () => boolean;
  run(context: JobContext): Promise<JobResult>;
};
