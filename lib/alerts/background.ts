import { LRUCache } from "lru-cache";
import { settings } from "@/lib/config/settings";
import { sendInBackground } from "@/lib/jobs/background";

/** What an ingest statement did about one project's alerts. */
export type AlertsQueued = { projectId: string; queued: boolean; spikes: boolean };

// A project with spike rules is checked at most this often per process after
// ingestion (the schedule's spike job checks every project anyway).
const SPIKE_CHECK_INTERVAL_MS = 10_000;

// Passes at once per process: a pass stuck on one project's slow receivers
// (up to the delivery budget) does not hold back another project's.
const MAX_PASSES = 4;

const lastSpikeCheck = new LRUCache<string, number>({ max: 10_000 });
const waiting = new Set<string>();
const inPass = new Set<string>();
let passes = 0;

/**
 * Called after an ingest statement committed (lib/ingest/statement.ts), in the
 * request's own context: the project's notifications are delivered after
 * the answer has gone out (lib/jobs/background.ts), within the alert
 * delivery's budget. A project is in one pass at a time; one that arrives
 * while its pass runs joins the next, and other projects start their own
 * (MAX_PASSES at most). Off with ALERTS_CRON_ONLY=true.
 */
export function alertsAfterIngest({ projectId, queued }: AlertsQueued): void {
  if (settings().alerts.cronOnly) return;
  if (!queued) {
    const now = Date.now();
    if (now - (lastSpikeCheck.get(projectId) ?? 0) < SPIKE_CHECK_INTERVAL_MS) return;
    lastSpikeCheck.set(projectId, now);
  }
  waiting.add(projectId);
  startPasses();
}

function startPasses(): void {
  while (passes < MAX_PASSES) {
    const projectIds = [...waiting].filter((id) => !inPass.has(id));
    if (projectIds.length === 0) return;
    for (const id of projectIds) {
      waiting.delete(id);
      inPass.add(id);
    }
    passes++;
    sendInBackground(async () => {
      try {
        const { processAlerts } = await import("@/lib/alerts/processor");
        await processAlerts({ projectIds });
      } finally {
        passes--;
        for (const id of projectIds) inPass.delete(id);
        startPasses();
      }
    });
  }
}
