import { beforeEach, describe, expect, it, vi } from "vitest";

// The sign-in page as a signed-in visitor sees it: it redirects at once to
// its callbackUrl, so that value must be a path on this site.
const redirects: string[] = [];
vi.mock("next/navigation", () => ({
  redirect: (url: string) => {
    redirects.push(url);
    throw new Error("NEXT_REDIRECT");
  },
}));
vi.mock("@/lib/edge/caller", () => ({
  currentUser: async () => ({ id: "u1", email: "a@example.test", name: null }),
}));

const { default: SignInPage } = await import("@/app/signin/page");

async function redirectFor(callbackUrl: string): Promise<string> {
  redirects.length = 0;
  await expect(SignInPage({ searchParams: Promise.resolve({ callbackUrl }) })).rejects.toThrow("NEXT_REDIRECT");
  return redirects[0]!;
}

describe("sign-in page while signed in", () => {
  beforeEach(() => {
    redirects.length = 0;
  });

  it("goes to a callbackUrl on this site", async () => {
    expect(await redirectFor("/projects/abc?level=error")).toBe("/projects/abc?level=error");
  });

  it("never to another site: control characters, backslashes and // fall back to /projects", async () => {
    // GET /signin?callbackUrl=%2F%09%2Fevil.com answered Location: /<TAB>/evil.com
    for (const value of ["/\t/evil.com", "/\n/evil.com", "//evil.com", "/\\evil.com", "https://evil.com"]) {
      expect(await redirectFor(value), JSON.stringify(value)).toBe("/projects");
    }
  });
});
