import { cronRoute, json, otherMethods } from "@/lib/edge/route";
import { runCronJob } from "@/lib/schedule/cron";
import { logger } from "@/lib/log";

export const dynamic = "force-dynamic";
// Each job answers within its budget (at most 40 s, lib/schedule/schedule.ts); serverless hosts stop a function at this.
export const maxDuration = 60;

/** Background work for hosts where nothing runs in the background: /api/cron/<job> runs one job, /api/cron/all every due one. */
const cron = cronRoute(async ({ request, requestId }) => {
  const name = decodeURIComponent(new URL(request.url).pathname.split("/").pop() ?? "");
  const report = await runCronJob(name);
  logger.info("cron", { requestId, job: name, ...report });
  return json(report);
});

export const POST = cron;
// Vercel Cron calls its paths with GET (and the same bearer CRON_SECRET).
export const GET = cron;
export const { PUT, PATCH, DELETE } = otherMethods("GET", "POST");
