import { SIGN_IN_LINK_LIFETIME_SECONDS } from "@/lib/auth/lifetimes";
import { randomUUID } from "node:crypto";
import { stubEnv, unstubEnvs } from "@/tests/helpers/env";
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { renderToStaticMarkup } from "react-dom/server";
import { GET, POST } from "@/app/api/auth/[...nextauth]/route";
import ConfirmSignInPage from "@/app/signin/confirm/page";
import { prisma } from "@/lib/db/client";
import { requireSessionUser } from "@/lib/auth/session";
import { startSmtpSink, uniqueEmail } from "@/tests/helpers/session";
import { CLIENT_ADDRESS_HEADER } from "@/lib/http/client-address";
import { mayReceiveSignInLink } from "@/lib/sign-in/sign-up-policy";
import { sql } from "kysely";
import { sqlDb } from "@/lib/db/sql";

let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
let ipSeq = 0;

beforeAll(async () => {
  smtp = await startSmtpSink();
  stubEnv("EMAIL_SERVER", smtp.url);
});
afterAll(async () => {
  unstubEnvs();
  await smtp.close();
});
beforeEach(() => {
  // Defaults for every test; a test may tighten them.
  stubEnv("SIGNIN_RATE_LIMIT_PER_EMAIL", "5");
  stubEnv("SIGNIN_RATE_LIMIT_PER_IP", "20");
  stubEnv("SIGNUP", "open");
  stubEnv("TRUST_PROXY_HOPS", "0");
});

/** A browser-like cookie jar for one client. */
class Client {
  cookies = new Map<string, string>();
  extraHeaders: Record<string, string> = {};
  constructor(
    readonly origin = "http://localhost:3000",
    readonly ip = `10.0.${Math.floor(++ipSeq / 250)}.${ipSeq % 250}`,
  ) {}

  header(): string {
    return [...this.cookies].map(([k, v]) => `${k}=${v}`).join("; ");
  }

  async send(method: "GET" | "POST", path: string, form?: Record<string, string>): Promise<Response> {
    const url = path.startsWith("http") ? path : `${this.origin}${path}`;
    // As the server stamps every request with its socket's address (lib/http/node-guard.ts).
    const headers: Record<string, string> = { cookie: this.header(), [CLIENT_ADDRESS_HEADER]: this.ip, ...this.extraHeaders };
    if (form) headers["content-type"] = "application/x-www-form-urlencoded";
    const request = new Request(url, { method, headers, body: form ? new URLSearchParams(form).toString() : undefined });
    const res = await (method === "GET" ? GET : POST)(request as never);
    for (const line of res.headers.getSetCookie()) {
      const [pair] = line.split(";");
      const eq = pair!.indexOf("=");
      const name = pair!.slice(0, eq);
      const value = pair!.slice(eq + 1);
      if (value === "" || /max-age=0/i.test(line) || /expires=Thu, 01 Jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
    return res;
  }

  async csrf(): Promise<string> {
    const res = await this.send("GET", "/api/auth/csrf");
    expect(res.status).toBe(200);
    return ((await res.json()) as { csrfToken: string }).csrfToken;
  }

  /** What the sign-in page's form does. */
  async requestLink(email: string, callbackUrl = "/projects"): Promise<Response> {
    return this.send("POST", "/api/auth/signin/nodemailer", { email, csrfToken: await this.csrf(), callbackUrl });
  }
}

const CHECK_EMAIL = "http://localhost:3000/api/auth/verify-request?provider=nodemailer&type=email";

function linkIn(text: string): URL {
  const match = /https?:\/\/[^\s"<>]+\/signin\/confirm\?[^\s"<>]+/.exec(text);
  if (!match) throw new Error("no confirmation link in the mail");
  return new URL(match[0]);
}

/** Renders the confirmation page for a link and returns its form's action (what the button POSTs to). */
async function confirmFormAction(link: URL): Promise<string> {
  const html = renderToStaticMarkup(await ConfirmSignInPage({ searchParams: Promise.resolve(Object.fromEntries(link.searchParams)) }));
  const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
  expect(html).toMatch(/method="post"/);
  expect(html).toContain("Sign in");
  if (!action) throw new Error("no form on the confirmation page");
  return action.replace(/&amp;/g, "&");
}

describe("email magic link sign-in (Auth.js + Nodemailer)", () => {
  it("mails a link to /signin/confirm valid 15 minutes; its button signs in once, with an HttpOnly SameSite=Lax cookie", async () => {
    const email = uniqueEmail("signin");
    const browser = new Client();
    const before = Date.now();
    const res = await browser.requestLink(email.toUpperCase());
    const after = Date.now();
    expect(res.status).toBe(302);
    expect(res.headers.get("location")).toBe(CHECK_EMAIL);
    // ...which sends the browser on to our page.
    const checkEmail = await browser.send("GET", CHECK_EMAIL);
    expect(checkEmail.headers.get("location")).toBe("/signin/check-email?provider=nodemailer&type=email");

    const mail = await smtp.mailTo(email);
    expect(mail.raw).toMatch(/Content-Type: text\/plain/i);
    expect(mail.raw).toMatch(/Content-Type: text\/html/i);
    expect(mail.raw).toContain("no-reply@localhost"); // default EMAIL_FROM
    const link = linkIn(mail.text);
    expect(link.origin + link.pathname).toBe("http://localhost:3000/signin/confirm");
    expect(link.searchParams.get("email")).toBe(email);
    expect(link.searchParams.get("callbackUrl")).toBe("http://localhost:3000/projects");
    expect(mail.text).not.toContain("/api/auth/callback"); // scanners must not reach Auth.js directly

    const tokens = await prisma.verificationToken.findMany({ where: { identifier: email } });
    expect(tokens).toHaveLength(1);
    expect(tokens[0]!.token).not.toBe(link.searchParams.get("token")); // stored hashed
    // Made while the request ran: 15 minutes from some instant in [before, after].
    const expires = tokens[0]!.expires.getTime();
    expect(expires).toBeGreaterThanOrEqual(before + SIGN_IN_LINK_LIFETIME_SECONDS * 1000);
    expect(expires).toBeLessThanOrEqual(after + SIGN_IN_LINK_LIFETIME_SECONDS * 1000);
    expect(SIGN_IN_LINK_LIFETIME_SECONDS).toBe(15 * 60);

    // Opening the link (GET, as a mail scanner does) consumes nothing.
    const action = await confirmFormAction(link);
    expect(action.startsWith("/api/auth/callback/nodemailer?")).toBe(true);
    expect(await prisma.verificationToken.count({ where: { identifier: email } })).toBe(1);

    // The button.
    const signedIn = await browser.send("POST", action, {});
    expect(signedIn.status).toBe(302);
    expect(signedIn.headers.get("location")).toBe("http://localhost:3000/projects");
    const setCookie = signedIn.headers.getSetCookie().find((c) => c.startsWith("authjs.session-token="))!;
    expect(setCookie).toMatch(/HttpOnly/i);
    expect(setCookie).toMatch(/SameSite=Lax/i);
    expect(setCookie).toMatch(/Path=\//i);
    expect(setCookie).not.toMatch(/Secure/i); // plain http

    const user = await requireSessionUser(new Request("http://localhost:3000/api/projects", { headers: { cookie: browser.header() } }));
    expect(user.email).toBe(email);
    expect(await prisma.verificationToken.count({ where: { identifier: email } })).toBe(0);

    // A second use of the same link is refused.
    const reuse = new Client();
    const again = await reuse.send("POST", action, {});
    expect(again.status).toBe(302);
    expect(again.headers.get("location")).toBe("http://localhost:3000/signin?error=Verification");
    expect(reuse.cookies.has("authjs.session-token")).toBe(false);
  });

  it("refuses a link after its 15 minutes", async () => {
    const email = uniqueEmail("late");
    const browser = new Client();
    await browser.requestLink(email);
    const action = await confirmFormAction(linkIn((await smtp.mailTo(email)).text));
    await prisma.verificationToken.updateMany({ where: { identifier: email }, data: { expires: new Date(Date.now() - 1000) } });
    const res = await browser.send("POST", action, {});
    expect(res.headers.get("location")).toBe("http://localhost:3000/signin?error=Verification");
    expect(browser.cookies.has("authjs.session-token")).toBe(false);
  });

  it("over https the session cookie is __Secure- prefixed and Secure", async () => {
    const email = uniqueEmail("https");
    const browser = new Client("https://localhost:3000");
    const res = await browser.requestLink(email);
    expect(res.status).toBe(302);
    const action = await confirmFormAction(linkIn((await smtp.mailTo(email)).text));
    const signedIn = await browser.send("POST", `https://localhost:3000${action}`, {});
    const setCookie = signedIn.headers.getSetCookie().find((c) => c.startsWith("__Secure-authjs.session-token="))!;
    expect(setCookie).toMatch(/; Secure/i);
    expect(setCookie).toMatch(/HttpOnly/i);
    expect(setCookie).toMatch(/SameSite=Lax/i);
    const user = await requireSessionUser(new Request("https://localhost:3000/api/projects", { headers: { cookie: browser.header() } }));
    expect(user.email).toBe(email);
  });

  it("signs out: the session row is deleted and the cookie cleared", async () => {
    const email = uniqueEmail("signout");
    const browser = new Client();
    await browser.requestLink(email);
    await browser.send("POST", await confirmFormAction(linkIn((await smtp.mailTo(email)).text)), {});
    const token = browser.cookies.get("authjs.session-token")!;
    expect(await prisma.session.count({ where: { sessionToken: token } })).toBe(1);

    const res = await browser.send("POST", "/api/auth/signout", { csrfToken: await browser.csrf(), callbackUrl: "/signin" });
    expect(res.status).toBe(302);
    expect(await prisma.session.count({ where: { sessionToken: token } })).toBe(0);
    expect(browser.cookies.has("authjs.session-token")).toBe(false);
    await expect(
      requireSessionUser(new Request("http://localhost:3000/api/projects", { headers: { cookie: `authjs.session-token=${token}` } })),
    ).rejects.toMatchObject({ code: "unauthenticated" });
  });

  it("keeps callbackUrl on this site: a tab, // or another origin becomes /projects", async () => {
    for (const callbackUrl of ["/\t/evil.com", "//evil.com", "https://evil.example/projects"]) {
      const email = uniqueEmail("callback");
      const res = await new Client().requestLink(email, callbackUrl);
      expect(res.headers.get("location")).toBe(CHECK_EMAIL);
      expect(linkIn((await smtp.mailTo(email)).text).searchParams.get("callbackUrl"), JSON.stringify(callbackUrl)).toBe("http://localhost:3000/projects");
    }
    const email = uniqueEmail("callback");
    await new Client().requestLink(email, "/projects/abc?level=error");
    expect(linkIn((await smtp.mailTo(email)).text).searchParams.get("callbackUrl")).toBe("http://localhost:3000/projects/abc?level=error");
  });

  it("a callbackUrl that is no http(s) URL (javascript:, data:) answers 400 problem details, not 500, on every Auth.js route", async () => {
    const email = uniqueEmail("jscallback");
    await new Client().requestLink(email);
    const action = new URL(await confirmFormAction(linkIn((await smtp.mailTo(email)).text)), "http://localhost:3000");
    for (const bad of ["javascript:alert(1)", "data:text/html,x", "javascript://%0aalert(1)"]) {
      action.searchParams.set("callbackUrl", bad);
      const browser = new Client();
      browser.extraHeaders = { "sec-fetch-site": "same-origin" };
      const res = await browser.send("POST", action.pathname + action.search, {});
      expect(res.status, bad).toBe(400);
      expect(res.headers.get("content-type")).toMatch(/application\/problem\+json/);
      expect(browser.cookies.has("authjs.session-token")).toBe(false);
      expect((await new Client().send("GET", `/api/auth/signin?${new URLSearchParams({ callbackUrl: bad })}`)).status, bad).toBe(400);
      // The same value in Auth.js's callback-url cookie.
      const cookieClient = new Client();
      cookieClient.cookies.set("authjs.callback-url", encodeURIComponent(bad));
      expect((await cookieClient.send("GET", "/api/auth/csrf")).status, bad).toBe(400);
    }
    // The token was not spent: the link still signs in.
    expect(await prisma.verificationToken.count({ where: { identifier: email } })).toBe(1);
  });

  it("refuses a sign-in request without the CSRF token", async () => {
    const email = uniqueEmail("nocsrf");
    const browser = new Client();
    await browser.csrf();
    const res = await browser.send("POST", "/api/auth/signin/nodemailer", { email, csrfToken: "forged" });
    expect(res.headers.get("location")).toMatch(/error=MissingCSRF/);
    // A mail would have been accepted by the sink before the answer came back.
    expect(smtp.mails.some((m) => m.to.includes(email))).toBe(false);
  });
});

describe("sign-in rate limit", () => {
  it("per address: the 6th request in the window is refused, with the same answers for a known and an unknown address", async () => {
    const known = uniqueEmail("known");
    await prisma.user.create({ data: { email: known } });
    const unknown = uniqueEmail("unknown");

    const answersFor = async (email: string) => {
      const answers: string[] = [];
      for (let i = 0; i < 6; i++) {
        // A new client (IP) each time: only the per-address budget applies.
        const res = await new Client().requestLink(email);
        answers.push(`${res.status} ${res.headers.get("location")?.replace(/retryAfter=\d+/, "retryAfter=N")}`);
      }
      return answers;
    };
    const knownAnswers = await answersFor(known);
    const unknownAnswers = await answersFor(unknown);
    expect(knownAnswers).toEqual(unknownAnswers);
    expect(knownAnswers.slice(0, 5)).toEqual(Array(5).fill(`302 ${CHECK_EMAIL}`));
    expect(knownAnswers[5]).toBe("302 http://localhost:3000/signin?error=RateLimited&retryAfter=N");

    // Mail goes out after the answer: wait for the five, then make sure no sixth follows.
    await vi.waitFor(() => expect(smtp.mails.filter((m) => m.to.includes(known))).toHaveLength(5));
    await vi.waitFor(() => expect(smtp.mails.filter((m) => m.to.includes(unknown))).toHaveLength(5));
    // The refused request made no token.
    expect(await prisma.verificationToken.count({ where: { identifier: unknown } })).toBe(5);
    // The address counts case-insensitively.
    const shouted = await new Client().requestLink(unknown.toUpperCase());
    expect(shouted.headers.get("location")).toMatch(/error=RateLimited/);
  });

  it("per client IP: spraying addresses from one IP is refused after the IP budget", async () => {
    stubEnv("SIGNIN_RATE_LIMIT_PER_IP", "3");
    const client = new Client();
    const statuses: string[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await client.requestLink(uniqueEmail("spray"));
      statuses.push(new URL(res.headers.get("location")!).pathname + (res.headers.get("location")!.includes("RateLimited") ? "!" : ""));
    }
    expect(statuses).toEqual(["/api/auth/verify-request", "/api/auth/verify-request", "/api/auth/verify-request", "/signin!"]);
    // Another IP is unaffected.
    const other = await new Client().requestLink(uniqueEmail("spray"));
    expect(other.headers.get("location")).toBe(CHECK_EMAIL);
  });

  it("answers {url} JSON to next-auth/react's signIn() when limited", async () => {
    stubEnv("SIGNIN_RATE_LIMIT_PER_EMAIL", "1");
    const email = uniqueEmail("json");
    await new Client().requestLink(email);
    const client = new Client();
    const csrfToken = await client.csrf();
    const request = new Request("http://localhost:3000/api/auth/signin/nodemailer", {
      method: "POST",
      headers: { cookie: client.header(), "content-type": "application/x-www-form-urlencoded", "x-auth-return-redirect": "1", [CLIENT_ADDRESS_HEADER]: client.ip },
      body: new URLSearchParams({ email, csrfToken }).toString(),
    });
    const res = await POST(request as never);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { url: string }).url).toMatch(/\/signin\?error=RateLimited&retryAfter=\d+$/);
  });
});

describe("sign-in limits see through address tricks", () => {
  it("plus-tagged variants of one address share its budget", async () => {
    stubEnv("SIGNIN_RATE_LIMIT_PER_EMAIL", "2");
    const base = uniqueEmail("plus");
    const [local, domain] = base.split("@");
    const answers: string[] = [];
    for (const tag of ["", "+a", "+b"]) answers.push((await new Client().requestLink(`${local}${tag}@${domain}`)).headers.get("location")!);
    expect(answers.slice(0, 2)).toEqual([CHECK_EMAIL, CHECK_EMAIL]);
    expect(answers[2]).toMatch(/error=RateLimited/);
  });

  it("X-Forwarded-For is ignored unless TRUST_PROXY_HOPS says a proxy wrote it", async () => {
    stubEnv("SIGNIN_RATE_LIMIT_PER_IP", "2");
    // One socket claiming a new forwarded address each time: still one client.
    const spoofer = new Client();
    const spoofed: string[] = [];
    for (let i = 0; i < 3; i++) {
      spoofer.extraHeaders = { "x-forwarded-for": `198.51.100.${i}` };
      spoofed.push((await spoofer.requestLink(uniqueEmail("xff"))).headers.get("location")!);
    }
    expect(spoofed[2]).toMatch(/error=RateLimited/);

    // Behind one trusted proxy (one socket address for everyone), its last entry is the client.
    stubEnv("TRUST_PROXY_HOPS", "1");
    const proxy = `10.200.0.${ipSeq % 250}`;
    const viaProxy = async (client: string) => {
      const c = new Client(undefined, proxy);
      c.extraHeaders = { "x-forwarded-for": `203.0.113.66, ${client}` };
      return (await c.requestLink(uniqueEmail("hop"))).headers.get("location")!;
    };
    const clientA = `192.0.2.${ipSeq % 250}`;
    const fromA = [await viaProxy(clientA), await viaProxy(clientA), await viaProxy(clientA)];
    expect(fromA.slice(0, 2)).toEqual([CHECK_EMAIL, CHECK_EMAIL]);
    expect(fromA[2]).toMatch(/error=RateLimited/);
    // Another client behind the same proxy is unaffected; the spoofable first entry is not the key.
    expect(await viaProxy(`192.0.2.${(ipSeq % 250) + 1}`)).toBe(CHECK_EMAIL);
  });
});

describe("who may sign up (SIGNUP)", () => {
  /** What a browser sees and what happened behind it. */
  async function attempt(email: string) {
    const res = await new Client().requestLink(email);
    return { answer: `${res.status} ${res.headers.get("location")}`, tokens: await prisma.verificationToken.count({ where: { identifier: email } }) };
  }

  it("invite: existing users and invited addresses get a link; anyone else the same answer and no mail", async () => {
    stubEnv("SIGNUP", "invite");
    const existing = uniqueEmail("member");
    await prisma.user.create({ data: { email: existing } });
    const invited = uniqueEmail("invited");
    const owner = await prisma.user.create({ data: { email: uniqueEmail("inviter") } });
    const project = await prisma.project.create({ data: { name: "signup-policy" } });
    await prisma.invitation.create({
      data: { projectId: project.id, email: invited, role: "member", tokenHash: randomUUID(), invitedById: owner.id, expiresAt: new Date(Date.now() + 86_400_000) },
    });
    const stranger = uniqueEmail("stranger");

    const results = { existing: await attempt(existing), invited: await attempt(invited), stranger: await attempt(stranger) };
    expect(new Set(Object.values(results).map((r) => r.answer))).toEqual(new Set([`302 ${CHECK_EMAIL}`]));
    expect(results.existing.tokens).toBe(1);
    expect(results.invited.tokens).toBe(1);
    expect(results.stranger.tokens).toBe(0);
    await smtp.mailTo(existing);
    await smtp.mailTo(invited);
    expect(smtp.mails.some((m) => m.to.includes(stranger))).toBe(false);
    expect(await prisma.user.count({ where: { email: stranger } })).toBe(0);
  });

  it("domains: addresses of SIGNUP_DOMAINS get a link, other domains the same answer and nothing", async () => {
    stubEnv("SIGNUP", "domains");
    stubEnv("SIGNUP_DOMAINS", "acme.test, Example.Org");
    const colleague = `dev-${randomUUID()}@acme.test`;
    const other = `dev-${randomUUID()}@elsewhere.test`;
    const a = await attempt(colleague);
    const b = await attempt(other);
    expect(a.answer).toBe(b.answer);
    expect([a.tokens, b.tokens]).toEqual([1, 0]);
    expect((await attempt(`ops-${randomUUID()}@example.org`)).tokens).toBe(1);
  });

  it("domains: a local part with routing characters (%, !, a quoted @) is refused, whatever its domain", async () => {
    stubEnv("SIGNUP", "domains");
    stubEnv("SIGNUP_DOMAINS", "acme.test");
    // Relayed by some mail servers to the part after % or ! (another domain).
    for (const local of ["victim%evil.test", "evil.test!victim", "a/b", '"x@evil.test"', "a..b", ".a", "a."]) {
      const address = `${local}@acme.test`;
      expect(await mayReceiveSignInLink(address), address).toBe(false);
    }
    const routed = `victim%${randomUUID()}.test@acme.test`;
    expect((await attempt(routed)).tokens).toBe(0);
    for (const fine of [`o'brien-${randomUUID()}@acme.test`, `first.last+tag-${randomUUID()}@acme.test`]) expect(await mayReceiveSignInLink(fine), fine).toBe(true);
  });

  it("open: anyone gets a link", async () => {
    stubEnv("SIGNUP", "open");
    expect((await attempt(uniqueEmail("open"))).tokens).toBe(1);
  });

  it("an instance with no user yet lets its first address in, whatever the policy", async () => {
    stubEnv("SIGNUP", "invite");
    const newcomer = uniqueEmail("first");
    expect(await mayReceiveSignInLink(newcomer)).toBe(false);
    // The same question on an empty instance: in a transaction that is rolled back, a schema of empty tables
    // comes first on the search path (a changed search path also makes PostgreSQL re-plan cached statements).
    const onEmptyInstance = async (otherLiveLink: boolean): Promise<boolean> => {
      let answer: boolean | undefined;
      const schema = `bootstrap_${randomUUID().replace(/-/g, "")}`;
      await sqlDb()
        .transaction()
        .execute(async (trx) => {
          const run = (statement: string) => sql.raw(statement).execute(trx);
          await run(`CREATE SCHEMA ${schema}`);
          await run(`CREATE TABLE ${schema}.users (email text)`);
          await run(`CREATE TABLE ${schema}.invitations (email text, accepted_at timestamptz, revoked_at timestamptz, expires_at timestamptz)`);
          await run(`CREATE TABLE ${schema}.verification_tokens (identifier text, token text, expires timestamptz)`);
          await run(`SET LOCAL search_path TO ${schema}, public`);
          await run(`INSERT INTO verification_tokens VALUES ('${newcomer}', 'mine', now() + interval '10 minutes'), ('earlier@example.test', 'old', now() - interval '1 minute')`);
          if (otherLiveLink) await run("INSERT INTO verification_tokens VALUES ('operator@example.test', 'theirs', now() + interval '10 minutes')");
          answer = await mayReceiveSignInLink(newcomer, trx);
          throw new Error("roll back");
        })
        .catch((error: Error) => {
          if (error.message !== "roll back") throw error;
        });
      return answer!;
    };
    expect(await onEmptyInstance(false)).toBe(true);
    // While another address holds a live link, a second one may not race it to become the first user.
    expect(await onEmptyInstance(true)).toBe(false);
  });
});

describe("login CSRF", () => {
  it("opening the raw Auth.js callback URL (GET) signs nobody in: it leads to the confirmation page and keeps the token", async () => {
    const email = uniqueEmail("rawget");
    await new Client().requestLink(email);
    const link = linkIn((await smtp.mailTo(email)).text);
    const action = await confirmFormAction(link);
    const victim = new Client();
    const res = await victim.send("GET", action);
    expect(res.status).toBe(303);
    const location = new URL(res.headers.get("location")!);
    expect(location.pathname).toBe("/signin/confirm");
    expect(location.searchParams.get("token")).toBe(link.searchParams.get("token"));
    expect(res.headers.getSetCookie().some((c) => c.includes("session-token"))).toBe(false);
    expect(victim.cookies.has("authjs.session-token")).toBe(false);
    expect(await prisma.verificationToken.count({ where: { identifier: email } })).toBe(1);
  });

  it("a cross-site POST of the callback (another site's auto-submitting form) is refused with 403 and keeps the token", async () => {
    const email = uniqueEmail("xsite");
    await new Client().requestLink(email);
    const action = await confirmFormAction(linkIn((await smtp.mailTo(email)).text));
    const attempts: Record<string, string>[] = [{ "sec-fetch-site": "cross-site" }, { "sec-fetch-site": "same-site" }, { origin: "https://evil.example" }];
    for (const headers of attempts) {
      const victim = new Client();
      victim.extraHeaders = headers;
      const res = await victim.send("POST", action, {});
      expect(res.status).toBe(403);
      expect(res.headers.get("content-type")).toMatch(/application\/problem\+json/);
      expect(victim.cookies.has("authjs.session-token")).toBe(false);
    }
    expect(await prisma.verificationToken.count({ where: { identifier: email } })).toBe(1);
    // The page's own form (same-origin) still signs in.
    const browser = new Client();
    browser.extraHeaders = { "sec-fetch-site": "same-origin", origin: "null" };
    expect((await browser.send("POST", action, {})).status).toBe(302);
    expect(browser.cookies.has("authjs.session-token")).toBe(true);
  });
});

describe("a failing SMTP server", () => {
  it("answers the browser as usual, logs one clear line without the link, and leaves no unhandled rejection", async () => {
    const dead = await startSmtpSink();
    const deadUrl = dead.url;
    await dead.close(); // nothing listens there any more
    stubEnv("EMAIL_SERVER", deadUrl);
    stubEnv("TELLTALE_LOG", "");
    const lines: string[] = [];
    const spies = (["log", "info", "warn", "error"] as const).map((m) =>
      vi.spyOn(console, m).mockImplementation((...args: unknown[]) => void lines.push(args.map(String).join(" "))),
    );
    const rejections: unknown[] = [];
    const onRejection = (reason: unknown) => void rejections.push(reason);
    process.on("unhandledRejection", onRejection);
    try {
      const email = uniqueEmail("smtpdown");
      const res = await new Client().requestLink(email);
      expect(res.headers.get("location")).toBe(CHECK_EMAIL);
      await vi.waitFor(() => expect(lines.join("\n")).toMatch(/sign-in email not sent/i), { timeout: 20_000 });
      const log = lines.join("\n");
      expect(log).toContain("EMAIL_SERVER");
      expect(log).not.toContain("/signin/confirm");
      expect(log).not.toContain("token=");
      expect(rejections).toEqual([]);
    } finally {
      process.off("unhandledRejection", onRejection);
      spies.forEach((s) => s.mockRestore());
      stubEnv("EMAIL_SERVER", smtp.url);
      stubEnv("TELLTALE_LOG", "silent");
    }
  });
});

describe("without EMAIL_SERVER", () => {
  it("in development prints the link in one marked log line and sends nothing", async () => {
    stubEnv("EMAIL_SERVER", "");
    const lines: string[] = [];
    const spy = vi.spyOn(console, "info").mockImplementation((...args: unknown[]) => void lines.push(args.join(" ")));
    try {
      const email = uniqueEmail("devlog");
      const res = await new Client().requestLink(email);
      expect(res.headers.get("location")).toBe(CHECK_EMAIL);
      const marked = lines.filter((l) => l.includes("DEV SIGN-IN LINK"));
      expect(marked).toHaveLength(1);
      expect(marked[0]).toContain(email);
      expect(linkIn(marked[0]!).pathname).toBe("/signin/confirm");
      expect(smtp.mails.some((m) => m.to.includes(email))).toBe(false);
    } finally {
      spy.mockRestore();
      stubEnv("EMAIL_SERVER", smtp.url);
      stubEnv("TELLTALE_LOG", "silent");
    }
  });

  it("in production refuses to sign in and logs no link", async () => {
    stubEnv("EMAIL_SERVER", "");
    stubEnv("NODE_ENV", "production");
    // The logger is silenced for the test run; a leak must be visible here.
    stubEnv("TELLTALE_LOG", "");
    const lines: string[] = [];
    const spies = (["log", "info", "warn", "error"] as const).map((m) =>
      vi.spyOn(console, m).mockImplementation((...args: unknown[]) => void lines.push(args.map(String).join(" "))),
    );
    try {
      const email = uniqueEmail("prod");
      const res = await new Client().requestLink(email);
      expect(res.headers.get("location")).toBe("http://localhost:3000/signin?error=Configuration");
      expect(await prisma.verificationToken.count({ where: { identifier: email } })).toBe(0);
      expect(lines.join("\n")).not.toContain("/signin/confirm");
    } finally {
      spies.forEach((s) => s.mockRestore());
      stubEnv("NODE_ENV", "test");
      stubEnv("EMAIL_SERVER", smtp.url);
      stubEnv("TELLTALE_LOG", "silent");
    }
  });
});
