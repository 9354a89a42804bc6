import { errors } from "@/lib/http/errors";

/**
 * The one check for "where to go after sign-in" values (callbackUrl,
 * redirectTo): only a path on this site, never an open redirect.
 */

/** Where a missing or refused callback goes. */
export const DEFAULT_CALLBACK_PATH = "/projects";

// A placeholder origin: a value that resolves anywhere else named another site.
const PLACEHOLDER_ORIGIN = "http://x";

// Browsers drop tabs and newlines from URLs ("/\t/evil.com" becomes
// "//evil.com") and read "\" as "/": refuse them rather than guess.
const UNSAFE_CHARS = /[\u0000-\u001f\u007f-\u009f\\]/;

/**
 * `value` as a same-origin path (`/a/b?c#d`, normalized), or `fallback`:
 * no scheme, no host, no protocol-relative `//`, no control characters or
 * backslashes anywhere.
 */
export function safeCallbackPath(value: unknown, fallback = DEFAULT_CALLBACK_PATH): string {
  if (typeof value !== "string" || value.length === 0 || value.length > 2048) return fallback;
  if (UNSAFE_CHARS.test(value) || !value.startsWith("/") || value.startsWith("//")) return fallback;
  let url: URL;
  try {
    url = new URL(value, PLACEHOLDER_ORIGIN);
  } catch {
    return fallback;
  }
  // Dot segments can still climb to "//host" ("/a/..//evil.com").
  if (url.origin !== PLACEHOLDER_ORIGIN || !url.pathname.startsWith("/") || url.pathname.startsWith("//")) return fallback;
  return url.pathname + url.search + url.hash;
}

/**
 * Auth.js's `redirect` callback: a path, or an absolute URL on `baseUrl`'s
 * origin, passes as that path on `baseUrl`; anything else goes to the default.
 */
export function safeRedirectUrl(url: string, baseUrl: string): string {
  const base = new URL(baseUrl).origin;
  let path: unknown = url;
  if (!url.startsWith("/") && !UNSAFE_CHARS.test(url)) {
    try {
      const absolute = new URL(url);
      path = absolute.origin === base ? absolute.pathname + absolute.search + absolute.hash : undefined;
    } catch {
      path = undefined;
    }
  }
  return `${base}${safeCallbackPath(path)}`;
}

/**
 * The sign-in page, coming back to `returnTo` afterwards (when it is a safe
 * path), its form filled with `email` (an invitation's address).
 */
export function signInPath(returnTo?: string, email?: string): string {
  const query = new URLSearchParams();
  if (returnTo) query.set("callbackUrl", safeCallbackPath(returnTo));
  if (email) query.set("email", email);
  return query.size === 0 ? "/signin" : `/signin?${query}`;
}

/**
 * Whether Auth.js will accept `value` as a callbackUrl (query or its
 * callback-url cookie): a path or an http(s) URL. Auth.js answers anything
 * else (`javascript:`, `data:`) with a 500 "server configuration" error, so
 * the route refuses it first, as the client's mistake. Where an accepted
 * value leads is still safeRedirectUrl's decision.
 */
function isAcceptedCallbackValue(value: string, origin: string): boolean {
  try {
    return /^https?:$/.test(new URL(value, value.startsWith("/") ? origin : undefined).protocol);
  } catch {
    return false;
  }
}

const CALLBACK_COOKIES = ["authjs.callback-url", "__Secure-authjs.callback-url"];

/** Throws a 400 when a request to Auth.js carries a callbackUrl (query or cookie) it would fail on. */
export function assertAcceptedCallbackUrl(request: Request): void {
  const url = new URL(request.url);
  const values = [url.searchParams.get("callbackUrl")];
  for (const part of (request.headers.get("cookie") ?? "").split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && CALLBACK_COOKIES.includes(part.slice(0, eq).trim())) values.push(decodeCookie(part.slice(eq + 1).trim()));
  }
  for (const value of values) {
    if (value && !isAcceptedCallbackValue(value, url.origin)) {
      throw errors.validation([{ path: "callbackUrl", message: "Give a path on this site, such as /projects." }], "The callback URL is not a path or an http(s) address.");
    }
  }
}

function decodeCookie(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}
