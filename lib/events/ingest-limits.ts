import { envInt } from "@/lib/config/env";
import { createRateLimit, type RateLimit } from "@/lib/http/rate-limit";

/** Limits of the ingestion endpoints, from the environment (README "Configuration"). */
export const ingestLimits = {
  maxBodyBytes: envInt("INGEST_MAX_BODY_BYTES"),
  maxBatchBodyBytes: envInt("INGEST_BATCH_MAX_BODY_BYTES"),
};

let limiter: RateLimit | null | undefined;

/**
 * Per-key limit: INGEST_RATE_LIMIT requests/s (default 1,000; 0 = off), with
 * bursts up to twice that (the extra allowance refills over 10 s). A batch
 * request counts as one request.
 */
export function ingestRateLimit(): RateLimit | null {
  if (limiter === undefined) {
    const perSecond = envInt("INGEST_RATE_LIMIT");
    limiter = createRateLimit({ name: "ingest", perWindow: perSecond, windowSeconds: 1, burst: perSecond, burstWindowSeconds: 10 });
  }
  return limiter;
}
