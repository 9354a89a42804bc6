/**
 * The production server's own OpenAPI description, fetched as a client
 * generator would (no credentials), and real HTTP answers of that server
 * (through Next.js, headers and all) checked against it.
 */
import { describe, expect, it } from "vitest";
import { clientProject, serverUrl } from "@/tests/clients/helpers";
import { answerProblems } from "@/tests/helpers/openapi";

type Answer = { status: number; contentType: string | null; body: unknown; headers: Headers };

async function call(path: string, init: RequestInit = {}): Promise<Answer> {
  const res = await fetch(`${serverUrl()}${path}`, { redirect: "manual", ...init });
  const text = await res.text();
  return { status: res.status, contentType: res.headers.get("content-type"), body: text ? JSON.parse(text) : null, headers: res.headers };
}

describe("GET /api/openapi.json on the production server", () => {
  it("is served to anyone, and the server's answers match it: ingest, OTLP, Sentry, health, and problems", async () => {
    const served = await call("/api/openapi.json");
    expect(served.status).toBe(200);
    const document = served.body as { openapi: string; paths: Record<string, unknown> };
    expect(document.openapi).toMatch(/^3\.1\./);

    const project = await clientProject("openapi-served");
    const key = { authorization: `Bearer ${project.apiKey}`, "content-type": "application/json" };
    const check = (path: string, method: string, answer: Answer, status: number) => {
      expect(answer.status, `${method} ${path}: ${JSON.stringify(answer.body)}`).toBe(status);
      expect(answerProblems(path, method, answer, document), `${method} ${path} ${status}`).toEqual([]);
      expect(answer.headers.get("x-request-id"), `${method} ${path}`).toMatch(/^[0-9a-f-]{36}$/);
    };

    const stored = await call("/api/events", { method: "POST", headers: key, body: JSON.stringify({ level: "error", message: "served", projectId: project.id }) });
    check("/api/events", "POST", stored, 201);
    expect(stored.headers.get("ratelimit-limit")).toMatch(/^\d+$/);
    check("/api/events", "POST", await call("/api/events", { method: "POST", headers: key, body: JSON.stringify({ level: "loud" }) }), 400);
    check("/api/events", "POST", await call("/api/events", { method: "POST", body: "{}" }), 401);
    const batch = await call("/api/events/batch", { method: "POST", headers: { ...key, "content-type": "application/x-ndjson" }, body: `{"level":"info","message":"a","projectId":"${project.id}"}\n` });
    check("/api/events/batch", "POST", batch, 201);
    check("/v1/logs", "POST", await call("/v1/logs", { method: "POST", headers: key, body: "{}" }), 200);
    check("/v1/logs", "POST", await call("/v1/logs", { method: "POST", headers: { ...key, "content-type": "text/plain" }, body: "x" }), 415);
    const sentry = await call(`/api/${project.number}/store/?sentry_key=${project.publicKey}&sentry_version=7`, {
      method: "POST",
      body: JSON.stringify({ event_id: "0123456789abcdef0123456789abcdef", level: "error", message: "from an SDK" }),
    });
    check("/api/{projectNumber}/store/", "POST", sentry, 200);
    check("/api/projects", "GET", await call("/api/projects"), 401);
    check("/api/health/ready", "GET", await call("/api/health/ready"), 200);
  });
});
