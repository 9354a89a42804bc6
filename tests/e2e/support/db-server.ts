/**
 * The e2e suite's database: an embedded PostgreSQL (PGlite) in a fresh folder,
 * migrated, served on a free local port. Run with tsx by the global setup
 * (a process of its own, because PGlite blocks the event loop it runs on):
 *
 *   tsx tests/e2e/support/db-server.ts <data folder>
 *
 * Prints one line `READY <url>` once the schema is in place, then serves
 * until SIGTERM/SIGINT.
 */
import { startEmbeddedPostgres } from "@/tools/db/embedded";
import { applyMigrations } from "@/tools/db/migrate";

async function main(): Promise<void> {
  const dataDir = process.argv[2];
  if (!dataDir) throw new Error("usage: db-server.ts <data folder>");
  const db = await startEmbeddedPostgres({ dataDir, port: 0 });
  await applyMigrations(db.url);
  process.stdout.write(`READY ${db.url}\n`);
  // If the parent dies without signalling, don't outlive it.
  process.stdin.on("end", () => void db.stop().finally(() => process.exit(0)));
  process.stdin.resume();
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
  process.exit(1);
});
