import { describe, expect, it } from "vitest";
import { NextRequest } from "next/server";
import { proxy } from "@/proxy";

function run(path: string, init: { method?: string; cookie?: string } = {}) {
  const headers: Record<string, string> = init.cookie ? { cookie: init.cookie } : {};
  return proxy(new NextRequest(`http://localhost:3000${path}`, { method: init.method ?? "GET", headers }));
}

describe("proxy (dashboard gate)", () => {
  it("sends visitors without a session cookie to sign in, and back", () => {
    expect(run("/projects/abc?level=error").headers.get("location")).toBe("http://localhost:3000/signin?callbackUrl=%2Fprojects%2Fabc%3Flevel%3Derror");
    expect(run("/").headers.get("location")).toBe("http://localhost:3000/signin");
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
