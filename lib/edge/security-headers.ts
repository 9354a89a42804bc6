/**
 * Headers of every page and answer (next.config.ts sets them on what Next.js
 * serves, lib/edge/direct-ingest.ts on the ingest answers it serves itself).
 * The Content-Security-Policy (with a per-response script nonce) and HSTS
 * are set by proxy.ts.
 */
export const SECURITY_HEADERS: readonly { key: string; value: string }[] = [
  { key: "X-Content-Type-Options", value: "nosniff" },
  { key: "X-Frame-Options", value: "DENY" },
  { key: "Referrer-Policy", value: "strict-origin-when-cross-origin" },
  { key: "Permissions-Policy", value: "camera=(), microphone=(), geolocation=(), payment=(), usb=()" },
];
