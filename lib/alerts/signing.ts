import { createHmac, randomBytes } from "node:crypto";
import { openSecret, sealSecret } from "@/lib/crypto/seal";

const PURPOSE = "alert-webhook-signing-secret-v1";

/**
 * Headers every webhook delivery carries. The signature covers the
 * timestamp together with the body, so a captured delivery cannot be
 * replayed later under a fresh timestamp (docs/alerts.md, "Verifying").
 * X-Telltale-Signature (the body alone) is the signature of earlier
 * releases, still sent for this one so existing receivers keep working.
 */
const TIMESTAMP_HEADER = "X-Telltale-Timestamp";
const SIGNATURE_V1_HEADER = "X-Telltale-Signature-V1";
const LEGACY_SIGNATURE_HEADER = "X-Telltale-Signature";

/** A new signing secret (shown to the owner once) and its sealed form (stored). */
export function newSigningSecret(): { secret: string; sealed: string } {
  const secret = `whsec_${randomBytes(32).toString("base64url")}`;
  return { secret, sealed: sealSecret(PURPOSE, secret) };
}

export function openSigningSecret(sealed: string): string {
  return openSecret(PURPOSE, sealed);
}

const hmacHex = (secret: string, text: string) => createHmac("sha256", secret).update(text, "utf8").digest("hex");

/** `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">`, as Stripe signs. */
function timestampedSignature(secret: string, rawBody: string, unixSeconds: number): string {
  return `t=${unixSeconds},v1=${hmacHex(secret, `${unixSeconds}.${rawBody}`)}`;
}

/** `sha256=<hex HMAC-SHA256 of the raw body>`: the earlier releases' signature (deprecated). */
function legacySignature(secret: string, rawBody: string): string {
  return `sha256=${hmacHex(secret, rawBody)}`;
}

/** The signing headers of one delivery sent at `sentAt`. */
export function signatureHeaders(secret: string, rawBody: string, sentAt: Date): Record<string, string> {
  const t = Math.floor(sentAt.getTime() / 1000);
  return {
    [TIMESTAMP_HEADER]: String(t),
    [SIGNATURE_V1_HEADER]: timestampedSignature(secret, rawBody, t),
    [LEGACY_SIGNATURE_HEADER]: legacySignature(secret, rawBody),
  };
}
