import { hkdfSync } from "node:crypto";
import { settings } from "@/lib/config/settings";

/**
 * The server secret that protects stored API keys (AES-256-GCM) and other
 * server-side tokens. `npm run dev` and the tests generate one when unset;
 * production refuses to start without it (ops/start.ts).
 */
export function telltaleSecret(): string {
  const secret = settings().secrets.telltale;
  if (!secret) {
    throw new Error("TELLTALE_SECRET is not set or shorter than 32 characters. Generate one with: openssl rand -base64 32");
  }
  return secret;
}

const derived = new Map<string, Buffer>();

/** A 32-byte key derived from TELLTALE_SECRET for one purpose (HKDF-SHA256). */
export function deriveKey(purpose: string): Buffer {
  const secret = telltaleSecret();
  const cacheKey = `${purpose}\u0000${secret}`;
  let key = derived.get(cacheKey);
  if (!key) {
    key = Buffer.from(hkdfSync("sha256", secret, "telltale", purpose, 32));
    derived.set(cacheKey, key);
  }
  return key;
}
