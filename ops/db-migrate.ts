/**
 * npm run db:migrate
 *
 * Applies the pending migrations in prisma/migrations to DATABASE_URL, or to
 * the embedded database when it is unset (through the running dev server's
 * connection when one owns the data folder). With DATABASE_URL pointing at a
 * pooler (PgBouncer in transaction mode), set DIRECT_URL to the server
 * itself: migrations connect there. Safe to run twice or concurrently.
 */
import { ensureDatabase } from "@/tools/db/ensure";
import { applyMigrations, migrationUrl } from "@/tools/db/migrate";
import { loadEnvFiles } from "@/lib/config/load-env";

function describe(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || 5432}${u.pathname}`; // never print a password
  } catch {
    return "DATABASE_URL";
  }
}

async function main(): Promise<void> {
  loadEnvFiles((process.env.NODE_ENV === "production" ? "production" : "development"));
  const db = await ensureDatabase({ migrate: false, attach: true });
  try {
    const where =
      db.source === "env" ? describe(migrationUrl(db.url)) + (migrationUrl(db.url) !== db.url ? " (DIRECT_URL)" : "") : db.source === "attached" ? `the embedded database (served by a running process)` : "the embedded database";
    console.log(`Applying migrations to ${where}...`);
    let reported = 0;
    const applied = await applyMigrations(db.url, {
      onWait: (m) => console.log(m),
      // Large tables: a line per 100,000 events assigned to their issues.
      onBackfill: (done) => {
        if (done - reported >= 100_000) console.log(`  ${(reported = done).toLocaleString("en-US")} earlier events assigned to issues...`);
      },
    });
    if (applied.length === 0) console.log("No pending migrations: the database is up to date.");
    for (const name of applied) console.log(`Applied ${name}`);
  } finally {
    await db.stop();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(`db:migrate failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
