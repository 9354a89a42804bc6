import { randomUUID } from "node:crypto";
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
