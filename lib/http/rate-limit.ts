import { createHash } from "node:crypto";
import { BurstyRateLimiter, RateLimiterMemory, RateLimiterRedis, RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";
import { redisKey, redisStoreClient } from "@/lib/redis/connection";

type Limiter = Pick<RateLimiterAbstract, "consume"> | BurstyRateLimiter;

export type RateLimit = {
  limiter: Limiter;
  /** Requests allowed per window, as advertised in RateLimit-Limit. */
  limit: number;
  windowSeconds: number;
  /** Counted in Redis (REDIS_URL), shared by every instance; else in this process. */
  shared: boolean;
};

/**
 * What a limiter decided for one request: data only. The edge turns it into
 * RateLimit-* and Retry-After headers (lib/edge/problem.ts, lib/edge/route.ts).
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
 *
 * With REDIS_URL the counters live in Redis (RateLimiterRedis), so every
 * instance draws on the same budget. Each has an in-memory insurance limiter
 * of the same size: while Redis is not answering (not connected, or a
 * command past its deadline) this process counts on its own, so requests go
 * on under per-process limits rather than failing or waiting
 * (lib/redis/connection.ts logs the outage).
 */
export function createRateLimit(opts: {
  name: string;
  perWindow: number;
  windowSeconds: number;
  burst?: number;
  burstWindowSeconds?: number;
}): RateLimit | null {
  if (!(opts.perWindow > 0)) return null;
  const redis = redisStoreClient();
  const store = (name: string, points: number, duration: number) => {
    const memory = new RateLimiterMemory({ keyPrefix: name, points, duration });
    if (!redis) return memory;
    return new RateLimiterRedis({
      storeClient: redis,
      keyPrefix: redisKey(`rl:${name}`),
      points,
      duration,
      insuranceLimiter: memory,
      // Not connected: straight to the insurance limiter, no attempt.
      rejectIfRedisNotReady: true,
    });
  };
  const main = store(opts.name, opts.perWindow, opts.windowSeconds);
  const limiter = opts.burst ? new BurstyRateLimiter(main, store(`${opts.name}:burst`, opts.burst, opts.burstWindowSeconds ?? 10)) : main;
  return { limiter, limit: opts.perWindow, windowSeconds: opts.windowSeconds, shared: redis !== null };
}

/**
 * What a limit counts under. In Redis the key is hashed: limits are kept per
 * e-mail address and client IP, which have no business in a key listing.
 */
function keyOf(rl: RateLimit, key: string): string {
  return rl.shared ? createHash("sha256").update(key).digest("base64url").slice(0, 32) : key;
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
    return decision(rl, (await rl.limiter.consume(keyOf(rl, key))) as RateLimiterRes, true);
  } catch (rejection) {
    if (rejection instanceof RateLimiterRes) return decision(rl, rejection, false);
    throw rejection;
  }
}

/**
 * Whether `key` has budget left, without taking any: for limits counted on
 * failure only (rejected API keys), checked before the costly work.
 */
export async function peekRateLimit(rl: RateLimit | null, key: string): Promise<RateLimitDecision | null> {
  if (!rl) return null;
  const res = (await (rl.limiter as RateLimiterAbstract).get(keyOf(rl, key))) as RateLimiterRes | null;
  if (!res) return { allowed: true, limit: rl.limit, remaining: rl.limit, resetSeconds: rl.windowSeconds, windowSeconds: rl.windowSeconds };
  return decision(rl, res, res.consumedPoints < rl.limit);
}

/** Gives back one point taken for `key` (a reservation that turned out not to be spent). */
export async function refundRateLimit(rl: RateLimit | null, key: string): Promise<void> {
  if (!rl) return;
  await (rl.limiter as RateLimiterAbstract).reward(keyOf(rl, key), 1);
}

/** Takes one point for `key`, whether or not it was left (a failure happened anyway). */
export async function countAgainstRateLimit(rl: RateLimit | null, key: string): Promise<void> {
  if (!rl) return;
  await (rl.limiter as RateLimiterAbstract).penalty(keyOf(rl, key), 1);
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
