/**
 * A configured model through a local OpenAI-compatible server
 * (tests/helpers/fake-openai.ts) answering well, wrongly, hugely and
 * slowly: answers checked against the facts before they are served
 * (X-Summary-Fallback: ai_inconsistent), at most 256 KiB of an answer read,
 * secrets and personal data scrubbed from the prompt, and the dashboard's
 * stream that shows the digest before the model answers.
 */
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { GET as summarizeStream } from "@/app/api/ai/summarize/stream/route";
import { stubEnv, unstubEnvs } from "@/tests/helpers/env";
import { prisma } from "@/lib/db/client";
import { messageText, promptIssueLines, startFakeOpenAI, truthfulAnswerTo, type FakeOpenAI } from "@/tests/helpers/fake-openai";
import { HOUR, MINUTE, spread, store, summarize, userWithProjects } from "@/tests/helpers/summary-incidents";

let fake: FakeOpenAI;
beforeAll(async () => {
  fake = await startFakeOpenAI();
});
afterAll(async () => {
  await fake.close();
});
beforeEach(() => {
  stubEnv("OPENAI_API_KEY", undefined);
  stubEnv("OPENAI_BASE_URL", fake.baseURL);
  stubEnv("AI_MODEL", "fake-local");
  stubEnv("AI_MAX_RETRIES", "0");
  stubEnv("AI_SCRUB", undefined);
});
afterEach(() => {
  unstubEnvs();
  vi.restoreAllMocks();
});

/** A project with 200 payment errors from 20 minutes ago and a steady warning, summarized over the last hour. */
async function paymentsOutage() {
  const now = Date.now();
  const { cookie, projects } = await userWithProjects("payments");
  await store(projects[0]!.id, [
    { level: "error", message: (i) => `Card authorization failed for order ord_${i}: gateway timeout`, times: spread(now - 20 * MINUTE, now - 5_000, 200) },
    { level: "warn", message: () => "Slow query on orders", times: spread(now - 2 * HOUR, now - 10_000, 60) },
  ]);
  return { cookie, query: `since=${Math.floor((now - HOUR) / 1000)}`, project: projects[0]! };
}

describe("checked model answers", () => {
  it("a truthful answer is served, rendered from the facts it cites", async () => {
    const { cookie, query } = await paymentsOutage();
    fake.setMode({ kind: "answer", answer: (request) => truthfulAnswerTo(request, "Card authorizations are failing.") });
    const { res, summary } = await summarize(cookie, query);
    expect(res.headers.get("X-Summary-Source")).toBe("model:fake-local");
    expect(res.headers.get("X-Summary-Fallback")).toBeNull();
    expect(summary).toMatch(/^\*\*Card authorizations are failing\.\*\*\n\n- \*\*error\*\* `Card authorization failed for order <id>: gateway timeout` in `payments-\w+`: 200 events since (?:\d{4}-\d\d-\d\d )?\d\d:\d\d UTC\. /);
  });

  for (const [what, wrong] of [
    ["a wrong count", (a: ReturnType<typeof truthfulAnswerTo>) => ({ ...a, items: a.items.map((i) => ({ ...i, count: i.count + 1 })) })],
    ["a wrong start", (a: ReturnType<typeof truthfulAnswerTo>) => ({ ...a, items: a.items.map((i) => ({ ...i, start: "2020-01-01T00:00:00Z" })) })],
    ["'All clear. No errors in this window' while 200 errors happened", (a: ReturnType<typeof truthfulAnswerTo>) => ({ ...a, headline: "All clear. No errors in this window" })],
    ["no item for the top error", (a: ReturnType<typeof truthfulAnswerTo>) => ({ ...a, items: [] })],
    ["an invented number", (a: ReturnType<typeof truthfulAnswerTo>) => ({ ...a, lookFirst: "Errors rose 987654% in the last hour." })],
  ] as const) {
    it(`${what}: the digest with X-Summary-Fallback: ai_inconsistent, never cached`, async () => {
      const { cookie, query } = await paymentsOutage();
      fake.setMode({ kind: "answer", answer: (request) => wrong(truthfulAnswerTo(request)) });
      const before = fake.requests.length;
      for (let i = 0; i < 2; i++) {
        const { status, res, summary } = await summarize(cookie, query);
        expect(status).toBe(200);
        expect(res.headers.get("X-Summary-Source")).toBe("builtin");
        expect(res.headers.get("X-Summary-Fallback")).toBe("ai_inconsistent");
        expect(summary).toMatch(/^\*\*Window:\*\* the last hour/);
        expect(summary).toContain("200 events since");
        expect(summary).not.toMatch(/All clear/);
      }
      // Not cached: the second request asked the model again.
      expect(fake.requests.length).toBe(before + 2);
    });
  }

  it("late events: an answer calling the resolved issue 'reopened' falls back (ai_inconsistent); one saying they are late is served", async () => {
    const now = Date.now();
    const { cookie, projects } = await userWithProjects("exports");
    const project = projects[0]!;
    await store(project.id, [
      { level: "error", message: (i) => `Nightly export ${i} failed: S3 upload timed out`, times: spread(now - 50 * MINUTE, now - 40 * MINUTE, 4) },
      { level: "error", message: () => "Webhook signature mismatch", times: spread(now - 30 * MINUTE, now - 5_000, 20) },
    ]);
    const resolvedAt = new Date(now - 20 * MINUTE);
    await prisma.issue.updateMany({ where: { projectId: project.id, title: { startsWith: "Nightly export" } }, data: { status: "resolved", resolvedAt, statusChangedAt: resolvedAt, resolveMode: "now" } });
    // Uploaded late, dated before the fix.
    await store(project.id, [{ level: "error", message: (i) => `Nightly export ${10 + i} failed: S3 upload timed out`, times: spread(now - 45 * MINUTE, now - 42 * MINUTE, 6), receivedAt: now - 2 * MINUTE }]);
    const query = `since=${Math.floor((now - HOUR) / 1000)}`;
    const answerWith = (text: string) => (request: Parameters<typeof truthfulAnswerTo>[0]) => {
      const answer = truthfulAnswerTo(request);
      const late = promptIssueLines(messageText(request, "user")).find((l) => l.status === "resolved")!;
      return { ...answer, items: [...answer.items, { rank: late.rank, count: late.count, start: late.first, text }] };
    };

    fake.setMode({ kind: "answer", answer: answerWith("The export failures regressed after the fix.") });
    const wrong = await summarize(cookie, query);
    expect(wrong.res.headers.get("X-Summary-Fallback")).toBe("ai_inconsistent");
    expect(wrong.summary).toContain("late (dated before it, arrived after it): not a regression");

    fake.setMode({ kind: "answer", answer: answerWith("Late uploads dated before the fix; not a regression.") });
    const right = await summarize(cookie, query);
    expect(right.res.headers.get("X-Summary-Source")).toBe("model:fake-local");
    expect(right.summary).toMatch(/- \*\*error\*\* `Nightly export <num> failed: S3 upload timed out` in `exports-\w+` \(resolved\): 10 events since (?:\d{4}-\d\d-\d\d )?\d\d:\d\d UTC\. Late uploads dated before the fix; not a regression\./);
  });

  it("an answer that is not the structured form (plain prose): the digest, ai_unavailable", async () => {
    const { cookie, query } = await paymentsOutage();
    fake.setMode({ kind: "ok", text: "Everything looks fine to me." });
    const { res } = await summarize(cookie, query);
    expect(res.headers.get("X-Summary-Fallback")).toBe("ai_unavailable");
  });

  for (const contentLength of [false, true]) {
    it(`a 10 MB answer${contentLength ? " (with its Content-Length)" : " (streamed)"} is cut at 256 KiB, never read whole: the digest, ai_unavailable`, async () => {
      const { cookie, query } = await paymentsOutage();
      // Count what the provider's client pulls from the answer's body.
      const realFetch = globalThis.fetch;
      let pulled = 0;
      vi.spyOn(globalThis, "fetch").mockImplementation(async (input, init) => {
        const response = await realFetch(input, init);
        if (!response.body) return response;
        const counted = response.body.pipeThrough(new TransformStream<Uint8Array, Uint8Array>({ transform: (chunk, c) => (pulled += chunk.byteLength, c.enqueue(chunk)) }));
        return new Response(counted, { status: response.status, headers: response.headers });
      });
      fake.setMode({ kind: "huge", bytes: 10 * 1024 * 1024, contentLength });
      const { status, res } = await summarize(cookie, query);
      expect(status).toBe(200);
      expect(res.headers.get("X-Summary-Source")).toBe("builtin");
      expect(res.headers.get("X-Summary-Fallback")).toBe("ai_unavailable");
      // At most the limit and the chunk that crossed it (a streaming read may buffer a little ahead).
      expect(pulled).toBeLessThanOrEqual(256 * 1024 + 128 * 1024);
      expect(fake.huge.at(-1)!.completed).toBe(false);
    });
  }

  it("a slow answer within AI_TIMEOUT_MS is served; past it, the digest with ai_unavailable", async () => {
    const { cookie, query } = await paymentsOutage();
    fake.setMode({ kind: "slow", afterMs: 300, then: { kind: "answer", answer: (request) => truthfulAnswerTo(request, "Slow but right.") } });
    const slow = await summarize(cookie, query);
    expect(slow.res.headers.get("X-Summary-Source")).toBe("model:fake-local");
    expect(slow.summary).toContain("**Slow but right.**");

    const other = await paymentsOutage();
    stubEnv("AI_TIMEOUT_MS", "200");
    fake.setMode({ kind: "slow", then: { kind: "answer", answer: (request) => truthfulAnswerTo(request) } });
    const late = await summarize(other.cookie, other.query);
    expect(late.res.headers.get("X-Summary-Fallback")).toBe("ai_unavailable");
    fake.release();
  });
});

describe("scrubbing before the provider (AI_SCRUB)", () => {
  const SECRETS = [
    "jane.doe@example.com",
    "203.0.113.77",
    "2001:db8:85a3::8a2e:370:7334",
    "tlt_5f0c1e9a7b3d4c2e8f6a0b1c2d3e4f5a",
    "sk_live_51HxYzAbCdEfGhIjKl",
    "4242 4242 4242 4242",
    "4111111111111111",
    "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJqYW5lIn0.c2lnbmF0dXJl",
  ];

  async function leakyEvents() {
    const now = Date.now();
    const { cookie, projects } = await userWithProjects("accounts");
    await store(projects[0]!.id, [
      {
        level: "error",
        message: (i) => `Login failed for jane.doe@example.com from 203.0.113.77 (attempt ${i}) with key tlt_5f0c1e9a7b3d4c2e8f6a0b1c2d3e4f5a`,
        times: spread(now - 10 * MINUTE, now - 5_000, 5),
        // The account value changed against the previous hour (a "changed" fact) and the release is new (a deploy marker): both carry secrets too.
        context: () => ({ ip: "2001:db8:85a3::8a2e:370:7334", card: "4242 4242 4242 4242", pan: "4111111111111111", authorization: "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJqYW5lIn0.c2lnbmF0dXJl", stripe: "sk_live_51HxYzAbCdEfGhIjKl", account: "jane.doe@example.com" }),
        release: () => "hotfix-203.0.113.77",
      },
      {
        level: "error",
        message: (i) => `Login failed for ops@example.net from 198.51.100.1 (attempt ${i}) with key tlt_00000000000000000000000000000000`,
        times: spread(now - 80 * MINUTE, now - 70 * MINUTE, 5),
        context: () => ({ account: "ops@example.net" }),
      },
    ]);
    return { cookie, query: `since=${Math.floor((now - HOUR) / 1000)}`, projectId: projects[0]!.id };
  }

  it("the prompt the provider receives holds no email, IP address, key, token or card number from the events", async () => {
    fake.setMode({ kind: "answer", answer: (request) => truthfulAnswerTo(request) });
    const { cookie, query } = await leakyEvents();
    const before = fake.requests.length;
    const { res } = await summarize(cookie, query);
    expect(res.headers.get("X-Summary-Source")).toBe("model:fake-local");
    const sent = fake.requests.slice(before).map((r) => messageText(r, "user") + messageText(r, "system")).join("\n");
    expect(sent).toContain("Login failed for [email] from [ip]");
    // The facts that quote values do so masked: the changed account, the new release.
    expect(sent).toMatch(/"changed":\[\{"context":"account","value":"\[email\]","count":5,"of":5/);
    expect(sent).toContain('"release":"hotfix-[ip]"');
    for (const secret of SECRETS) expect(sent, secret).not.toContain(secret);
    expect(sent).toContain("[card]");
    expect(sent).toContain("[key]");
  });

  it("AI_SCRUB=false sends them as they are (so the test above can fail)", async () => {
    stubEnv("AI_SCRUB", "false");
    fake.setMode({ kind: "answer", answer: (request) => truthfulAnswerTo(request) });
    const { cookie, query } = await leakyEvents();
    const before = fake.requests.length;
    await summarize(cookie, query);
    const sent = fake.requests.slice(before).map((r) => messageText(r, "user")).join("\n");
    expect(sent).toContain("jane.doe@example.com");
    expect(sent).toContain("tlt_5f0c1e9a7b3d4c2e8f6a0b1c2d3e4f5a");
    expect(sent).toMatch(/"changed":\[\{"context":"account","value":"jane\.doe@example\.com"/);
    expect(sent).toContain('"release":"hotfix-203.0.113.77"');
  });
});

describe("GET /api/ai/summarize/stream (the dashboard's summary)", () => {
  async function open(cookie: string, query: string) {
    const res = await summarizeStream(new Request(`http://localhost/api/ai/summarize/stream?${query}`, { headers: { cookie } }), { params: Promise.resolve({}) });
    const reader = res.body!.getReader();
    const decoder = new TextDecoder();
    let buffer = "";
    async function next(): Promise<Record<string, unknown> | null> {
      for (;;) {
        const newline = buffer.indexOf("\n");
        if (newline >= 0) {
          const line = buffer.slice(0, newline);
          buffer = buffer.slice(newline + 1);
          return JSON.parse(line) as Record<string, unknown>;
        }
        const { done, value } = await reader.read();
        if (done) return null;
        buffer += decoder.decode(value, { stream: true });
      }
    }
    return { res, next };
  }

  it("sends the digest before a slow model answers, then the model's checked answer", async () => {
    const { cookie, query } = await paymentsOutage();
    fake.setMode({ kind: "slow", then: { kind: "answer", answer: (request) => truthfulAnswerTo(request, "The model's answer.") } });
    const before = fake.requests.length;
    const { res, next } = await open(cookie, query);
    expect(res.status).toBe(200);
    expect(res.headers.get("content-type")).toBe("application/x-ndjson; charset=utf-8");

    const digest = await next();
    expect(digest).toMatchObject({ kind: "digest", source: "builtin", eventCount: 230, cached: false });
    expect(digest!.summary).toMatch(/^\*\*Window:\*\* the last hour/);
    // The model has been asked and has not answered yet.
    await fake.waitForRequests(before + 1);
    fake.release();
    const final = await next();
    expect(final).toMatchObject({ kind: "final", source: "model:fake-local", eventCount: 230 });
    expect(final!.summary).toMatch(/^\*\*The model's answer\.\*\*/);
    expect(await next()).toBeNull();

    // The same request again: the cached answer, in one line.
    const again = await open(cookie, query);
    expect(await again.next()).toMatchObject({ kind: "final", source: "model:fake-local", cached: true });
    expect(await again.next()).toBeNull();
  });

  it("without a model, one final line with the digest; the session is required", async () => {
    stubEnv("OPENAI_BASE_URL", undefined);
    const { cookie, query } = await paymentsOutage();
    const { next } = await open(cookie, query);
    expect(await next()).toMatchObject({ kind: "final", source: "builtin" });
    expect(await next()).toBeNull();
    const anonymous = await summarizeStream(new Request(`http://localhost/api/ai/summarize/stream?${query}`), { params: Promise.resolve({}) });
    expect(anonymous.status).toBe(401);
    expect(anonymous.headers.get("content-type")).toBe("application/problem+json");
  });

  it("a model answer that fails the checks ends with the digest and ai_inconsistent", async () => {
    const { cookie, query } = await paymentsOutage();
    fake.setMode({ kind: "answer", answer: (request) => ({ ...truthfulAnswerTo(request), headline: "All clear." }) });
    const { next } = await open(cookie, query);
    expect(await next()).toMatchObject({ kind: "digest" });
    expect(await next()).toMatchObject({ kind: "final", source: "builtin", fallback: "ai_inconsistent" });
  });
});
