import { randomUUID } from "node:crypto";
import { errors } from "@/lib/http/errors";
import { errorToResponse } from "@/lib/http/problem";

export type RouteContext<P> = { params: Promise<P> };
export type HandlerContext<P> = { params: P; requestId: string };

/**
 * Wraps a route handler: gives it a request id and resolved params, and turns
 * whatever it throws into problem details (lib/http/problem.ts). Auth lives in
 * lib/auth/caller.ts; handlers call it first thing.
 */
export function apiRoute<P = Record<string, never>>(
  handler: (request: Request, ctx: HandlerContext<P>) => Promise<Response>,
) {
  return async (request: Request, ctx: RouteContext<P>): Promise<Response> => {
    const requestId = randomUUID();
    try {
      const params = ctx?.params ? await ctx.params : ({} as P);
      const response = await handler(request, { params, requestId });
      response.headers.set("X-Request-Id", requestId);
      return response;
    } catch (error) {
      const response = errorToResponse(error, requestId);
      response.headers.set("X-Request-Id", requestId);
      return response;
    }
  };
}

export function json(body: unknown, init: { status?: number; headers?: Record<string, string> } = {}): Response {
  return new Response(JSON.stringify(body), {
    status: init.status ?? 200,
    headers: { "Content-Type": "application/json", "Cache-Control": "no-store", ...(init.headers ?? {}) },
  });
}

/** 204 No Content (a DELETE that succeeded). */
export function noContent(): Response {
  return new Response(null, { status: 204, headers: { "Cache-Control": "no-store" } });
}

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
type Method = (typeof METHODS)[number];

/**
 * Handlers for the methods a route does not serve, so that they answer 405
 * problem details with an Allow header instead of Next.js's empty 405:
 * `export const { PUT, PATCH, DELETE } = otherMethods("GET", "POST");`
 */
export function otherMethods(...allowed: Method[]): Record<Method, (request: Request) => Promise<Response>> {
  const refuse = apiRoute(async (request) => {
    throw errors.methodNotAllowed(request.method, allowed);
  });
  return Object.fromEntries(METHODS.filter((m) => !allowed.includes(m)).map((m) => [m, refuse])) as Record<Method, (request: Request) => Promise<Response>>;
}
