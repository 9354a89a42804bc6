/**
 * Runs once when a server process starts (next start, the standalone
 * server, next dev), before it serves requests.
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== "nodejs") return;
  const { installHttpGuard } = await import("@/lib/edge/node-guard");
  // Ingest beside Next.js in production only: `next dev` keeps recompiling the routes as they change.
  installHttpGuard({ directIngest: process.env.NODE_ENV === "production" });
  const { checkSettingsAtStart } = await import("@/lib/config/startup");
  checkSettingsAtStart();
  // The schedule of background work (lib/schedule/schedule.ts): alert delivery,
  // spike checks, retention, pruning; each job once per interval among all instances.
  const [{ startSchedule }, { SCHEDULE }] = await Promise.all([import("@/lib/jobs/runner"), import("@/lib/schedule/schedule")]);
  startSchedule(SCHEDULE);
}
