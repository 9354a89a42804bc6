import { NextResponse, type NextRequest } from "next/server";
import { SESSION_COOKIE_NAMES } from "@/lib/auth/cookies";
import { SESSION_MAX_AGE_SECONDS } from "@/lib/auth/lifetimes";
import { signInPath } from "@/lib/auth/safe-callback";

// Pages that need no session: sign-in, invitation links (they sign in
// themselves), and paths whose last segment has a dot (/icon.svg, or a
// 404 page: no dashboard page has one). Everything else is the dashboard.
const PUBLIC_PAGES = /^\/(signin|invitations)(\/|$)|\.[^/]*$/;

/**
 * The page's Content-Security-Policy: scripts only with this response's
 * nonce (Next.js reads it from the request's CSP header and puts it on its
 * own scripts), no framing, no plugins, no foreign form targets. Development
 * also needs eval for React's tooling.
 */
export function contentSecurityPolicy(nonce: string, development = process.env.NODE_ENV === "development"): string {
  return [
    "default-src 'self'",
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'${development ? " 'unsafe-eval'" : ""}`,
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self'",
    "connect-src 'self'",
    "frame-ancestors 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "object-src 'none'",
  ].join("; ");
}

/**
 * Runs on every page navigation, so it stays cheap (no database, no Auth.js
 * config): it gives each page its CSP nonce and security headers, and for
 * dashboard pages checks only that a session cookie is present (no cookie:
 * to the sign-in page and back). Whether the session is valid is the pages'
 * and server actions' job.
 */
export function proxy(request: NextRequest) {
  const { pathname, search, protocol } = request.nextUrl;
  const nonce = Buffer.from(crypto.getRandomValues(new Uint8Array(16))).toString("base64");
  const csp = contentSecurityPolicy(nonce);
  const present = SESSION_COOKIE_NAMES.filter((name) => request.cookies.has(name));

  let response: NextResponse;
  if (present.length === 0 && !PUBLIC_PAGES.test(pathname)) {
    response = NextResponse.redirect(new URL(signInPath(pathname === "/" ? undefined : pathname + search), request.url));
  } else {
    const headers = new Headers(request.headers);
    headers.set("content-security-policy", csp);
    headers.set("x-nonce", nonce);
    response = NextResponse.next({ request: { headers } });
  }
  response.headers.set("Content-Security-Policy", csp);
  // Behind a TLS-terminating proxy the URL says http and the forwarded scheme
  // says https. Browsers ignore HSTS on plain HTTP, so a forged header gains nothing.
  if (protocol === "https:" || request.headers.get("x-forwarded-proto") === "https") {
    response.headers.set("Strict-Transport-Security", "max-age=31536000; includeSubDomains");
  }

  // Auth.js gave the cookie the session's first expiry; lib/auth/session.ts
  // extends the session itself while it is used, so the browser must keep
  // the cookie as long (Auth.js's own /api/auth/session does the same).
  // Page loads only: a sign-out action's POST must not get it back.
  if (request.method === "GET" && !PUBLIC_PAGES.test(pathname)) {
    for (const name of present) {
      response.cookies.set(name, request.cookies.get(name)!.value, {
        httpOnly: true,
        sameSite: "lax",
        path: "/",
        secure: name.startsWith("__Secure-"),
        maxAge: SESSION_MAX_AGE_SECONDS,
      });
    }
  }
  return response;
}

export const config = {
  // Every page, the 404 page of a path that looks like a file (/a/b.php)
  // included; not the API (JSON, its own headers) or Next.js internals.
  matcher: ["/((?!api(?:/|$)|v1/|_next/).*)"],
};
