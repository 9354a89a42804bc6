import { AsyncLocalStorage } from "node:async_hooks";
import { clientIp, consumeSignInAttempt } from "@/lib/auth/sign-in-rate-limit";
import { logger } from "@/lib/log";
import { settings } from "@/lib/config/settings";

/** The `error` value the sign-in page receives when a request was rate limited. */
export const RATE_LIMITED_ERROR = "RateLimited";

// The client IP of the request being handled by the Auth.js route handler.
// The signIn callback has no access to the request, so the route hands it over.
const requestIp = new AsyncLocalStorage<string>();

/** Runs the Auth.js handler with the request's client IP available to checkSignInRequest. */
export function withSignInClientIp<T>(request: Request, fn: () => Promise<T>): Promise<T> {
  return requestIp.run(clientIp(request.headers), fn);
}

async function currentClientIp(): Promise<string> {
  const fromRoute = requestIp.getStore();
  if (fromRoute) return fromRoute;
  try {
    // The `signIn` server action calls Auth.js without our route handler.
    const { headers } = await import("next/headers");
    return clientIp(await headers());
  } catch {
    return "unknown";
  }
}

/**
 * Decides whether a sign-in link may be sent to `email`: true, or the sign-in
 * page URL with an `error` for Auth.js to redirect to (no token is made and
 * no mail sent): `RateLimited` over the limit, `Configuration` in production
 * without a mail server. Checked here, before Auth.js makes a token, because
 * a failing sendVerificationRequest would reject while Auth.js is still
 * hashing the token, an unhandled rejection.
 */
export async function checkSignInRequest(email: string): Promise<true | string> {
  if (!settings().mail.server && settings().production) {
    logger.error("sign-in link not sent: EMAIL_SERVER is not set");
    return "/signin?error=Configuration";
  }
  const attempt = await consumeSignInAttempt({ email, ip: await currentClientIp() });
  if (attempt.allowed) return true;
  logger.warn("sign-in request rate limited", { retryAfterSeconds: attempt.retryAfterSeconds });
  return `/signin?${new URLSearchParams({ error: RATE_LIMITED_ERROR, retryAfter: String(attempt.retryAfterSeconds) })}`;
}
