import { prisma } from "@/lib/db/client";
import { firstUsableToken, sessionTokenFromCookieHeader } from "@/lib/auth/cookies";
import { extendedSessionExpiry } from "@/lib/auth/lifetimes";
import { errors } from "@/lib/http/errors";

export type SessionUser = { id: string; email: string; name: string | null };

/**
 * The user of an unexpired session, or null. One primary-key lookup, and as
 * Auth.js does (updateAge), at most once a day per session one UPDATE that
 * pushes its expiry to 30 days from now: active users stay signed in.
 */
export async function findSessionUser(sessionToken: string): Promise<SessionUser | null> {
  const row = await prisma.session.findUnique({
    where: { sessionToken },
    select: { expires: true, user: { select: { id: true, email: true, name: true } } },
  });
  const now = Date.now();
  if (!row || row.expires.getTime() <= now) return null;
  const expires = extendedSessionExpiry(row.expires, now);
  if (expires) {
    // Conditional on the expiry read, so concurrent requests extend it once;
    // a session deleted meanwhile (sign-out) matches nothing.
    await prisma.session.updateMany({ where: { sessionToken, expires: row.expires }, data: { expires } });
  }
  return row.user;
}

/**
 * The signed-in user of a route-handler request. Any `Authorization: Bearer`
 * header is refused first with 401 `api_key_not_accepted`, even next to a
 * valid session cookie (an API key must never stand in for a person); no
 * session is 401 `unauthenticated`.
 */
export async function requireSessionUser(request: Request): Promise<SessionUser> {
  if (/^\s*bearer(\s|$)/i.test(request.headers.get("authorization") ?? "")) throw errors.apiKeyNotAccepted();
  const token = sessionTokenFromCookieHeader(request.headers.get("cookie"));
  const user = token ? await findSessionUser(token) : null;
  if (!user) throw errors.unauthenticated();
  return user;
}

/** The signed-in user for server components and server actions, or null. */
export async function currentUser(): Promise<SessionUser | null> {
  // Imported lazily: next/headers only works inside a Next.js request, and
  // this module is also used by route handlers called directly in tests.
  const { cookies } = await import("next/headers");
  const store = await cookies();
  const token = firstUsableToken((name) => store.get(name)?.value);
  return token ? findSessionUser(token) : null;
}
