import { fromSettings } from "@/lib/config/settings";
import { addressBlock } from "@/lib/http/client-address";
import { consumeRateLimit, createRateLimit } from "@/lib/http/rate-limit";

/**
 * Sign-in link requests are limited per address (so nobody can flood an inbox)
 * and per client IP, an IPv6 client by its /64 (so nobody can spray addresses). Both limits count every
 * request, whether the address belongs to a user or not, so the answer never
 * tells which addresses exist. Shared by every instance through Redis when
 * REDIS_URL is set; otherwise each process enforces its own budget.
 */
const limiters = fromSettings((s) => ({
  email: createRateLimit({ name: "signin-email", perWindow: s.signIn.perEmail, windowSeconds: s.signIn.windowSeconds }),
  ip: createRateLimit({ name: "signin-ip", perWindow: s.signIn.perIp, windowSeconds: s.signIn.windowSeconds }),
}));

export type SignInAttempt = { allowed: true } | { allowed: false; retryAfterSeconds: number };

/** Counts one sign-in link request against both budgets (each counts, limited or not). */
export async function consumeSignInAttempt({ email, ip }: { email: string; ip: string }): Promise<SignInAttempt> {
  const { email: byEmail, ip: byIp } = limiters();
  const decisions = await Promise.all([consumeRateLimit(byEmail, normalizeEmailKey(email)), consumeRateLimit(byIp, addressBlock(ip))]);
  const refused = decisions.filter((d) => d && !d.allowed);
  if (refused.length === 0) return { allowed: true };
  return { allowed: false, retryAfterSeconds: Math.max(...refused.map((d) => d!.resetSeconds)) };
}

/**
 * The address a limit counts: Auth.js's normalization (NFKC, trimmed, lower
 * case) without a plus tag, since `you+1@…`, `you+2@…` reach the same inbox.
 */
export function normalizeEmailKey(email: string): string {
  const address = email.normalize("NFKC").trim().toLowerCase();
  const at = address.lastIndexOf("@");
  if (at < 0) return address;
  return address.slice(0, at).replace(/\+.*$/, "") + address.slice(at);
}
