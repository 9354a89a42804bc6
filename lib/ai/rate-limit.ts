import { aiSettings } from "@/lib/ai/config";
import { consumeRateLimit, createRateLimit, type RateLimit } from "@/lib/http/rate-limit";

// Rebuilt when AI_RATE_LIMIT_PER_MINUTE changes (read on every call, so tests
// can tune it). In memory, per process: on a multi-instance deployment each
// instance allows the rate (documented in docs/ai.md).
let current: { perMinute: number; limit: RateLimit | null } | undefined;

/** Takes one summary from the user's per-minute allowance, or throws 429 rate_limited with Retry-After. */
export async function consumeSummaryQuota(userId: string): Promise<void> {
  const perMinute = aiSettings().rateLimitPerMinute;
  if (current?.perMinute !== perMinute) {
    current = { perMinute, limit: createRateLimit({ name: `ai-summary-${perMinute}`, perWindow: perMinute, windowSeconds: 60 }) };
  }
  await consumeRateLimit(current.limit, userId);
}
