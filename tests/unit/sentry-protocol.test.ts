import { describe, expect, it } from "vitest";
import { AppError } from "@/lib/http/errors";
import { credentialsFromDsn, parseSentryAuthHeader, resolveSentryCredentials, sentryRequestCredentials } from "@/lib/sentry/auth";
import { newSentryEventId, normalizeEventId } from "@/lib/sentry/event-id";
import { sentryAnswer, sentryRateLimitHeaders } from "@/lib/sentry/rate-limits";

const KEY = "0123456789abcdefABCDEF0123456789";
const OTHER = "ZYXWVUTSRQPONMLKJIHGFEDCBA987654";
const DSN = `https://${KEY}@telltale.example.com/42`;

function request(query = "", headers: Record<string, string> = {}): Request {
  return new Request(`http://localhost/api/42/envelope/${query}`, { method: "POST", headers });
}

function refused(run: () => unknown): AppError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).status).toBe(401);
    return error as AppError;
  }
  throw new Error("accepted");
}

describe("Sentry credentials", () => {
  it("reads the key from the query, as @sentry/node and @sentry/browser send it", () => {
    const creds = sentryRequestCredentials(request(`?sentry_version=7&sentry_key=${KEY}&sentry_client=sentry.javascript.node%2F11.12.0`));
    expect(creds).toEqual({ publicKey: KEY, source: "query", client: "sentry.javascript.node/11.12.0", projectNumber: null });
  });

  it("reads X-Sentry-Auth (with or without the Sentry prefix, any spacing and order) and Authorization: Sentry", () => {
    for (const value of [
      `Sentry sentry_version=7, sentry_client=sentry-ruby/5.3.0, sentry_timestamp=1795774301, sentry_key=${KEY}`,
      `sentry sentry_key=${KEY},sentry_version=7`,
      `sentry_key=${KEY}, sentry_secret=ignored`,
      `Sentry sentry_key="${KEY}"`,
    ]) {
      expect(sentryRequestCredentials(request("", { "x-sentry-auth": value }))?.publicKey, value).toBe(KEY);
    }
    const creds = sentryRequestCredentials(request("", { authorization: `Sentry sentry_key=${KEY}, sentry_client=raven-go/1.0` }));
    expect(creds).toMatchObject({ publicKey: KEY, source: "authorization", client: "raven-go/1.0" });
    expect(parseSentryAuthHeader("Sentry a=1, b = 2 ,c, a=3")).toEqual(new Map([["a", "1"], ["b", "2"]]));
  });

  it("a Bearer Authorization is not a Sentry credential; none at all is null, and a 401 once the envelope has no dsn either", () => {
    expect(sentryRequestCredentials(request("", { authorization: "Bearer tlt_abc" }))).toBeNull();
    expect(sentryRequestCredentials(request("?foo=1"))).toBeNull();
    const error = refused(() => resolveSentryCredentials(request()));
    expect(error.code).toBe("missing_api_key");
    expect(error.headers?.["WWW-Authenticate"]).toMatch(/^Sentry/);
  });

  it("a credential that is present but unreadable is a 401 missing_api_key", () => {
    const cases: Array<Record<string, string>> = [
      { "x-sentry-auth": "Sentry sentry_version=7" },
      { "x-sentry-auth": "Sentry sentry_key=" },
      { "x-sentry-auth": `Sentry sentry_key=${"k".repeat(500)}` },
      { "x-sentry-auth": "Sentry sentry_key=has space" },
      { authorization: "Sentry sentry_version=7" },
    ];
    for (const headers of cases) {
      expect(refused(() => sentryRequestCredentials(request("", headers))).code, JSON.stringify(headers)).toBe("missing_api_key");
    }
    expect(refused(() => sentryRequestCredentials(request("?sentry_key=&sentry_version=7"))).code).toBe("missing_api_key");
    expect(refused(() => sentryRequestCredentials(request("?sentry_key=%00%01"))).code).toBe("missing_api_key");
  });

  it("two credentials in the request must name the same key (then either is fine)", () => {
    expect(sentryRequestCredentials(request(`?sentry_key=${KEY}`, { "x-sentry-auth": `Sentry sentry_key=${KEY}` }))?.source).toBe("x-sentry-auth");
    for (const [query, headers] of [
      [`?sentry_key=${OTHER}`, { "x-sentry-auth": `Sentry sentry_key=${KEY}` }],
      ["", { "x-sentry-auth": `Sentry sentry_key=${KEY}`, authorization: `Sentry sentry_key=${OTHER}` }],
      [`?sentry_key=${KEY}&sentry_key=${OTHER}`, {}],
    ] as const) {
      expect(refused(() => sentryRequestCredentials(request(query, headers))).code).toBe("invalid_api_key");
    }
  });

  it("the envelope's dsn authenticates a request without credentials (tunnels), with its project number", () => {
    expect(resolveSentryCredentials(request(), DSN)).toEqual({ publicKey: KEY, source: "dsn", client: null, projectNumber: 42 });
    expect(credentialsFromDsn(`http://${KEY}:secret@127.0.0.1:9000/sentry/7/`)).toMatchObject({ publicKey: KEY, projectNumber: 7 });
  });

  it("the request's credentials win over the dsn, which must then name the same key", () => {
    const both = resolveSentryCredentials(request("", { "x-sentry-auth": `Sentry sentry_key=${KEY}` }), DSN);
    expect(both).toMatchObject({ publicKey: KEY, source: "x-sentry-auth", projectNumber: 42 });
    const mismatch = refused(() => resolveSentryCredentials(request(`?sentry_key=${OTHER}`), DSN));
    expect([mismatch.code, mismatch.message]).toEqual(["invalid_api_key", "The envelope's dsn names another key than the request's credentials."]);
  });

  it("a dsn that is not one is a 401", () => {
    for (const dsn of ["not a url", "https://telltale.example.com/42", `https://${KEY}@telltale.example.com/`, `https://${KEY}@telltale.example.com/abc`, "https://%E0%A4%A@x/1"]) {
      expect(refused(() => resolveSentryCredentials(request(), dsn)).code, dsn).toBe("missing_api_key");
    }
  });
});

describe("event ids", () => {
  it("32 hex digits, or a UUID with dashes, normalized to lowercase without dashes", () => {
    expect(normalizeEventId("9EC79C33EC9942AB8353589FCB2E04DC")).toBe("9ec79c33ec9942ab8353589fcb2e04dc");
    expect(normalizeEventId("9ec79c33-ec99-42ab-8353-589fcb2e04dc")).toBe("9ec79c33ec9942ab8353589fcb2e04dc");
    expect(normalizeEventId(" 9ec79c33ec9942ab8353589fcb2e04dc ")).toBe("9ec79c33ec9942ab8353589fcb2e04dc");
    for (const bad of ["", "xyz", "9ec79c33ec9942ab8353589fcb2e04d", "9ec79c33ec9942ab8353589fcb2e04dcc", "9ec79c33-ec9942ab-8353-589fcb2e04dc", "g".repeat(32), 42, null, {}]) {
      expect(normalizeEventId(bad), String(bad)).toBeNull();
    }
    expect(normalizeEventId(newSentryEventId())).toMatch(/^[0-9a-f]{32}$/);
  });
});

describe("429 headers", () => {
  it("X-Sentry-Rate-Limits as <seconds>:<categories>:<scope>[:<reason>], Retry-After the longest", () => {
    expect(sentryRateLimitHeaders({ retryAfterSeconds: 2.2 })).toEqual({ "Retry-After": "3", "X-Sentry-Rate-Limits": "3::key" });
    expect(
      sentryRateLimitHeaders(
        { retryAfterSeconds: 60, categories: ["error", "log_item"], scope: "project", reasonCode: "project_quota" },
        { retryAfterSeconds: 5, categories: ["transaction"], scope: "key" },
      ),
    ).toEqual({ "Retry-After": "60", "X-Sentry-Rate-Limits": "60:error;log_item:project:project_quota, 5:transaction:key" });
    // Never 0 seconds (that would be no limit); nothing unsafe in the header.
    expect(sentryRateLimitHeaders({ retryAfterSeconds: 0, categories: ["bad;cat", "error"], reasonCode: "a:b" })).toEqual({ "Retry-After": "1", "X-Sentry-Rate-Limits": "1:error:key" });
  });

  it("the answer body is {id}", () => {
    expect(sentryAnswer("9ec79c33ec9942ab8353589fcb2e04dc")).toEqual({ id: "9ec79c33ec9942ab8353589fcb2e04dc" });
    expect(sentryAnswer(null)).toEqual({ id: null });
  });
});
