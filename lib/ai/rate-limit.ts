import { fromSettings } from "@/lib/config/settings";
import { errors } from "@/lib/http/errors";
import { consumeRateLimit, createRateLimit } from "@/lib/http/rate-limit";

// In memory, per process: on a multi-instance deployment each instance
// allows the rate (documented in docs/ai.md).
const summaryLimit = fromSettings((s) => createRateLimit({ name: "ai-summary", perWindow: s.ai.rateLimitPerMinute, windowSeconds: 60 }));

/** Takes one summary from the user's per-minute allowance, or throws 429 rate_limited. */
export async function consumeSummaryQuota(userId: string): Promise<void> {
  const decision = await consumeRateLimit(summaryLimit(), userId);
  if (decision && !decision.allowed) throw errors.rateLimited(decision);
}
