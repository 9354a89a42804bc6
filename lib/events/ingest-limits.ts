import { createRateLimit, type RateLimit } from "@/lib/http/rate-limit";

/** Limits of the ingestion endpoints, from the environment (README "Configuration"). */
export const ingestLimits = {
  maxBodyBytes: positiveInteger("INGEST_MAX_BODY_BYTES", 256 * 1024),
  maxBatchBodyBytes: positiveInteger("INGEST_BATCH_MAX_BODY_BYTES", 1024 * 1024),
};

/** A malformed limit must not silently turn the limit off: refuse it loudly. */
function positiveInteger(name: string, fallback: number, allowZero = false): number {
  const raw = process.env[name]?.trim();
  if (!raw) return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < (allowZero ? 0 : 1)) {
    throw new Error(`${name} must be a ${allowZero ? "non-negative" : "positive"} integer, got "${raw}".`);
  }
  return value;
}

let limiter: RateLimit | null | undefined;

/**
 * Per-key limit: INGEST_RATE_LIMIT requests/s (default 1,000; 0 = off), with
 * bursts up to twice that (the extra allowance refills over 10 s). A batch
 * request counts as one request.
 */
export function ingestRateLimit(): RateLimit | null {
  if (limiter === undefined) {
    const perSecond = positiveInteger("INGEST_RATE_LIMIT", 1000, true);
    limiter = createRateLimit({ name: "ingest", perWindow: perSecond, windowSeconds: 1, burst: perSecond, burstWindowSeconds: 10 });
  }
  return limiter;
}
