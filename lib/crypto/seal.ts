import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { deriveKey } from "@/lib/config/secrets";

/**
 * A secret the server must read back (not just compare), sealed with
 * AES-256-GCM under a key derived from TELLTALE_SECRET for one `purpose`, so
 * a value sealed for one use can't be opened as another:
 * base64url(iv | ciphertext | tag). The scheme of lib/keys/crypto.ts.
 */
export function sealSecret(purpose: string, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv("aes-256-gcm", deriveKey(purpose), iv);
  const body = Buffer.concat([cipher.update(plaintext, "utf8"), cipher.final()]);
  return Buffer.concat([iv, body, cipher.getAuthTag()]).toString("base64url");
}

/** Opens a sealSecret value; throws when it was sealed for another purpose or under another TELLTALE_SECRET. */
export function openSecret(purpose: string, sealed: string): string {
  const raw = Buffer.from(sealed, "base64url");
  const decipher = createDecipheriv("aes-256-gcm", deriveKey(purpose), raw.subarray(0, 12));
  decipher.setAuthTag(raw.subarray(raw.length - 16));
  return Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]).toString("utf8");
}
