import { BurstyRateLimiter, RateLimiterMemory, RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";

type Limiter = Pick<RateLimiterAbstract, "consume"> | BurstyRateLimiter;

export type RateLimit = {
  limiter: Limiter;
  /** Requests allowed per window, as advertised in RateLimit-Limit. */
  limit: number;
  windowSeconds: number;
};

/**
 * What a limiter decided for one request: data only. The edge turns it into
 * RateLimit-* and Retry-After headers (lib/http/problem.ts, lib/http/route.ts).
 */
export type RateLimitDecision = {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the budget refills (at least 1); Retry-After when refused. */
  resetSeconds: number;
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

function decision(rl: RateLimit, res: RateLimiterRes, allowed: boolean): RateLimitDecision {
  return {
    allowed,
    limit: rl.limit,
    remaining: Math.max(0, res.remainingPoints),
    resetSeconds: Math.max(1, Math.ceil(res.msBeforeNext / 1000)),
    windowSeconds: rl.windowSeconds,
  };
}

/** Takes one point for `key` and says whether the request may go on; null when the limit is off. */
export async function consumeRateLimit(rl: RateLimit | null, key: string): Promise<RateLimitDecision | null> {
  if (!rl) return null;
  try {
    return decision(rl, (await rl.limiter.consume(key)) as RateLimiterRes, true);
  } catch (rejection) {
    if (rejection instanceof RateLimiterRes) return decision(rl, rejection, false);
    throw rejection;
  }
}

/** The RateLimit-* headers (IETF draft) of a decision; Retry-After is added for refusals. */
export function rateLimitHeaders(d: RateLimitDecision | null | undefined): Record<string, string> {
  if (!d) return {};
  return {
    "RateLimit-Limit": String(d.limit),
    "RateLimit-Remaining": String(d.remaining),
    "RateLimit-Reset": String(d.resetSeconds),
    "RateLimit-Policy": `${d.limit};w=${d.windowSeconds}`,
    ...(d.allowed ? {} : { "Retry-After": String(d.resetSeconds) }),
  };
}
