/**
 * The sign-in pages as a visitor who is not signed in sees them: an
 * invitation's link fills in the invited address, and the check-email page
 * says where the link went (the terminal, in development without a mail server).
 */
import { renderToStaticMarkup } from "react-dom/server";
import { afterEach, describe, expect, it, vi } from "vitest";
import { signInPath } from "@/lib/auth/safe-callback";
import { stubEnv, unstubEnvs } from "@/tests/helpers/env";

vi.mock("@/lib/edge/caller", () => ({ currentUser: async () => null }));
vi.mock("@/lib/sign-in/config", () => ({ signIn: vi.fn() }));

const { default: SignInPage } = await import("@/app/signin/page");
const { default: CheckEmailPage } = await import("@/app/signin/check-email/page");

async function signInHtml(search: Record<string, string>): Promise<string> {
  return renderToStaticMarkup(await SignInPage({ searchParams: Promise.resolve(search) }));
}

afterEach(() => unstubEnvs());

describe("sign-in form from an invitation", () => {
  it("is filled with the invited address the invitation page links with", async () => {
    const path = signInPath("/invitations/tok", "Invited.Person+ops@example.test");
    expect(path).toBe("/signin?callbackUrl=%2Finvitations%2Ftok&email=Invited.Person%2Bops%40example.test");
    const search = Object.fromEntries(new URL(path, "http://x").searchParams);
    const html = await signInHtml(search);
    expect(html).toMatch(/<input[^>]*id="email"[^>]*value="Invited.Person\+ops@example.test"/);
    expect(html).toContain('value="/invitations/tok"'); // and comes back to the invitation
  });

  it("leaves the field empty without an address, or with something that is not one", async () => {
    expect(await signInHtml({})).toMatch(/<input[^>]*id="email"[^>]*value=""/);
    const html = await signInHtml({ email: '"><script>alert(1)</script>' });
    expect(html).toMatch(/<input[^>]*id="email"[^>]*value=""/);
    expect(html).not.toContain("<script>alert");
  });
});

describe("check-email page", () => {
  it("in development without EMAIL_SERVER, says the link is in the terminal running npm run dev", () => {
    stubEnv("EMAIL_SERVER", "");
    stubEnv("NODE_ENV", "development");
    const html = renderToStaticMarkup(CheckEmailPage());
    expect(html).toContain("Find the link in the server log");
    expect(html).toContain("[telltale] DEV SIGN-IN LINK");
    expect(html).not.toContain("spam folder");
  });

  it("with a mail server, points at the inbox", () => {
    stubEnv("EMAIL_SERVER", "smtp://localhost:2525");
    stubEnv("NODE_ENV", "development");
    const html = renderToStaticMarkup(CheckEmailPage());
    expect(html).toContain("Check your email");
    expect(html).not.toContain("server log");
  });
});
