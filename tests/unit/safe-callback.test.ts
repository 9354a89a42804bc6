import { describe, expect, it } from "vitest";
import { safeCallbackPath, safeRedirectUrl, signInPath } from "@/lib/auth/safe-callback";

describe("safeCallbackPath", () => {
  it("keeps paths on this site, query and fragment included", () => {
    expect(safeCallbackPath("/projects")).toBe("/projects");
    expect(safeCallbackPath("/projects/abc?level=error&q=a%20b#top")).toBe("/projects/abc?level=error&q=a%20b#top");
    expect(safeCallbackPath("/invitations/abc_DEF-123")).toBe("/invitations/abc_DEF-123");
    expect(safeCallbackPath("/")).toBe("/");
  });

  it("refuses anything a browser could read as another site, or a bad header value", () => {
    const refused = [
      "/\t/evil.com", // browsers drop the tab: //evil.com
      "/\n/evil.com",
      "/\r\n/evil.com",
      "/projects\u0000",
      "/projects\u007f",
      "/\u0085/evil.com",
      "//evil.com",
      "/\\evil.com",
      "\\\\evil.com",
      "/a\\b",
      "/a/..//evil.com",
      "/./\u0009/evil.com",
      "https://evil.com/",
      "http:/evil.com",
      "javascript:alert(1)",
      "evil.com",
      " /projects",
      "",
      "/" + "a".repeat(3000),
    ];
    for (const value of refused) expect(safeCallbackPath(value), JSON.stringify(value)).toBe("/projects");
    expect(safeCallbackPath(undefined)).toBe("/projects");
    expect(safeCallbackPath(["/a"])).toBe("/projects");
    expect(safeCallbackPath("//evil.com", "/overview")).toBe("/overview");
  });

  it("answers with a normalized path that cannot climb to another host", () => {
    expect(safeCallbackPath("/a/../projects")).toBe("/projects");
    expect(safeCallbackPath("/%2F%2Fevil.com")).toBe("/%2F%2Fevil.com"); // an encoded slash stays a path character
  });
});

describe("safeRedirectUrl (Auth.js redirect callback)", () => {
  const base = "http://localhost:3000";

  it("keeps paths and absolute URLs on this origin", () => {
    expect(safeRedirectUrl("/projects/x?y=1", base)).toBe("http://localhost:3000/projects/x?y=1");
    expect(safeRedirectUrl("http://localhost:3000/projects", base)).toBe("http://localhost:3000/projects");
    expect(safeRedirectUrl("/signin?callbackUrl=%2Finvitations%2Fabc", base)).toBe("http://localhost:3000/signin?callbackUrl=%2Finvitations%2Fabc");
  });

  it("sends everything else to the projects page of this origin", () => {
    for (const url of ["/\t/evil.com", "//evil.com", "https://evil.com/projects", "http://localhost:3000//evil.com", "http://localhost:3000/\t/evil.com", "http://localhost:3001/", "not a url", "javascript:alert(1)"]) {
      expect(safeRedirectUrl(url, base), url).toBe("http://localhost:3000/projects");
    }
  });
});

describe("signInPath", () => {
  it("carries a safe return path only", () => {
    expect(signInPath()).toBe("/signin");
    expect(signInPath("/projects/a?b=c")).toBe("/signin?callbackUrl=%2Fprojects%2Fa%3Fb%3Dc");
    expect(signInPath("//evil.com")).toBe("/signin?callbackUrl=%2Fprojects");
    expect(signInPath(undefined, "a@example.test")).toBe("/signin?email=a%40example.test");
  });
});
