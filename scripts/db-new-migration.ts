/**
 * npm run db:migration -- <name> [--empty]
 *
 * Writes prisma/migrations/<timestamp>_<name>/migration.sql: the SQL that takes
 * a database built by the existing migrations to prisma/schema.prisma (what
 * `prisma migrate dev --create-only` writes). Needs no database: the
 * migrations are replayed on an in-memory PGlite. `--empty` writes an empty
 * migration for hand-written SQL. Apply with `npm run db:migrate`.
 */
import fs from "node:fs";
import path from "node:path";
import { MIGRATION_LOCK_TOML, MIGRATIONS_DIR, diffMigrationsToSchema, migrationFolderName } from "@/tools/db/migrate";

async function main(): Promise<number> {
  const args = process.argv.slice(2);
  const empty = args.includes("--empty");
  const name = args.find((a) => !a.startsWith("--"));
  if (!name) {
    console.error("Usage: npm run db:migration -- <name> [--empty]   (e.g. npm run db:migration -- add_event_tags)");
    return 2;
  }
  const folder = migrationFolderName(name); // validates the name before the slow part

  const lockfile = path.join(MIGRATIONS_DIR, "migration_lock.toml");
  if (!fs.existsSync(lockfile)) {
    fs.mkdirSync(MIGRATIONS_DIR, { recursive: true });
    fs.writeFileSync(lockfile, MIGRATION_LOCK_TOML);
    console.log(`Created ${path.relative(process.cwd(), lockfile)}`);
  }

  const sql = empty ? "-- This is an empty migration.\n" : await diffMigrationsToSchema();
  if (!sql.trim()) {
    console.log("prisma/schema.prisma and prisma/migrations already agree: no migration written.");
    return 0;
  }
  const dir = path.join(MIGRATIONS_DIR, folder);
  fs.mkdirSync(dir, { recursive: false });
  fs.writeFileSync(path.join(dir, "migration.sql"), sql.endsWith("\n") ? sql : `${sql}\n`);
  console.log(`Wrote ${path.relative(process.cwd(), path.join(dir, "migration.sql"))}. Review it, then run: npm run db:migrate`);
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error) => {
    console.error(`db:migration failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
