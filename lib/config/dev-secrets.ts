import { randomBytes } from "node:crypto";
import fs from "node:fs";
import path from "node:path";

const SECRETS_FILE = path.resolve(".telltale", "dev-secrets.json");
const SECRET_NAMES = ["TELLTALE_SECRET", "AUTH_SECRET"] as const;

/**
 * Development only: TELLTALE_SECRET / AUTH_SECRET, when unset, come from
 * .telltale/dev-secrets.json (made once, mode 600), so that `npm run dev`
 * and the operator CLI encrypt and read keys with the same secret.
 */
export function loadDevSecrets(): void {
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
  console.error(`Using development secrets (${missing.join(", ")}) from ${path.relative(process.cwd(), SECRETS_FILE)}`);
}

