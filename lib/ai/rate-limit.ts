import { RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible";
import { aiSettings } from "@/lib/ai/config";
import { errors } from "@/lib/http/errors";

// One limiter per configured rate, made on first use: the setting is read on
// every call, so a changed AI_RATE_LIMIT_PER_MINUTE applies without restart
// in tests. In memory, per process: on a multi-instance deployment each
// instance allows the rate (documented in docs/ai.md).
const limiters = new Map<number, RateLimiterMemory>();

function limiterFor(pointsPerMinute: number): RateLimiterMemory {
  let limiter = limiters.get(pointsPerMinute);
  if (!limiter) {
    limiter = new RateLimiterMemory({ keyPrefix: `ai-summary-${pointsPerMinute}`, points: pointsPerMinute, duration: 60 });
    limiters.set(pointsPerMinute, limiter);
  }
  return limiter;
}

/** Takes one summary from the user's per-minute allowance, or throws 429 rate_limited with Retry-After. */
export async function consumeSummaryQuota(userId: string): Promise<void> {
  const perMinute = aiSettings().rateLimitPerMinute;
  if (perMinute === 0) return;
  try {
    await limiterFor(perMinute).consume(userId);
  } catch (rejection) {
    if (!(rejection instanceof RateLimiterRes)) throw rejection;
    const retryAfter = Math.max(1, Math.ceil(rejection.msBeforeNext / 1000));
    throw errors.rateLimited(retryAfter, {
      "RateLimit-Limit": String(perMinute),
      "RateLimit-Remaining": "0",
      "RateLimit-Reset": String(retryAfter),
    });
  }
}
