import { isDatabaseUnavailable } from "@/lib/db/errors";
import { logger } from "@/lib/log";

/**
 * Runs `work` after the answer has gone out: through Next.js's `after()`
 * inside a request (a serverless host keeps the function alive for it),
 * else as a plain background promise (scripts, tests). A failure is logged,
 * never left unhandled.
 */
export function sendInBackground(work: () => Promise<unknown>): void {
  const run = () =>
    work().catch((error: unknown) => {
      // The database away is an outage already answered 503 and logged; not a fault of this work.
      const log = isDatabaseUnavailable(error) ? logger.warn : logger.error;
      log("background work failed", { error: error instanceof Error ? error.message.slice(0, 200) : String(error) });
    });
  void import("next/server")
    .then(({ after }) => after(run))
    .catch(() => void run());
}
