import { createHmac, randomBytes } from "node:crypto";
import { openSecret, sealSecret } from "@/lib/crypto/seal";

const PURPOSE = "alert-webhook-signing-secret-v1";

/** Header names every webhook delivery carries. */
export const SIGNATURE_HEADER = "X-Telltale-Signature";
export const TIMESTAMP_HEADER = "X-Telltale-Timestamp";
export const DELIVERY_HEADER = "X-Telltale-Delivery";

/** A new signing secret (shown to the owner once) and its sealed form (stored). */
export function newSigningSecret(): { secret: string; sealed: string } {
  const secret = `whsec_${randomBytes(32).toString("base64url")}`;
  return { secret, sealed: sealSecret(PURPOSE, secret) };
}

export function openSigningSecret(sealed: string): string {
  return openSecret(PURPOSE, sealed);
}

/** `sha256=<hex HMAC-SHA256 of the raw body>`: the X-Telltale-Signature value. */
export function signatureOf(secret: string, rawBody: string): string {
  return `sha256=${createHmac("sha256", secret).update(rawBody, "utf8").digest("hex")}`;
}
