import { stubEnv, unstubEnvs } from "@/tests/helpers/env";
import { afterEach, describe, expect, it } from "vitest";
import { assertSameOrigin } from "@/lib/auth/same-origin";
import { sessionTokenFromCookieHeader } from "@/lib/auth/cookies";
import { requireSessionUser } from "@/lib/auth/session";
import { consumeSignInAttempt, normalizeEmailKey } from "@/lib/auth/sign-in-rate-limit";
import { addressBlock, clientAddress, CLIENT_ADDRESS_HEADER } from "@/lib/http/client-address";
import { authCallbackAction, confirmationUrl } from "@/lib/sign-in/sign-in-email";
import { atPublicOrigin, publicOrigin } from "@/lib/auth/public-origin";

afterEach(() => unstubEnvs());

function req(method: string, headers: Record<string, string>, url = "http://localhost:3000/api/projects") {
  return new Request(url, { method, headers });
}

function originVerdict(method: string, headers: Record<string, string>, url?: string): number {
  try {
    assertSameOrigin(req(method, { host: "localhost:3000", ...headers }, url));
    return 200;
  } catch (error) {
    return (error as { status: number }).status;
  }
}

describe("assertSameOrigin", () => {
  it("lets safe methods through whatever their origin", () => {
    expect(originVerdict("GET", { origin: "https://evil.example" })).toBe(200);
  });

  it("refuses state changes from another origin, a null origin or a cross-site fetch", () => {
    for (const method of ["POST", "DELETE", "PATCH", "PUT"]) {
      expect(originVerdict(method, { origin: "https://evil.example" })).toBe(403);
    }
    expect(originVerdict("POST", { origin: "null" })).toBe(403);
    expect(originVerdict("POST", { origin: "http://localhost:3001" })).toBe(403);
    expect(originVerdict("POST", { origin: "http://localhost.evil.example:3000" })).toBe(403);
    expect(originVerdict("POST", { referer: "https://evil.example/x" })).toBe(403);
    expect(originVerdict("POST", { "sec-fetch-site": "cross-site" })).toBe(403);
    expect(originVerdict("POST", { origin: "javascript:alert(1)" })).toBe(403);
  });

  it("accepts this host as the request, a reverse proxy or AUTH_URL names it, and clients without Origin or Referer", () => {
    expect(originVerdict("POST", { origin: "http://localhost:3000" })).toBe(200);
    expect(originVerdict("POST", { referer: "http://localhost:3000/projects?x=1" })).toBe(200);
    expect(originVerdict("POST", {})).toBe(200);
    expect(originVerdict("POST", { origin: "https://telltale.example", "x-forwarded-host": "telltale.example" })).toBe(200);
    expect(originVerdict("POST", { origin: "https://TellTale.example", host: "telltale.example:443" })).toBe(200);
    stubEnv("AUTH_URL", "https://logs.example.com/api/auth");
    expect(originVerdict("POST", { origin: "https://logs.example.com" })).toBe(200);
  });
});

describe("session cookie", () => {
  it("reads the Auth.js session cookie, preferring the __Secure- one", () => {
    expect(sessionTokenFromCookieHeader("a=1; authjs.session-token=abc; b=2")).toBe("abc");
    expect(sessionTokenFromCookieHeader("authjs.session-token=plain; __Secure-authjs.session-token=secure")).toBe("secure");
    expect(sessionTokenFromCookieHeader("authjs.session-token=a%2Fb")).toBe("a/b");
    expect(sessionTokenFromCookieHeader("x-authjs.session-token=abc")).toBeNull();
    expect(sessionTokenFromCookieHeader(`authjs.session-token=${"x".repeat(300)}`)).toBeNull();
    expect(sessionTokenFromCookieHeader("")).toBeNull();
    expect(sessionTokenFromCookieHeader(null)).toBeNull();
  });

  it("401 unauthenticated without a cookie; any Bearer header is 401 api_key_not_accepted first", async () => {
    await expect(requireSessionUser(req("GET", {}))).rejects.toMatchObject({ status: 401, code: "unauthenticated" });
    for (const authorization of ["Bearer tlt_x", "bearer", "  BEARER abc"]) {
      await expect(
        requireSessionUser(req("GET", { authorization, cookie: "authjs.session-token=whatever" })),
      ).rejects.toMatchObject({ status: 401, code: "api_key_not_accepted" });
    }
    await expect(requireSessionUser(req("GET", { authorization: "Basic x" }))).rejects.toMatchObject({ code: "unauthenticated" });
  });
});

describe("sign-in links", () => {
  it("point at the confirmation page with Auth.js's parameters; its form posts them back to the callback", () => {
    const authUrl = "https://t.example/api/auth/callback/nodemailer?callbackUrl=https%3A%2F%2Ft.example%2Fprojects&token=abc&email=a%40b.io";
    const link = new URL(confirmationUrl(authUrl));
    expect(link.origin + link.pathname).toBe("https://t.example/signin/confirm");
    expect(Object.fromEntries(link.searchParams)).toEqual({ callbackUrl: "https://t.example/projects", token: "abc", email: "a@b.io" });
    const action = authCallbackAction({ token: "abc", email: "a@b.io", callbackUrl: "https://t.example/projects" });
    expect(action).toBe("/api/auth/callback/nodemailer?callbackUrl=https%3A%2F%2Ft.example%2Fprojects&token=abc&email=a%40b.io");
    expect(authCallbackAction({ token: "t&x=1", email: "e" })).toBe("/api/auth/callback/nodemailer?token=t%26x%3D1&email=e");
  });
});

describe("sign-in rate limit", () => {
  it("counts per address case-insensitively and per IP; 0 turns a limit off", async () => {
    stubEnv("SIGNIN_RATE_LIMIT_PER_EMAIL", "2");
    stubEnv("SIGNIN_RATE_LIMIT_PER_IP", "0");
    const email = `unit-${Date.now()}@example.test`;
    expect(await consumeSignInAttempt({ email, ip: "1.1.1.1" })).toEqual({ allowed: true });
    expect(await consumeSignInAttempt({ email: email.toUpperCase(), ip: "2.2.2.2" })).toEqual({ allowed: true });
    const third = await consumeSignInAttempt({ email, ip: "3.3.3.3" });
    expect(third.allowed).toBe(false);
    expect(third.allowed === false && third.retryAfterSeconds).toBeGreaterThan(0);

    stubEnv("SIGNIN_RATE_LIMIT_PER_EMAIL", "0");
    stubEnv("SIGNIN_RATE_LIMIT_PER_IP", "1");
    expect(await consumeSignInAttempt({ email: "a@x.io", ip: "9.9.9.9" })).toEqual({ allowed: true });
    expect((await consumeSignInAttempt({ email: "b@x.io", ip: "9.9.9.9" })).allowed).toBe(false);
    expect((await consumeSignInAttempt({ email: "c@x.io", ip: "9.9.9.8" })).allowed).toBe(true);
  });

  it("counts plus-tagged addresses as the same address", () => {
    expect(normalizeEmailKey(" You+News@Example.com ")).toBe("you@example.com");
    expect(normalizeEmailKey("a+b+c@x.io")).toBe("a@x.io");
    expect(normalizeEmailKey("plain@x.io")).toBe("plain@x.io");
  });

  it("counts an IPv6 client by its /64 however it is written; IPv4 (also written as IPv6) by its address", () => {
    const block = "2001:db8:1:2::/64";
    for (const a of ["2001:db8:1:2::1", "2001:0db8:0001:0002:ffff:ffff:ffff:ffff", "2001:DB8:1:2:a:b:c:d", "[2001:db8:1:2::99]", "2001:db8:1:2::1%eth0", "2001:db8:1:2:0:0:1.2.3.4"]) {
      expect(addressBlock(a), a).toBe(block);
    }
    expect(addressBlock("2001:db8:1:3::1")).toBe("2001:db8:1:3::/64");
    expect(addressBlock("::1")).toBe("0:0:0:0::/64");
    expect(addressBlock("::ffff:192.0.2.7")).toBe("192.0.2.7");
    expect(addressBlock("192.0.2.7")).toBe("192.0.2.7");
    expect(addressBlock("unknown")).toBe("unknown");
  });

  it("the sign-in limit per IP counts a whole IPv6 /64 as one client", async () => {
    stubEnv("SIGNIN_RATE_LIMIT_PER_EMAIL", "100");
    stubEnv("SIGNIN_RATE_LIMIT_PER_IP", "2");
    const answers = [];
    for (let i = 1; i <= 4; i++) answers.push((await consumeSignInAttempt({ email: `v6-${i}@x.io`, ip: `2001:db8:77:1::${i.toString(16)}` })).allowed);
    expect(answers).toEqual([true, true, false, false]);
    expect((await consumeSignInAttempt({ email: "v6-other@x.io", ip: "2001:db8:77:2::1" })).allowed).toBe(true);
  });

  it("takes the socket's address unless TRUST_PROXY_HOPS says how many proxies' X-Forwarded-For to believe", () => {
    const headers = new Headers({ [CLIENT_ADDRESS_HEADER]: "10.0.0.9", "x-forwarded-for": "6.6.6.6, 203.0.113.7, 10.0.0.1" });
    expect(clientAddress(headers)).toBe("10.0.0.9"); // a client can write X-Forwarded-For
    stubEnv("TRUST_PROXY_HOPS", "1");
    expect(clientAddress(headers)).toBe("10.0.0.1");
    stubEnv("TRUST_PROXY_HOPS", "2");
    expect(clientAddress(headers)).toBe("203.0.113.7");
    stubEnv("TRUST_PROXY_HOPS", "9");
    expect(clientAddress(headers)).toBe("6.6.6.6"); // a shorter chain: its first entry
    stubEnv("TRUST_PROXY_HOPS", "0");
    expect(clientAddress(new Headers())).toBe("unknown");
  });

  it("ignores a client-address header no guard of this process stamped (a client could have sent it)", () => {
    const flag = Symbol.for("telltale.clientAddressStamped");
    const flags = globalThis as { [flag]?: boolean };
    const before = flags[flag];
    try {
      flags[flag] = false;
      const headers = new Headers({ [CLIENT_ADDRESS_HEADER]: "1.2.3.4", "x-forwarded-for": "203.0.113.7" });
      expect(clientAddress(headers)).toBe("unknown");
      stubEnv("TRUST_PROXY_HOPS", "1"); // behind a host's proxy: its X-Forwarded-For entry
      expect(clientAddress(headers)).toBe("203.0.113.7");
    } finally {
      flags[flag] = before;
      stubEnv("TRUST_PROXY_HOPS", "0");
    }
  });
});

describe("publicOrigin", () => {
  it("prefers AUTH_URL, then (AUTH_TRUST_HOST=true) the proxy's forwarded host and scheme, then the request", () => {
    stubEnv("AUTH_TRUST_HOST", "true");
    expect(publicOrigin(req("POST", { "x-forwarded-host": "logs.example", "x-forwarded-proto": "https" }))).toBe("https://logs.example");
    expect(publicOrigin(req("POST", { host: "localhost:3000" }))).toBe("http://localhost:3000");
    stubEnv("AUTH_URL", "https://telltale.example/api/auth");
    expect(publicOrigin(req("POST", { "x-forwarded-host": "other.example" }))).toBe("https://telltale.example");
  });

  it("without AUTH_TRUST_HOST or AUTH_URL, ignores X-Forwarded-Host/Proto and uses the request's own Host", () => {
    stubEnv("AUTH_TRUST_HOST", "");
    stubEnv("AUTH_URL", "");
    const forged = { host: "localhost:3000", "x-forwarded-host": "evil.example", "x-forwarded-proto": "https" };
    expect(publicOrigin(req("POST", forged))).toBe("http://localhost:3000");
    stubEnv("AUTH_TRUST_HOST", "false");
    expect(publicOrigin(req("POST", forged))).toBe("http://localhost:3000");
  });

  it("never builds an origin from a Host that is not a host name", () => {
    stubEnv("AUTH_TRUST_HOST", "true");
    stubEnv("AUTH_URL", "");
    expect(publicOrigin(req("POST", { "x-forwarded-host": "evil.example/path", host: "localhost:3000" }))).toBe("http://localhost:3000");
    expect(publicOrigin(req("POST", { "x-forwarded-host": "a@evil.example" }))).toBe("http://localhost:3000");
    expect(publicOrigin(req("POST", { "x-forwarded-host": "[::1]:8080" }))).toBe("http://[::1]:8080");
  });
});

describe("atPublicOrigin (what Auth.js is given)", () => {
  it("puts the request at the origin the browser reached, with its method, headers and body, when Next.js named another", async () => {
    stubEnv("AUTH_TRUST_HOST", "true");
    stubEnv("AUTH_URL", "");
    // Next.js hands a route handler http://127.0.0.1:3000 as "localhost".
    const sent = new Request("http://localhost:3000/api/auth/callback/nodemailer?token=t&email=a%40b.test", {
      method: "POST",
      headers: { host: "127.0.0.1:3000", "content-type": "application/x-www-form-urlencoded", cookie: "authjs.csrf-token=c" },
      body: "csrfToken=c",
    });
    const given = await atPublicOrigin(sent);
    expect(given.url).toBe("http://127.0.0.1:3000/api/auth/callback/nodemailer?token=t&email=a%40b.test");
    expect(given.method).toBe("POST");
    expect(given.headers.get("cookie")).toBe("authjs.csrf-token=c");
    expect(await given.text()).toBe("csrfToken=c");
  });

  it("leaves a request alone that is at that origin already, or when AUTH_URL is set (next-auth applies it to its own request type)", async () => {
    stubEnv("AUTH_TRUST_HOST", "true");
    stubEnv("AUTH_URL", "");
    const same = req("POST", { host: "localhost:3000" });
    expect(await atPublicOrigin(same)).toBe(same);
    stubEnv("AUTH_URL", "https://telltale.example");
    const behindProxy = req("GET", { host: "0.0.0.0:3000" }, "http://0.0.0.0:3000/api/auth/session");
    expect(await atPublicOrigin(behindProxy)).toBe(behindProxy);
  });
});

