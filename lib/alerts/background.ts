import { LRUCache } from "lru-cache";
import { settings } from "@/lib/config/settings";
import { sendInBackground } from "@/lib/http/background";
import { logger } from "@/lib/log";

/** What an ingest statement did about one project's alerts. */
export type AlertsQueued = { projectId: string; queued: boolean; spikes: boolean };

// A project with spike rules is checked at most this often per process after
// ingestion (the sweep and the cron route check every project anyway).
const SPIKE_CHECK_INTERVAL_MS = 10_000;
const SWEEP_INTERVAL_MS = 30_000;

const lastSpikeCheck = new LRUCache<string, number>({ max: 10_000 });
const waiting = new Set<string>();
let draining: Promise<void> | null = null;

/**
 * Called after an ingest statement committed (lib/events/store.ts), in the
 * request's own context: the project's notifications are delivered after
 * the answer has gone out (Next's after(), so a serverless host keeps the
 * function alive for it). One pass at a time per process; projects that
 * arrive meanwhile join the next pass. Off with ALERTS_CRON_ONLY=true.
 */
export function alertsAfterIngest({ projectId, queued, spikes }: AlertsQueued): void {
  if (settings().alerts.cronOnly) return;
  if (!queued) {
    const now = Date.now();
    if (now - (lastSpikeCheck.get(projectId) ?? 0) < SPIKE_CHECK_INTERVAL_MS) return;
    lastSpikeCheck.set(projectId, now);
  }
  waiting.add(projectId);
  sendInBackground(drain);
}

function drain(): Promise<void> {
  draining ??= (async () => {
    try {
      const { processAlerts } = await import("@/lib/alerts/processor");
      while (waiting.size > 0) {
        const projectIds = [...waiting];
        waiting.clear();
        await processAlerts({ projectIds });
      }
    } finally {
      draining = null;
    }
  })();
  return draining;
}

const globalForSweep = globalThis as unknown as { __telltaleAlertSweep?: NodeJS.Timeout };

/**
 * A long-running server's own schedule (instrumentation.ts): every 30 s,
 * every project's due notifications (retries, those a stopped process left)
 * and spike rules. On serverless hosts the cron route does this.
 */
export function startAlertSweep(): void {
  if (settings().alerts.cronOnly || globalForSweep.__telltaleAlertSweep) return;
  let running = false;
  globalForSweep.__telltaleAlertSweep = setInterval(() => {
    if (running) return;
    running = true;
    import("@/lib/alerts/processor")
      .then(({ processAlerts }) => processAlerts())
      .catch((error: unknown) => logger.warn("alert sweep failed", { error: error instanceof Error ? error.message.slice(0, 200) : String(error) }))
      .finally(() => {
        running = false;
      });
  }, SWEEP_INTERVAL_MS);
  globalForSweep.__telltaleAlertSweep.unref();
}
