import { AppError } from "@/lib/http/errors";
import { consumeRateLimit, createRateLimit, type RateLimit } from "@/lib/http/rate-limit";
import { envInt } from "@/lib/config/env";

/**
 * Sign-in link requests are limited per address (so nobody can flood an inbox)
 * and per client IP (so nobody can spray addresses). Both limits count every
 * request, whether the address belongs to a user or not, so the answer never
 * tells which addresses exist. In memory, per process: on a multi-instance
 * deployment each instance enforces its own budget.
 */
export type SignInLimits = { perEmail: number; perIp: number; windowSeconds: number };

export function signInLimits(env: Record<string, string | undefined> = process.env): SignInLimits {
  return {
    perEmail: envInt("SIGNIN_RATE_LIMIT_PER_EMAIL", env),
    perIp: envInt("SIGNIN_RATE_LIMIT_PER_IP", env),
    windowSeconds: envInt("SIGNIN_RATE_LIMIT_WINDOW_SECONDS", env),
  };
}


type Limiters = { key: string; email: RateLimit | null; ip: RateLimit | null };
let limiters: Limiters | undefined;

// Rebuilt when the configuration changes (tests tune it through the environment).
function currentLimiters(): Limiters {
  const { perEmail, perIp, windowSeconds } = signInLimits();
  const key = `${perEmail}/${perIp}/${windowSeconds}`;
  if (limiters?.key !== key) {
    limiters = {
      key,
      email: createRateLimit({ name: "signin-email", perWindow: perEmail, windowSeconds }),
      ip: createRateLimit({ name: "signin-ip", perWindow: perIp, windowSeconds }),
    };
  }
  return limiters;
}

export type SignInAttempt = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/** Counts one sign-in link request against both budgets (each counts, limited or not). */
export async function consumeSignInAttempt({ email, ip }: { email: string; ip: string }): Promise<SignInAttempt> {
  const { email: byEmail, ip: byIp } = currentLimiters();
  const results = await Promise.allSettled([consumeRateLimit(byEmail, normalizeEmailKey(email)), consumeRateLimit(byIp, ip)]);
  let retryAfterSeconds = 0;
  for (const result of results) {
    if (result.status === "fulfilled") continue;
    const error = result.reason;
    if (!(error instanceof AppError && error.code === "rate_limited")) throw error;
    retryAfterSeconds = Math.max(retryAfterSeconds, Number(error.headers?.["Retry-After"] ?? 1));
  }
  return retryAfterSeconds > 0 ? { allowed: false, retryAfterSeconds } : { allowed: true };
}

/** The same normalization Auth.js applies to the identifier (NFKC, trimmed, lower case). */
export function normalizeEmailKey(email: string): string {
  return email.normalize("NFKC").trim().toLowerCase();
}

/**
 * The per-IP bucket key of a request: the right-most X-Forwarded-For entry.
 * Behind a proxy (AUTH_TRUST_HOST=true) that is the address the proxy saw.
 * Served directly, `next start` fills X-Forwarded-For from the socket when
 * the client sent none, so honest clients each get their own bucket; a
 * client that forges the header can only dodge its own per-IP budget (the
 * per-address limit still protects every inbox). Sharing one bucket among
 * all direct clients was the alternative, and it lets anyone lock every user
 * out of sign-in with a handful of requests, so it is not used.
 */
export function clientIp(headers: { get(name: string): string | null }): string {
  const forwarded = headers.get("x-forwarded-for");
  const last = forwarded?.split(",").map((s) => s.trim()).filter(Boolean).at(-1);
  return last || headers.get("x-real-ip")?.trim() || "unknown";
}
