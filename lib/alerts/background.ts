import { LRUCache } from "lru-cache";
import { settings } from "@/lib/config/settings";
import { sendInBackground } from "@/lib/jobs/background";

/** What an ingest statement did about one project's alerts. */
export type AlertsQueued = { projectId: string; queued: boolean; spikes: boolean };

// A project with spike rules is checked at most this often per process after
// ingestion (the schedule's spike job checks every project anyway).
const SPIKE_CHECK_INTERVAL_MS = 10_000;

const lastSpikeCheck = new LRUCache<string, number>({ max: 10_000 });
const waiting = new Set<string>();
let draining: Promise<void> | null = null;

/**
 * Called after an ingest statement committed (lib/events/store.ts), in the
 * request's own context: the project's notifications are delivered after
 * the answer has gone out (lib/jobs/background.ts), within the alert
 * delivery's budget. One pass at a time per process; projects that arrive
 * meanwhile join the next pass. Off with ALERTS_CRON_ONLY=true.
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
