import { processAlerts } from "@/lib/alerts/processor";
import { cronRoute, json, otherMethods } from "@/lib/edge/route";
import { logger } from "@/lib/log";

export const dynamic = "force-dynamic";
// The processor stops claiming after 20 s (its default budget); what is left
// waits for the next call.
export const maxDuration = 60;

/** Alert delivery for hosts where nothing runs in the background: spikes, due notifications, retries. */
const alerts = cronRoute(async ({ requestId }) => {
  const report = await processAlerts();
  logger.info("alerts", { requestId, ...report });
  return json(report);
});

export const POST = alerts;
// Vercel Cron calls its paths with GET (and the same bearer CRON_SECRET).
export const GET = alerts;
export const { PUT, PATCH, DELETE } = otherMethods("GET", "POST");
