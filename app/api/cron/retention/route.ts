import { cronRoute, json, otherMethods } from "@/lib/edge/route";
import { logger } from "@/lib/log";
import { CRON_RETENTION_BUDGET_MS, runRetention } from "@/lib/retention/retention";

export const dynamic = "force-dynamic";
// Serverless hosts stop a function at its deadline: the run stops starting
// new batches well before (CRON_RETENTION_BUDGET_MS) and the next call goes on.
export const maxDuration = 60;

/** Retention for hosts where nothing runs in the background: `{retentionDays, cutoff, deleted, complete, durationMs}`. */
const retention = cronRoute(async ({ requestId }) => {
  const report = await runRetention({ budgetMs: CRON_RETENTION_BUDGET_MS });
  logger.info("retention", { requestId, ...report });
  return json(report);
});

export const POST = retention;
// Vercel Cron calls its paths with GET (and the same bearer CRON_SECRET).
export const GET = retention;
export const { PUT, PATCH, DELETE } = otherMethods("GET", "POST");
