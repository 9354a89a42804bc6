import { createRateLimit, type RateLimit } from "@/lib/http/rate-limit";

/** Limits of the ingestion endpoints, from the environment (README "Configuration"). */
export const ingestLimits = {
  maxBodyBytes: Number(process.env.INGEST_MAX_BODY_BYTES ?? 256 * 1024),
  maxBatchBodyBytes: Number(process.env.INGEST_BATCH_MAX_BODY_BYTES ?? 1024 * 1024),
};

let limiter: RateLimit | null | undefined;

/**
 * Per-key limit: INGEST_RATE_LIMIT requests/s (default 1,000; 0 = off), with
 * bursts up to twice that (the extra allowance refills over 10 s). A batch
 * request counts as one request.
 */
export function ingestRateLimit(): RateLimit | null {
  if (limiter === undefined) {
    const perSecond = Number(process.env.INGEST_RATE_LIMIT ?? 1000);
    limiter = createRateLimit({ name: "ingest", perWindow: perSecond, windowSeconds: 1, burst: perSecond, burstWindowSeconds: 10 });
  }
  return limiter;
}
