import * as crypto from "node:crypto";

// One-shot hashing, no Hash object per call: every API-key request hashes
// its key. Node.js 20.12 added it; the engines field allows 20.9.
const oneShot: typeof crypto.hash | undefined = crypto.hash;

/**
 * Lowercase hex SHA-256 of a UTF-8 string: the lookup column of every secret
 * we store only as a hash (API keys, invitation tokens). Unsalted on purpose:
 * the inputs are 190+ random bits, so a lookup by hash is safe and O(1).
 */
export function sha256Hex(text: string): string {
  return oneShot ? oneShot("sha256", text, "hex") : crypto.createHash("sha256").update(text, "utf8").digest("hex");
}
