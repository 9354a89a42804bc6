import { AsyncLocalStorage } from "node:async_hooks";
import { consumeSignInAttempt } from "@/lib/auth/sign-in-rate-limit";
import { mayReceiveSignInLink } from "@/lib/sign-in/sign-up-policy";
import { clientAddress } from "@/lib/http/client-address";
import { logger } from "@/lib/log";
import { settings } from "@/lib/config/settings";

/** The `error` value the sign-in page receives when a request was rate limited. */
export const RATE_LIMITED_ERROR = "RateLimited";

// The client IP of the request being handled by the Auth.js route handler.
// The signIn callback has no access to the request, so the route hands it over.
const requestIp = new AsyncLocalStorage<string>();

/** Runs the Auth.js handler with the request's client IP available to checkSignInRequest. */
export function withSignInClientIp<T>(request: Request, fn: () => Promise<T>): Promise<T> {
  return requestIp.run(clientAddress(request.headers), fn);
}

async function currentClientIp(): Promise<string> {
  const fromRoute = requestIp.getStore();
  if (fromRoute) return fromRoute;
  try {
    // The `signIn` server action calls Auth.js without our route handler.
    const { headers } = await import("next/headers");
    return clientAddress(await headers());
  } catch {
    return "unknown";
  }
}

/**
 * Where Auth.js sends the browser after a link was sent. An address that may
 * not sign in gets exactly this answer too, with no token made and no mail.
 */
export const LINK_SENT_PATH = "/api/auth/verify-request?provider=nodemailer&type=email";

/**
 * Decides whether a sign-in link may be sent to `email`: true, or where
 * Auth.js redirects instead (no token is made and no mail sent):
 * `RateLimited` over the limit, `Configuration` in production without a mail
 * server, and for an address the sign-up policy refuses, the same page as
 * for a sent link, so the answer does not tell which addresses may sign in.
 */
export async function checkSignInRequest(email: string): Promise<true | string> {
  if (!settings().mail.server && settings().production) {
    logger.error("sign-in link not sent: EMAIL_SERVER is not set. Set it to an SMTP URL, or print a link with: npm run telltale -- signin-link --email <address>");
    return "/signin?error=Configuration";
  }
  const attempt = await consumeSignInAttempt({ email, ip: await currentClientIp() });
  if (!attempt.allowed) {
    logger.warn("sign-in request rate limited", { retryAfterSeconds: attempt.retryAfterSeconds });
    return `/signin?${new URLSearchParams({ error: RATE_LIMITED_ERROR, retryAfter: String(attempt.retryAfterSeconds) })}`;
  }
  if (await mayReceiveSignInLink(email)) return true;
  logger.info("sign-in link not sent: the sign-up policy does not admit this address", { policy: settings().signUp.policy });
  return LINK_SENT_PATH;
}
