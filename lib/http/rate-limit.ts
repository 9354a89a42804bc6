import { BurstyRateLimiter, RateLimiterMemory, RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";
import { errors } from "@/lib/http/errors";

type Limiter = Pick<RateLimiterAbstract, "consume"> | BurstyRateLimiter;

export type RateLimit = {
  limiter: Limiter;
  /** Requests allowed per window, as advertised in RateLimit-Limit. */
  limit: number;
  windowSeconds: number;
};

/**
 * A limit of `perWindow` requests per `windowSeconds`, with an optional extra
 * burst allowance refilled over `burstWindowSeconds` (rate-limiter-flexible's
 * BurstyRateLimiter). Returns null when `perWindow` is 0 (limit off).
 */
export function createRateLimit(opts: {
  name: string;
  perWindow: number;
  windowSeconds: number;
  burst?: number;
  burstWindowSeconds?: number;
}): RateLimit | null {
  if (!(opts.perWindow > 0)) return null;
  const main = new RateLimiterMemory({ keyPrefix: opts.name, points: opts.perWindow, duration: opts.windowSeconds });
  const limiter = opts.burst
    ? new BurstyRateLimiter(
        main,
        new RateLimiterMemory({ keyPrefix: `${opts.name}:burst`, points: opts.burst, duration: opts.burstWindowSeconds ?? 10 }),
      )
    : main;
  return { limiter, limit: opts.perWindow, windowSeconds: opts.windowSeconds };
}

function headersFor(rl: RateLimit, res: RateLimiterRes): Record<string, string> {
  const reset = Math.max(1, Math.ceil(res.msBeforeNext / 1000));
  return {
    "RateLimit-Limit": String(rl.limit),
    "RateLimit-Remaining": String(Math.max(0, res.remainingPoints)),
    "RateLimit-Reset": String(reset),
    "RateLimit-Policy": `${rl.limit};w=${rl.windowSeconds}`,
  };
}

/**
 * Takes one point for `key`; returns the RateLimit-* headers to send, or
 * throws 429 rate_limited with Retry-After and the same headers.
 */
export async function consumeRateLimit(rl: RateLimit | null, key: string): Promise<Record<string, string>> {
  if (!rl) return {};
  try {
    const res = (await rl.limiter.consume(key)) as RateLimiterRes;
    return headersFor(rl, res);
  } catch (rejection) {
    if (rejection instanceof RateLimiterRes) {
      const headers = headersFor(rl, rejection);
      throw errors.rateLimited(Number(headers["RateLimit-Reset"]), headers);
    }
    throw rejection;
  }
}
