import { fromSettings } from "@/lib/config/settings";
import { consumeRateLimit, createRateLimit } from "@/lib/http/rate-limit";

/**
 * Sign-in link requests are limited per address (so nobody can flood an inbox)
 * and per client IP (so nobody can spray addresses). Both limits count every
 * request, whether the address belongs to a user or not, so the answer never
 * tells which addresses exist. In memory, per process: on a multi-instance
 * deployment each instance enforces its own budget.
 */
const limiters = fromSettings((s) => ({
  email: createRateLimit({ name: "signin-email", perWindow: s.signIn.perEmail, windowSeconds: s.signIn.windowSeconds }),
  ip: createRateLimit({ name: "signin-ip", perWindow: s.signIn.perIp, windowSeconds: s.signIn.windowSeconds }),
}));

export type SignInAttempt = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/** Counts one sign-in link request against both budgets (each counts, limited or not). */
export async function consumeSignInAttempt({ email, ip }: { email: string; ip: string }): Promise<SignInAttempt> {
  const { email: byEmail, ip: byIp } = limiters();
  const decisions = await Promise.all([consumeRateLimit(byEmail, normalizeEmailKey(email)), consumeRateLimit(byIp, ip)]);
  const refused = decisions.filter((d) => d && !d.allowed);
  if (refused.length === 0) return { allowed: true };
  return { allowed: false, retryAfterSeconds: Math.max(...refused.map((d) => d!.resetSeconds)) };
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
