import { errors } from "@/lib/http/errors";
import { runDueJobs, runJob, type JobRun } from "@/lib/jobs/runner";
import { findJob, SCHEDULE } from "@/lib/schedule/schedule";

/**
 * What POST /api/cron/<name> does: `all` runs every job that is due (the
 * schedule, for hosts with one cron entry); a job's name runs that job now;
 * `alerts` also checks spike rules first, as it always has, within the
 * alert delivery's budget. Answers the job's own report (or, for `all`,
 * every job's run).
 */
export async function runCronJob(name: string): Promise<Record<string, unknown>> {
  if (name === "all") return { jobs: await runDueJobs({ jobs: SCHEDULE }) };
  const job = findJob(name);
  if (!job) throw errors.notFound(`No job named "${name}". Jobs: all, ${SCHEDULE.map((j) => j.name).join(", ")}.`);
  if (name !== "alerts") return answer(await runJob(job, { force: true }));
  const started = Date.now();
  const spikes = await runJob(findJob("spikes")!, { force: true, budgetMs: job.budgetMs });
  const delivery = await runJob(job, { force: true, budgetMs: Math.max(0, job.budgetMs - (Date.now() - started)) });
  return { ...answer(delivery), spikesQueued: spikes.report?.spikesQueued ?? 0 };
}

function answer(run: JobRun): Record<string, unknown> {
  if (run.report) return run.report;
  // The job's own error: the edge answers a database outage 503, anything else 500.
  if (run.error) throw run.failure;
  return { complete: false, overran: run.overran ?? false };
}
