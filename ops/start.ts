/**
 * npm start: the production server (`next start` on PORT, default 3000).
 * - Production whatever NODE_ENV says (`next start` runs production builds):
 *   the required secrets must be set, and each missing one is named.
 * - DATABASE_URL unset: the embedded PostgreSQL (TELLTALE_DATA_DIR).
 * - Does not migrate. Pending migrations stop the start with a message to run
 *   `npm run db:migrate` first. A database that cannot be reached does not:
 *   the server starts and answers 503 until it comes back.
 * - Next.js's telemetry off (NEXT_TELEMETRY_DISABLED=1), as in the image.
 */
import { createRequire } from "node:module";
import { canConnect } from "@/tools/db/embedded";
import { ensureDatabase, runChildWithDatabase } from "@/tools/db/ensure";
import { migrationStatus } from "@/tools/db/migrate";
import { loadEnvFiles } from "@/lib/config/load-env";
import { settings, settingsProblems } from "@/lib/config/settings";

async function main(): Promise<number> {
  loadEnvFiles("production");
  const problems = settingsProblems(process.env, "production");
  if (problems.length) {
    console.error(`Refusing to start: the configuration has problems.\n${problems.map((p) => `  - ${p}`).join("\n")}\nSet them in the environment (see .env.example and the README).`);
    return 1;
  }
  if (!settings().auth.url && !settings().auth.trustHost) {
    console.warn("Warning: neither AUTH_URL nor AUTH_TRUST_HOST is set; sign-in answers 500 until one is (AUTH_URL=https://your.host, or AUTH_TRUST_HOST=true behind a trusted proxy).");
  }

  const db = await ensureDatabase({ migrate: false });
  try {
    const status = await migrationStatus(db.url);
    if (status.failed.length) {
      console.error(
        `Refusing to start: migration ${status.failed.join(", ")} failed part-way (or is being applied right now) and needs an operator ` +
          `(fix the database, then mark it with \`prisma migrate resolve\`; see docs/operations.md, "Migrations").`,
      );
      await db.stop();
      return 1;
    }
    if (status.pending.length) {
      console.error(
        `Refusing to start: the database is missing ${status.pending.length} migration(s): ${status.pending.join(", ")}.\n` +
          `Run \`npm run db:migrate\` (with the same DATABASE_URL) and start again.`,
      );
      await db.stop();
      return 1;
    }
    if (status.unassignedEvents > 0) {
      console.error(
        `Refusing to start: ${status.unassignedEvents} events stored before issues existed are not assigned to their issues yet.\n` +
          `Run \`npm run db:migrate\` (it assigns them in bounded steps, and may run while an older version serves) and start again.`,
      );
      await db.stop();
      return 1;
    }
  } catch (error) {
    if (db.source === "env" && !(await canConnect(db.url, 3000))) {
      console.warn("Warning: the database cannot be reached; starting anyway (readiness answers 503 until it is back). Migration state not checked.");
    } else {
      await db.stop();
      throw error;
    }
  }

  const next = createRequire(import.meta.url).resolve("next/dist/bin/next");
  const port = String(settings().port);
  // A larger young generation means fewer scavenges under ingestion load
  // (docs/performance.md, "Server settings").
  const nodeOptions = [process.env.NODE_OPTIONS, /max-semi-space-size/.test(process.env.NODE_OPTIONS ?? "") ? "" : "--max-semi-space-size=64"]
    .filter(Boolean)
    .join(" ");
  return runChildWithDatabase(db, process.execPath, [next, "start", "--port", port, ...process.argv.slice(2)], {
    ...process.env,
    NODE_OPTIONS: nodeOptions,
    NEXT_TELEMETRY_DISABLED: "1",
  });
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(`npm start: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
