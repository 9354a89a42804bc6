import { fromSettings } from "@/lib/config/settings";
import { errors } from "@/lib/http/errors";
import { consumeRateLimit, createRateLimit } from "@/lib/http/rate-limit";

// Per user, shared by every instance through Redis when REDIS_URL is set;
// otherwise each process allows the rate (docs/redis.md).
const summaryLimit = fromSettings((s) => createRateLimit({ name: "ai-summary", perWindow: s.ai.rateLimitPerMinute, windowSeconds: 60 }));

/** Takes one summary from the user's per-minute allowance, or throws 429 rate_limited. */
export async function consumeSummaryQuota(userId: string): Promise<void> {
  const decision = await consumeRateLimit(summaryLimit(), userId);
  if (decision && !decision.allowed) throw errors.rateLimited(decision);
}
