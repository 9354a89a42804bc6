import { pruneAlertLog } from "@/lib/alerts/log-pruning";
import { processAlerts } from "@/lib/alerts/processor";
import { queueSpikes } from "@/lib/alerts/spikes";
import { settings } from "@/lib/config/settings";
import { refreshStaleStatistics } from "@/lib/db/statistics";
import type { Job } from "@/lib/jobs/job";
import { purgeExpiredIdempotencyKeys } from "@/lib/ingest/idempotency";
import { foldTagBacklogWithin } from "@/lib/issues/tag-backlog";
import { reopenExpiredIgnores } from "@/lib/issues/workflow";
import { CRON_RETENTION_BUDGET_MS, runRetention } from "@/lib/retention/retention";

/**
 * The one schedule of background work: every periodic job, how often it
 * runs and how long one run may take. A long-running server runs it in
 * process (lib/jobs/runner.ts, started by instrumentation.ts with this schedule); a serverless
 * host calls POST /api/cron/<job> (or /api/cron/all) instead, each call
 * answering within the job's budget.
 */

const MINUTE = 60_000;
const IGNORES_PER_RUN = 1000;
const DAY = 24 * 60 * MINUTE;
const alertsInProcess = () => !settings().alerts.cronOnly;

export const SCHEDULE = [
  {
    name: "alerts",
    description: "alert delivery: due notifications, retries, and what a stopped process left",
    intervalMs: 30_000,
    budgetMs: 20_000,
    inProcess: alertsInProcess,
    async run({ deadline, clock }) {
      const report = await processAlerts({ budgetMs: Math.max(0, deadline - clock()), clock, checkSpikes: false });
      return { report, more: !report.complete };
    },
  },
  {
    name: "spikes",
    description: "spike checks: every spike rule against the per-minute counts",
    intervalMs: 30_000,
    budgetMs: 10_000,
    inProcess: alertsInProcess,
    async run({ now }) {
      return { report: { spikesQueued: await queueSpikes(now, null) }, more: false };
    },
  },
  {
    name: "retention",
    description: "deletes events and counts older than RETENTION_DAYS",
    intervalMs: DAY,
    budgetMs: CRON_RETENTION_BUDGET_MS,
    async run({ now, deadline, clock }) {
      const report = await runRetention({ now, budgetMs: Math.max(0, deadline - clock()) });
      return { report, more: !report.complete };
    },
  },
  {
    name: "idempotency-keys",
    description: "deletes idempotency keys past their 24 hours",
    intervalMs: 10 * MINUTE,
    budgetMs: 10_000,
    async run({ deadline, clock }) {
      let deleted = 0;
      let last = 0;
      do {
        last = await purgeExpiredIdempotencyKeys();
        deleted += last;
      } while (last > 0 && clock() < deadline);
      return { report: { deleted }, more: last > 0 };
    },
  },
  {
    name: "alert-log",
    description: "deletes settled alert notifications older than 30 days, and ended cool-downs",
    intervalMs: DAY,
    budgetMs: 10_000,
    async run({ now, deadline, clock }) {
      const report = await pruneAlertLog({ now, deadline, clock });
      return { report, more: !report.complete };
    },
  },
  {
    name: "ignores",
    description: "opens again the ignored issues whose time ran out without a new event",
    intervalMs: MINUTE,
    budgetMs: 10_000,
    async run() {
      const reopened = await reopenExpiredIgnores(IGNORES_PER_RUN);
      return { report: { reopened }, more: reopened === IGNORES_PER_RUN };
    },
  },
  {
    name: "statistics",
    description: "refreshes the planner's statistics of tables that changed, where autovacuum does not (the embedded database)",
    // As often as autovacuum looks (its naptime): a table that fills up after
    // a start (the idempotency keys of the first envelopes) otherwise keeps
    // plans made for it empty for up to ten minutes. A run that finds nothing stale is one query.
    intervalMs: MINUTE,
    budgetMs: 30_000,
    async run({ deadline, clock }) {
      const report = await refreshStaleStatistics({ deadline, clock });
      return { report, more: !report.complete };
    },
  },
  {
    name: "tag-counts",
    description: "tag counts ingested but not yet added to the hourly and daily tag counts (a stopped process's, or a cron-only host's)",
    intervalMs: MINUTE,
    budgetMs: 10_000,
    async run({ deadline, clock }) {
      const report = await foldTagBacklogWithin({ deadline, clock });
      return { report, more: !report.complete };
    },
  },
] as const satisfies readonly Job[];

export function findJob(name: string): Job | undefined {
  return SCHEDULE.find((job) => job.name === name);
}
