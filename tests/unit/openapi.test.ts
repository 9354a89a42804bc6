import { readdirSync, readFileSync } from "node:fs";
import { join, relative, sep } from "node:path";
import { compileErrors, validate } from "@readme/openapi-parser";
import { describe, expect, it } from "vitest";
import { config as proxyConfig } from "@/proxy";
import { GET as openApiRoute } from "@/app/api/openapi.json/route";
import { EVENT_LEVELS, MAX_BATCH_EVENTS, MAX_MESSAGE_CHARS } from "@/lib/events/schema";
import { openApiDocument } from "@/lib/openapi/document";
import { answerProblems, openApiAjv } from "@/tests/helpers/openapi";

const APP = join(process.cwd(), "app");

/** Routes that are not part of the public API, and why. */
const NOT_PUBLIC: Record<string, string> = {
  "/api/auth/{nextauth}": "Auth.js's own sign-in endpoints (browser flow, not an API)",
  "/api/cron/{job}": "the scheduler's entry point, behind CRON_SECRET",
  "/api/{path}": "the API's 404 for unknown paths",
};

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"];

function routeFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return routeFiles(path);
    return entry.name === "route.ts" ? [path] : [];
  });
}

/** `app/api/projects/[id]/route.ts` -> `/api/projects/{id}`; catch-alls (`[...x]`) -> `{x}`. */
function openApiPath(file: string): string {
  const dir = relative(APP, file).split(sep).slice(0, -1);
  return "/" + dir.map((part) => part.replace(/^\[(?:\.\.\.)?(.+)\]$/, "{$1}")).join("/");
}

/**
 * The methods a route file serves: `export const GET = ...`, `export
 * function GET`, `export { x as GET }`. The destructured `export const {
 * PUT, ... } = otherMethods(...)` answers 405 and is not served.
 */
function servedMethods(source: string): string[] {
  const served = new Set<string>();
  for (const m of source.matchAll(/export\s+(?:const|(?:async\s+)?function)\s+([A-Z]+)\b/g)) served.add(m[1]!);
  for (const m of source.matchAll(/export\s*\{([^}]*)\}\s*;/g)) for (const alias of m[1]!.matchAll(/as\s+([A-Z]+)/g)) served.add(alias[1]!);
  return [...served].filter((method) => METHODS.includes(method));
}

function documentedOperations(): Set<string> {
  const doc = openApiDocument() as { paths: Record<string, Record<string, unknown>> };
  const out = new Set<string>();
  // Sentry's paths are documented as the SDKs call them (trailing slash); the route serves both.
  for (const [path, item] of Object.entries(doc.paths)) for (const method of Object.keys(item)) out.add(`${method.toUpperCase()} ${path.replace(/(.)\/$/, "$1")}`);
  return out;
}

describe("GET /api/openapi.json", () => {
  it("is a valid OpenAPI 3.1 document (checked by @readme/openapi-parser)", async () => {
    const response = await openApiRoute(new Request("http://localhost/api/openapi.json"), { params: Promise.resolve({}) });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("application/json");
    const document = await response.json();
    expect(document.openapi).toMatch(/^3\.1\./);
    const result = await validate(structuredClone(document));
    expect(result.valid, result.valid ? "" : compileErrors(result)).toBe(true);
    // The validator does refuse a broken document.
    const broken = structuredClone(document);
    broken.paths["/api/events"].post.responses["201"] = { content: {} };
    expect((await validate(broken)).valid).toBe(false);
  });

  it("compiles every schema under JSON Schema 2020-12 with strict Ajv (what generated clients and validators will read)", () => {
    const { doc, ajv } = openApiAjv();
    for (const name of Object.keys(doc.components.schemas)) expect(() => ajv.compile({ $ref: `openapi#/components/schemas/${name}` }), name).not.toThrow();
    // A schema that breaks strict mode does throw.
    expect(() => ajv.compile({ type: "object", propertiez: {} })).toThrow(/strict mode/);
  });

  it("describes every method of every public route file, and nothing that no route serves", () => {
    const documented = documentedOperations();
    const served = new Set<string>();
    for (const file of routeFiles(APP)) {
      const path = openApiPath(file);
      const methods = servedMethods(readFileSync(file, "utf8"));
      expect(methods.length, `${file} serves no method the test can see`).toBeGreaterThan(0);
      if (path in NOT_PUBLIC) continue;
      for (const method of methods) served.add(`${method} ${path}`);
    }
    expect([...served].filter((op) => !documented.has(op)).sort(), "routes missing from lib/openapi/operations.ts").toEqual([]);
    expect([...documented].filter((op) => !served.has(op)).sort(), "documented operations without a route").toEqual([]);
    // The exclusions name routes that exist.
    const paths = new Set(routeFiles(APP).map(openApiPath));
    for (const path of Object.keys(NOT_PUBLIC)) expect(paths.has(path), path).toBe(true);
  });

  it("describes a body as the route's schema checks it: EventInput is strict, with the levels and limits of eventInputSchema", () => {
    const doc = openApiDocument() as { components: { schemas: Record<string, { required?: string[]; additionalProperties?: boolean; properties: Record<string, Record<string, unknown>> }> } };
    const input = doc.components.schemas.EventInput!;
    expect(input.required).toEqual(["level", "message", "projectId"]);
    expect(input.additionalProperties).toBe(false);
    expect(input.properties.level!.enum).toEqual([...EVENT_LEVELS]);
    expect(input.properties.message).toMatchObject({ minLength: 1, maxLength: MAX_MESSAGE_CHARS });
    expect(input.properties.fingerprint).toMatchObject({ maxItems: 8, items: { maxLength: 200 } });
    expect(doc.components.schemas.EventList).toMatchObject({ maxItems: MAX_BATCH_EVENTS, items: { $ref: "#/components/schemas/EventInput" } });
  });

  it("says who may call each operation: API key, session cookie, Sentry key, or anyone", () => {
    const doc = openApiDocument() as {
      paths: Record<string, Record<string, { security: Record<string, string[]>[] }>>;
      components: { securitySchemes: Record<string, { type: string; scheme?: string; in?: string; name?: string }> };
    };
    expect(doc.components.securitySchemes.apiKey).toMatchObject({ type: "http", scheme: "bearer" });
    expect(doc.components.securitySchemes.session).toMatchObject({ type: "apiKey", in: "cookie", name: "authjs.session-token" });
    expect(doc.components.securitySchemes.sentryKey).toMatchObject({ type: "apiKey", in: "query", name: "sentry_key" });
    expect(doc.paths["/api/events"]!.post!.security).toEqual([{ apiKey: [] }]);
    expect(doc.paths["/v1/logs"]!.post!.security).toEqual([{ apiKey: [] }]);
    expect(doc.paths["/api/ai/summarize"]!.get!.security).toEqual([{ session: [] }]);
    expect(doc.paths["/api/{projectNumber}/envelope/"]!.post!.security).toContainEqual({ sentryKey: [] });
    expect(doc.paths["/api/health/live"]!.get!.security).toEqual([]);
  });

  it("gives every operation its problem answers as application/problem+json", () => {
    const doc = openApiDocument() as {
      paths: Record<string, Record<string, { responses: Record<string, { $ref?: string }> }>>;
      components: { responses: Record<string, { content: Record<string, unknown> }> };
    };
    for (const [path, item] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(item)) {
        if (method === "options") continue;
        expect(op.responses["500"], `${method} ${path}`).toBeDefined();
        for (const [status, answer] of Object.entries(op.responses)) {
          if (Number(status) < 400) continue;
          const name = answer.$ref!.split("/").pop()!;
          expect(Object.keys(doc.components.responses[name]!.content), `${method} ${path} ${status}`).toEqual(["application/problem+json"]);
        }
      }
    }
  });

  it("is reached without a session: the page proxy does not run on it", () => {
    // Next.js anchors each matcher to the whole path.
    const matches = (path: string) => proxyConfig.matcher.some((pattern) => new RegExp(`^${pattern}$`).test(path));
    expect(matches("/projects")).toBe(true); // the check can fail
    expect(matches("/api/openapi.json")).toBe(false);
  });
});

describe("answerProblems (the check the integration tests use)", () => {
  it("accepts a matching answer and names what is wrong in others", () => {
    const accepted = { id: "6f1c3b1e-2f4b-4a59-9d8e-0a7b5c3d2e1f", receivedAt: "2026-11-27T12:00:00.000Z" };
    expect(answerProblems("/api/events", "POST", { status: 201, contentType: "application/json", body: accepted })).toEqual([]);
    expect(answerProblems("/api/events", "POST", { status: 201, contentType: "application/json", body: { id: "x", receivedAt: "yesterday" } }).join("\n")).toMatch(/^\/id .*\n(.*\n)*\/receivedAt /);
    expect(answerProblems("/api/events", "POST", { status: 418, contentType: "application/json", body: {} })).toEqual(["POST /api/events does not list status 418"]);
    const problem = { type: "urn:telltale:error:not_found", title: "Not found", status: 404, detail: "No.", code: "not_found" };
    expect(answerProblems("/api/projects/{id}", "GET", { status: 404, contentType: "application/problem+json", body: problem })).toEqual([]);
    expect(answerProblems("/api/projects/{id}", "GET", { status: 404, contentType: "application/problem+json", body: { ...problem, code: "nope" } })).not.toEqual([]);
  });
});
