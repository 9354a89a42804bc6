import { setEnv } from "@/tests/helpers/env";
import { describe, expect, it, vi } from "vitest";
import { AppError, errors } from "@/lib/http/errors";
import { errorToResponse, problemResponse } from "@/lib/edge/problem";
import { readJsonBody } from "@/lib/http/read-json";

describe("problem details", () => {
  it("renders an AppError as RFC 9457 JSON with a stable code", async () => {
    const res = problemResponse(errors.validation([{ path: "level", message: "Required." }]));
    expect(res.status).toBe(400);
    expect(res.headers.get("content-type")).toBe("application/problem+json");
    expect(await res.json()).toEqual({
      type: "urn:telltale:error:validation_failed",
      title: "Validation failed",
      status: 400,
      detail: "The request has 1 invalid field.",
      code: "validation_failed",
      errors: [{ path: "level", message: "Required." }],
    });
  });

  it("carries extra headers (Retry-After, WWW-Authenticate)", () => {
    expect(problemResponse(errors.rateLimited({ retryAfterSeconds: 3 })).headers.get("retry-after")).toBe("3");
    const refused = problemResponse(errors.rateLimited({ allowed: false, limit: 10, remaining: 0, resetSeconds: 4, windowSeconds: 60 })).headers;
    expect([refused.get("retry-after"), refused.get("ratelimit-limit"), refused.get("ratelimit-remaining"), refused.get("ratelimit-policy")]).toEqual(["4", "10", "0", "10;w=60"]);
    expect(problemResponse(errors.missingApiKey()).headers.get("www-authenticate")).toMatch(/^Bearer/);
  });

  it("maps an unknown error to a 500 with a request id and no internals", async () => {
    const log = vi.spyOn(console, "error").mockImplementation(() => {});
    const prev = process.env.TELLTALE_LOG;
    setEnv("TELLTALE_LOG", undefined);
    try {
      const res = errorToResponse(new Error('relation "secret_table" does not exist; key tlt_ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789ab'), "req-123");
      const body = await res.json();
      expect(res.status).toBe(500);
      expect(body.code).toBe("internal");
      expect(body.requestId).toBe("req-123");
      expect(JSON.stringify(body)).not.toMatch(/secret_table|tlt_|stack/);
      const logged = log.mock.calls.map((c) => String(c[0])).join("\n");
      expect(logged).toContain("req-123");
      expect(logged).not.toContain("tlt_ABCDEFGHIJKLMNOPQRSTUVWXYZ");
    } finally {
      setEnv("TELLTALE_LOG", prev);
      log.mockRestore();
    }
  });

  it("maps an unreachable database to 503 with Retry-After", async () => {
    const warn = vi.spyOn(console, "error").mockImplementation(() => {});
    const err = Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:5432"), { code: "ECONNREFUSED" });
    const res = errorToResponse(new Error("wrapped", { cause: err }), "r");
    expect(res.status).toBe(503);
    expect(res.headers.get("retry-after")).toBe("5");
    expect((await res.json()).code).toBe("service_unavailable");
    warn.mockRestore();
  });

  it("keeps AppError details as they are", async () => {
    const res = errorToResponse(new AppError(403, "project_mismatch", "x"), "r");
    expect(res.status).toBe(403);
    expect((await res.json()).requestId).toBeUndefined();
  });
});

function streamRequest(chunks: string[], headers: Record<string, string> = { "content-type": "application/json" }) {
  let pulled = 0;
  const stream = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (pulled < chunks.length) controller.enqueue(new TextEncoder().encode(chunks[pulled++]!));
      else controller.close();
    },
  });
  const request = new Request("http://x/api/events", { method: "POST", body: stream, headers, duplex: "half" } as RequestInit);
  return { request, pulled: () => pulled };
}

describe("readJsonBody", () => {
  it("parses JSON with a JSON content type (parameters and +json allowed)", async () => {
    for (const type of ["application/json", "application/json; charset=utf-8", "application/vnd.api+json"]) {
      const { request } = streamRequest(['{"a":', "1}"], { "content-type": type });
      expect(await readJsonBody(request, 100)).toEqual({ value: { a: 1 }, problems: [], plain: { maxDepth: 64 } });
    }
  });

  it("refuses other content types with 415", async () => {
    for (const type of ["text/plain", "application/x-www-form-urlencoded", ""]) {
      const { request } = streamRequest(["{}"], type ? { "content-type": type } : {});
      await expect(readJsonBody(request, 100)).rejects.toMatchObject({ status: 415, code: "unsupported_media_type" });
    }
  });

  it("answers 413 as soon as the body passes the limit, then reads and drops the rest so the sender sees it", async () => {
    // The client sends 4 chunks, then waits: the answer must not wait for it.
    const chunk = "x".repeat(1000);
    let release!: () => void;
    const gate = new Promise<void>((resolve) => (release = resolve));
    let pulled = 0;
    const stream = new ReadableStream<Uint8Array>({
      async pull(controller) {
        if (pulled === 4) await gate;
        if (pulled < 100) controller.enqueue(new TextEncoder().encode(chunk)), pulled++;
        else controller.close();
      },
    });
    const request = new Request("http://x/api/events", { method: "POST", body: stream, headers: { "content-type": "application/json" }, duplex: "half" } as RequestInit);
    await expect(readJsonBody(request, 2500)).rejects.toMatchObject({ status: 413, code: "payload_too_large" });
    expect(pulled).toBeLessThanOrEqual(4);
    // What the client sends afterwards is consumed (not left to reset the connection).
    release();
    await vi.waitFor(() => expect(pulled).toBe(100));
  });

  it("refuses a declared Content-Length over the limit before parsing anything", async () => {
    const { request, pulled } = streamRequest(["{", "}"], { "content-type": "application/json", "content-length": "999999" });
    await expect(readJsonBody(request, 100)).rejects.toMatchObject({ status: 413 });
    // The body is drained in the background, not parsed.
    await vi.waitFor(() => expect(pulled()).toBe(2));
  });

  it("answers invalid_json for malformed, empty or non-UTF-8 bodies", async () => {
    for (const body of ['{"a":', "", "   "]) {
      const { request } = streamRequest([body]);
      await expect(readJsonBody(request, 100)).rejects.toMatchObject({ status: 400, code: "invalid_json" });
    }
    const bad = new Request("http://x", { method: "POST", body: new Uint8Array([0x7b, 0xff, 0x7d]), headers: { "content-type": "application/json" } });
    await expect(readJsonBody(bad, 100)).rejects.toMatchObject({ code: "invalid_json" });
  });
});

describe("bounded error answers", () => {
  it("lists at most 100 problems and says how many more there were; the body stays small", async () => {
    const problems = Array.from({ length: 5_000 }, (_, i) => ({ path: `events.${i}.level`, message: "Must be one of error, warn, info." }));
    const res = problemResponse(errors.validation(problems));
    const text = await res.text();
    const body = JSON.parse(text);
    expect(body.errors).toHaveLength(100);
    expect(body.errors[99].path).toBe("events.99.level");
    expect(body.detail).toBe("The request has 5,000 problems; the first 100 are listed, 4,900 more are not.");
    expect(text.length).toBeLessThan(10_000);
  });
});
