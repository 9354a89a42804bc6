/**
 * npm run dev: the development server.
 * - TELLTALE_SECRET / AUTH_SECRET unset: random ones, made once and kept in
 *   .telltale/dev-secrets.json (mode 600), so sessions and stored keys survive
 *   restarts. AUTH_TRUST_HOST defaults to true.
 * - DATABASE_URL unset: the embedded PostgreSQL in .telltale/pgdata
 *   (TELLTALE_DATA_DIR), owned by this process while `next dev` runs.
 * - Applies pending migrations, then runs `next dev` on PORT (default 3000).
 * Extra arguments go to next: `npm run dev -- --hostname 0.0.0.0`.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import { createRequire } from "node:module";
import path from "node:path";
import { ensureDatabase, runChildWithDatabase } from "@/lib/db/ensure";

const SECRETS_FILE = path.resolve(".telltale", "dev-secrets.json");
const SECRET_NAMES = ["TELLTALE_SECRET", "AUTH_SECRET"] as const;

function devSecrets(): void {
  const missing = SECRET_NAMES.filter((name) => !process.env[name]);
  if (missing.length === 0) return;
  let stored: Record<string, string> = {};
  try {
    stored = JSON.parse(fs.readFileSync(SECRETS_FILE, "utf8"));
  } catch {
    // first run (or an unreadable file): make new ones
  }
  let changed = false;
  for (const name of missing) {
    if (typeof stored[name] !== "string" || stored[name].length < 32) {
      stored[name] = randomBytes(32).toString("base64url");
      changed = true;
    }
    process.env[name] = stored[name];
  }
  if (changed) {
    fs.mkdirSync(path.dirname(SECRETS_FILE), { recursive: true });
    fs.writeFileSync(SECRETS_FILE, `${JSON.stringify(stored, null, 2)}\n`, { mode: 0o600 });
  }
  fs.chmodSync(SECRETS_FILE, 0o600);
  console.log(`Using development secrets (${missing.join(", ")}) from ${path.relative(process.cwd(), SECRETS_FILE)}`);
}

async function main(): Promise<void> {
  devSecrets();
  process.env.AUTH_TRUST_HOST ??= "true";

  const db = await ensureDatabase({ migrate: true, log: (line) => console.log(line) });
  console.log(
    db.source === "env"
      ? "Database: DATABASE_URL (migrations applied)"
      : `Database: embedded PostgreSQL (PGlite) at ${db.url}, data in ${path.relative(process.cwd(), process.env.TELLTALE_DATA_DIR || ".telltale/pgdata") || "."}`,
  );

  const next = createRequire(import.meta.url).resolve("next/dist/bin/next");
  const port = process.env.PORT || "3000";
  await runChildWithDatabase(db, process.execPath, [next, "dev", "--port", port, ...process.argv.slice(2)]);
}

main().catch((error) => {
  console.error(`npm run dev: ${error instanceof Error ? error.message : String(error)}`);
  process.exit(1);
});
