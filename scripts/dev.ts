/**
 * npm run dev: the development server.
 * - TELLTALE_SECRET / AUTH_SECRET unset: random ones, made once and kept in
 *   .telltale/dev-secrets.json (mode 600), so sessions and stored keys survive
 *   restarts. AUTH_TRUST_HOST defaults to true.
 * - DATABASE_URL unset: the embedded PostgreSQL in .telltale/pgdata
 *   (TELLTALE_DATA_DIR), owned by this process while `next dev` runs.
 * - Applies pending migrations, then runs `next dev` on PORT (default 3000),
 *   with Next.js's telemetry off (NEXT_TELEMETRY_DISABLED=1, as in the image).
 * - Once it answers, compiles the ingest routes ahead (lib/config/dev-warm-up.ts).
 * Extra arguments go to next: `npm run dev -- --hostname 0.0.0.0`.
 */
import { createRequire } from "node:module";
import path from "node:path";
import { loadDevSecrets } from "@/lib/config/dev-secrets";
import { recordDevServerPort } from "@/lib/config/dev-server";
import { warmIngestRoutes } from "@/lib/config/dev-warm-up";
import { ensureDatabase, runChildWithDatabase } from "@/tools/db/ensure";
import { loadEnvFiles } from "@/lib/config/load-env";
import { settings, settingsProblems } from "@/lib/config/settings";

async function main(): Promise<void> {
  loadEnvFiles("development");
  loadDevSecrets();
  const problems = settingsProblems(process.env, "development");
  if (problems.length) throw new Error(`the configuration has problems:\n${problems.map((p) => `  - ${p}`).join("\n")}`);
  process.env.AUTH_TRUST_HOST ??= "true";

  const db = await ensureDatabase({ migrate: true, log: (line) => console.log(line) });
  console.log(
    db.source === "env"
      ? "Database: DATABASE_URL (migrations applied)"
      : `Database: embedded PostgreSQL (PGlite) at ${db.url}, data in ${path.relative(process.cwd(), settings().embedded.dataDir) || "."}`,
  );

  const next = createRequire(import.meta.url).resolve("next/dist/bin/next");
  const port = String(settings().port);
  recordDevServerPort(settings().port);
  void warmIngestRoutes(`http://127.0.0.1:${port}`, { log: (line) => console.log(line) });
  await runChildWithDatabase(db, process.execPath, [next, "dev", "--port", port, ...process.argv.slice(2)], { ...process.env, NEXT_TELEMETRY_DISABLED: "1" });
}

main().catch((error) => {
  console.error(`npm run dev: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
