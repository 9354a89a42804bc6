import { createHash } from "node:crypto";

/**
 * Lowercase hex SHA-256 of a UTF-8 string: the lookup column of every secret
 * we store only as a hash (API keys, invitation tokens). Unsalted on purpose:
 * the inputs are 190+ random bits, so a lookup by hash is safe and O(1).
 */
export function sha256Hex(text: string): string {
  return createHash("sha256").update(text, "utf8").digest("hex");
}
