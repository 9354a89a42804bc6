import { describe, expect, it } from "vitest";
import { NextRequest } from "next/server";
import { unstable_doesMiddlewareMatch } from "next/experimental/testing/server";
import { config, contentSecurityPolicy, proxy } from "@/proxy";

function run(path: string, init: { method?: string; cookie?: string; headers?: Record<string, string> } = {}) {
  const headers: Record<string, string> = { ...(init.cookie ? { cookie: init.cookie } : {}), ...(init.headers ?? {}) };
  return proxy(new NextRequest(`http://localhost:3000${path}`, { method: init.method ?? "GET", headers }));
}

describe("proxy (dashboard gate and page headers)", () => {
  it("sends visitors without a session cookie to sign in, and back; sign-in and invitation pages need none", () => {
    expect(run("/projects/abc?level=error").headers.get("location")).toBe("http://localhost:3000/signin?callbackUrl=%2Fprojects%2Fabc%3Flevel%3Derror");
    expect(run("/").headers.get("location")).toBe("http://localhost:3000/signin");
    for (const page of ["/signin", "/signin/confirm?token=x", "/invitations/abc"]) expect(run(page).headers.get("location"), page).toBeNull();
  });

  it("gives every page a fresh script nonce in a strict Content-Security-Policy, also on the request Next.js renders", () => {
    const a = run("/signin");
    const b = run("/signin");
    const csp = a.headers.get("content-security-policy")!;
    const nonce = /'nonce-([A-Za-z0-9+/=]+)'/.exec(csp)![1];
    expect(nonce).not.toBe(/'nonce-([A-Za-z0-9+/=]+)'/.exec(b.headers.get("content-security-policy")!)![1]);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).toContain("object-src 'none'");
    expect(csp).not.toContain("unsafe-eval");
    // NextResponse.next({request: {headers}}) hands the overridden request headers on.
    expect(a.headers.get("x-middleware-request-content-security-policy")).toBe(csp);
    expect(contentSecurityPolicy("n", true)).toContain("'unsafe-eval'");
  });

  it("runs for every HTML answer, the 404 page of a path whose last segment has a dot included; not for the API or Next.js files", () => {
    const runs = (url: string) => unstable_doesMiddlewareMatch({ config, url });
    for (const page of ["/", "/projects", "/projects/abc/settings", "/projects/a.php", "/wp-login.php", "/a/b.c/d.e", "/favicon.ico", "/.env", "/signin"]) expect(runs(page), page).toBe(true);
    for (const other of ["/api/events", "/api", "/api/auth/csrf", "/v1/traces", "/_next/static/chunks/app.js", "/_next/image"]) expect(runs(other), other).toBe(false);
    // Such a path is a 404 (or /icon.svg), never a dashboard page: its nonce, and no detour to sign in.
    const notFound = run("/projects/abc/x.php");
    expect(notFound.headers.get("location")).toBeNull();
    expect(notFound.headers.get("content-security-policy")).toMatch(/'nonce-[A-Za-z0-9+/=]+'/);
    expect(notFound.headers.get("x-middleware-request-x-nonce")).toBeTruthy();
  });

  it("adds HSTS when the page was reached over HTTPS, not over plain HTTP", () => {
    expect(run("/signin").headers.get("strict-transport-security")).toBeNull();
    expect(run("/signin", { headers: { "x-forwarded-proto": "https" } }).headers.get("strict-transport-security")).toMatch(/max-age=\d+/);
  });

  it("keeps the session cookie alive as long as the session (30 days from the last page load)", () => {
    const cookie = run("/projects", { cookie: "authjs.session-token=abc" }).headers.getSetCookie();
    expect(cookie).toHaveLength(1);
    expect(cookie[0]).toMatch(/^authjs\.session-token=abc;/);
    expect(cookie[0]).toMatch(/Max-Age=2592000/);
    expect(cookie[0]).toMatch(/HttpOnly/i);
    expect(cookie[0]).toMatch(/SameSite=lax/i);
    expect(cookie[0]).not.toMatch(/Secure/i);
    const secure = run("/projects", { cookie: "__Secure-authjs.session-token=xyz" }).headers.getSetCookie();
    expect(secure[0]).toMatch(/^__Secure-authjs\.session-token=xyz;.*Secure/i);
  });

  it("does not give the cookie back to a server action's POST (a sign-out)", () => {
    expect(run("/projects", { method: "POST", cookie: "authjs.session-token=abc" }).headers.getSetCookie()).toEqual([]);
  });
});
