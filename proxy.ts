import { NextResponse, type NextRequest } from "next/server";

// Auth.js's session cookie: plain over http, `__Secure-` prefixed over https.
const SESSION_COOKIES = ["authjs.session-token", "__Secure-authjs.session-token"];

/**
 * A cheap gate for dashboard pages: no session cookie at all means "not signed
 * in", so send the visitor to the sign-in page and back afterwards. Whether
 * the cookie is valid is checked by the pages and server actions themselves
 * (no database or Auth.js config here: proxy runs on every navigation).
 */
export function proxy(request: NextRequest) {
  if (SESSION_COOKIES.some((name) => request.cookies.has(name))) return NextResponse.next();
  const { pathname, search } = request.nextUrl;
  const signIn = new URL("/signin", request.url);
  if (pathname !== "/") signIn.searchParams.set("callbackUrl", pathname + search);
  return NextResponse.redirect(signIn);
}

export const config = {
  // Everything except the API, sign-in pages, invitation links (they handle
  // sign-in themselves), Next.js internals and files with an extension.
  matcher: ["/((?!api(?:/|$)|signin(?:/|$)|invitations(?:/|$)|_next/|.*\\.[^/]*$).*)"],
};
