/**
 * Auth.js's database-session cookie: `__Secure-` prefixed over https, plain
 * over http. Its value is the `sessions.session_token` primary key. No
 * database import: proxy.ts reads it too.
 */
export const SESSION_COOKIE_NAMES = ["__Secure-authjs.session-token", "authjs.session-token"] as const;

// Auth.js makes UUIDs; anything far longer is not ours and not worth a query.
export const MAX_SESSION_TOKEN_CHARS = 255;

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
  return firstUsableToken((name) => found.get(name));
}

/** The first cookie (in SESSION_COOKIE_NAMES order) that can be a session token. */
export function firstUsableToken(read: (name: string) => string | undefined): string | null {
  for (const name of SESSION_COOKIE_NAMES) {
    const value = read(name);
    if (value && value.length <= MAX_SESSION_TOKEN_CHARS) return value;
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
