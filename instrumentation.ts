/**
 * Runs once when a server process starts (next start, the standalone
 * server, next dev), before it serves requests.
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { installHttpGuard } = await import("@/lib/edge/node-guard");
  installHttpGuard();
  const { checkSettingsAtStart } = await import("@/lib/config/startup");
  checkSettingsAtStart();
  // Alert retries, spikes and what a stopped process left, every 30 s (off with ALERTS_CRON_ONLY).
  const { startAlertSweep } = await import("@/lib/alerts/background");
  startAlertSweep();
}
