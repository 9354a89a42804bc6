import { prisma } from "@/lib/db/client";
import { errors } from "@/lib/http/errors";
import { extendedSessionExpiry } from "@/lib/auth/session-lifetime";

export type SessionUser = { id: string; email: string; name: string | null };

/**
 * Auth.js's database-session cookie: `__Secure-` prefixed over https, plain
 * over http. Its value is the `sessions.session_token` primary key.
 */
export const SESSION_COOKIE_NAMES = ["__Secure-authjs.session-token", "authjs.session-token"] as const;

// Auth.js makes UUIDs; anything far longer is not ours and not worth a query.
const MAX_TOKEN_LENGTH = 255;

/** The session token from a Cookie header, preferring the `__Secure-` cookie. */
export function sessionTokenFromCookieHeader(header: string | null): string | null {
  if (!header) return null;
  const found = new Map<string, string>();
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    const name = part.slice(0, eq).trim();
    if (!(SESSION_COOKIE_NAMES as readonly string[]).includes(name) || found.has(name)) continue;
    found.set(name, safeDecode(part.slice(eq + 1).trim()));
  }
  for (const name of SESSION_COOKIE_NAMES) {
    const value = found.get(name);
    if (value && value.length <= MAX_TOKEN_LENGTH) return value;
  }
  return null;
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

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
 * The signed-in user of a route-handler request, or 401 `unauthenticated`.
 * With `rejectBearer`, any `Authorization: Bearer` header is refused first
 * with 401 `api_key_not_accepted`, even next to a valid session cookie (an
 * API key must never stand in for a person).
 */
export async function requireSessionUser(request: Request, options: { rejectBearer?: boolean } = {}): Promise<SessionUser> {
  if (options.rejectBearer && /^\s*bearer(\s|$)/i.test(request.headers.get("authorization") ?? "")) {
    throw errors.apiKeyNotAccepted();
  }
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
  for (const name of SESSION_COOKIE_NAMES) {
    const value = store.get(name)?.value;
    if (value && value.length <= MAX_TOKEN_LENGTH) return findSessionUser(value);
  }
  return null;
}
