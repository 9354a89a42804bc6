import { NextResponse, type NextRequest } from "next/server";
import { signInPath } from "@/lib/auth/safe-callback";
import { SESSION_COOKIE_NAMES } from "@/lib/auth/cookies";
import { SESSION_MAX_AGE_SECONDS } from "@/lib/auth/lifetimes";

/**
 * A cheap gate for dashboard pages: no session cookie at all means "not signed
 * in", so send the visitor to the sign-in page and back afterwards. Whether
 * the cookie is valid is checked by the pages and server actions themselves
 * (no database or Auth.js config here: proxy runs on every navigation).
 */
export function proxy(request: NextRequest) {
  const { pathname, search } = request.nextUrl;
  const present = SESSION_COOKIE_NAMES.filter((name) => request.cookies.has(name));
  if (present.length === 0) return NextResponse.redirect(new URL(signInPath(pathname === "/" ? undefined : pathname + search), request.url));

  const response = NextResponse.next();
  // Auth.js gave the cookie the session's first expiry; lib/auth/session.ts
  // extends the session itself while it is used, so the browser must keep
  // the cookie as long (Auth.js's own /api/auth/session does the same).
  // Page loads only: a sign-out action's POST must not get it back.
  if (request.method === "GET") {
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
  // Everything except the API, sign-in pages, invitation links (they handle
  // sign-in themselves), Next.js internals and files with an extension.
  matcher: ["/((?!api(?:/|$)|signin(?:/|$)|invitations(?:/|$)|_next/|.*\\.[^/]*$).*)"],
};
