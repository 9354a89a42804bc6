/**
 * Route-handler wrappers: the edge every API route goes through. A route
 * file declares its schemas and role and calls one lib function; what every
 * route repeats (request id, caller, same-origin check, parsing, access,
 * error mapping, rate-limit headers) happens here.
 *
 *   export const GET = projectRoute({ role: "member", query: eventsQuerySchema },
 *     async ({ access, query }) => json(await listProjectEvents(access, query)));
 */
import { createHash, randomUUID, timingSafeEqual } from "node:crypto";
import type { z } from "zod";
import { requireApiKey, requireSessionUser, type AuthenticatedKey, type SessionUser } from "@/lib/edge/caller";
import { assertSameOrigin } from "@/lib/auth/same-origin";
import { AppError, errors } from "@/lib/http/errors";
import { settings } from "@/lib/config/settings";
import { MANAGEMENT_BODY_LIMIT, parseInput, parsePathParams, queryObject } from "@/lib/http/input";
import { errorToResponse } from "@/lib/edge/problem";
import { consumeRateLimit, rateLimitHeaders, type RateLimit, type RateLimitDecision } from "@/lib/http/rate-limit";
import { readJsonBody, type JsonBody } from "@/lib/http/read-json";
import { sentryCorsHeaders, sentryPreflightHeaders } from "@/lib/sentry/ingest";
import { PROJECT_NOT_FOUND, resolveProjectAccess, type ProjectAccess } from "@/lib/auth/access";
import type { ProjectRole } from "@/lib/auth/roles";
import { projectParamsSchema } from "@/lib/projects/schemas";

type RouteContext<P> = { params: Promise<P> };
export type Handler = (request: Request, ctx: RouteContext<Record<string, string | string[]>>) => Promise<Response>;

type Schema = z.ZodType | undefined;
type Out<S extends Schema> = S extends z.ZodType ? z.output<S> : undefined;

/**
 * The base wrapper: a request id, resolved params, and whatever is thrown
 * turned into problem details (lib/edge/problem.ts). Public routes (health,
 * the API 404) use it directly.
 */
export function apiRoute(handler: (request: Request, ctx: { params: Record<string, string | string[]>; requestId: string }) => Promise<Response>): Handler {
  return async (request, ctx) => {
    const requestId = randomUUID();
    let response: Response;
    try {
      const params = ctx?.params ? await ctx.params : {};
      response = await handler(request, { params, requestId });
    } catch (error) {
      // A client that hung up mid-request is not a server fault: nobody
      // reads the answer, and nothing is logged.
      if (request.signal.aborted) return new Response(null, { status: 499 });
      response = errorToResponse(error, requestId);
    }
    response.headers.set("X-Request-Id", requestId);
    return response;
  };
}

export type InputOptions<P extends Schema, Q extends Schema, B extends Schema> = {
  /** Path parameters; a value that can't match is a 404 with `notFound` as detail. */
  params?: P;
  /** Query string (values are strings); problems are a 400. */
  query?: Q;
  /** JSON body, read with `bodyLimit` (default 64 KiB); problems are a 400. */
  body?: B;
  bodyLimit?: number;
  notFound?: string;
};

export type SessionContext<P extends Schema, Q extends Schema, B extends Schema> = {
  request: Request;
  requestId: string;
  user: SessionUser;
  params: Out<P>;
  query: Out<Q>;
  body: Out<B>;
};

export type ProjectContext<P extends Schema, Q extends Schema, B extends Schema> = SessionContext<P, Q, B> & { access: ProjectAccess };

async function parseRest<Q extends Schema, B extends Schema>(request: Request, options: InputOptions<Schema, Q, B>) {
  const query = (options.query ? parseInput(options.query, queryObject(request), "query") : undefined) as Out<Q>;
  let body = undefined as Out<B>;
  if (options.body) {
    const read = await readJsonBody(request, options.bodyLimit ?? MANAGEMENT_BODY_LIMIT);
    body = parseInput(options.body, read.value, "body", read.problems) as Out<B>;
  }
  return { query, body };
}

/**
 * A route for a signed-in person (dashboard, management API, summary): the
 * same-origin check for state changes, then the session (a Bearer header is
 * refused), then params, query and body.
 */
export function sessionRoute<P extends Schema = undefined, Q extends Schema = undefined, B extends Schema = undefined>(
  options: InputOptions<P, Q, B>,
  handler: (ctx: SessionContext<P, Q, B>) => Promise<Response>,
): Handler {
  return apiRoute(async (request, { params: rawParams, requestId }) => {
    assertSameOrigin(request);
    const user = await requireSessionUser(request);
    const params = (options.params ? parsePathParams(options.params, rawParams, options.notFound) : undefined) as Out<P>;
    return handler({ request, requestId, user, params, ...(await parseRest(request, options)) });
  });
}

/**
 * A route about one project (`[id]` in the path): as sessionRoute, and the
 * caller's access resolved once (outsiders 404, members 403 where `role` is
 * "owner") before the query and body are read.
 */
export function projectRoute<P extends z.ZodType<{ id: string }> = typeof projectParamsSchema, Q extends Schema = undefined, B extends Schema = undefined>(
  options: InputOptions<P, Q, B> & { role: ProjectRole },
  handler: (ctx: ProjectContext<P, Q, B>) => Promise<Response>,
): Handler {
  return apiRoute(async (request, { params: rawParams, requestId }) => {
    assertSameOrigin(request);
    const user = await requireSessionUser(request);
    const params = parsePathParams(options.params ?? projectParamsSchema, rawParams, options.notFound ?? PROJECT_NOT_FOUND) as Out<P>;
    const access = await resolveProjectAccess(user.id, params!.id, options.role);
    return handler({ request, requestId, user, access, params, ...(await parseRest(request, options)) });
  });
}

export type KeyContext<B = JsonBody> = { request: Request; requestId: string; key: AuthenticatedKey; body: B };

/**
 * A route for a client application with a project API key (ingestion), in
 * the SPEC's order: key (401) -> rate limit (429) -> the body, read by
 * `read` (content type 415, size 413, JSON 400) -> the handler. The
 * rate-limit headers ride on every answer to an authenticated request,
 * success or not.
 */
export function apiKeyRoute<B = JsonBody>(
  options: { read: (request: Request) => Promise<B>; rateLimit: () => RateLimit | null },
  handler: (ctx: KeyContext<B>) => Promise<Response>,
): Handler {
  return apiRoute(async (request, { requestId }) => {
    const key = await requireApiKey(request);
    let decision: RateLimitDecision | null = null;
    let response: Response;
    try {
      decision = await consumeRateLimit(options.rateLimit(), key.keyId);
      if (decision && !decision.allowed) throw errors.rateLimited(decision);
      const body = await options.read(request);
      response = await handler({ request, requestId, key, body });
    } catch (error) {
      if (request.signal.aborted) throw error; // the client is gone: apiRoute answers nobody, logs nothing
      response = errorToResponse(error, requestId);
    }
    for (const [name, value] of Object.entries(rateLimitHeaders(decision))) if (!response.headers.has(name)) response.headers.set(name, value);
    return response;
  });
}

/**
 * The Sentry SDKs' routes (envelope, store): the public key and the body are
 * the handler's (lib/sentry/ingest.ts), since a tunnel's key is inside the
 * body; every answer, errors included, carries the CORS headers a page of
 * another origin needs to read it.
 */
export function sentryRoute(handler: (ctx: { request: Request; params: Record<string, string | string[]> }) => Promise<unknown>): Handler {
  return apiRoute(async (request, { params, requestId }) => {
    let response: Response;
    try {
      response = json(await handler({ request, params }));
    } catch (error) {
      if (request.signal.aborted) throw error;
      response = errorToResponse(error, requestId);
    }
    for (const [name, value] of Object.entries(sentryCorsHeaders(request))) response.headers.set(name, value);
    return response;
  });
}

/** A browser's CORS preflight on the Sentry routes. */
export const sentryPreflight: Handler = apiRoute(async (request) => new Response(null, { status: 204, headers: sentryPreflightHeaders(request) }));

export function json(body: unknown, init: { status?: number; headers?: Record<string, string> } = {}): Response {
  return new Response(JSON.stringify(body), {
    status: init.status ?? 200,
    headers: { "Content-Type": "application/json", "Cache-Control": "no-store", ...(init.headers ?? {}) },
  });
}

/** 200 with a body already encoded (an OTLP answer in protobuf or JSON). */
export function encoded(answer: { body: Uint8Array; contentType: string }): Response {
  return new Response(Buffer.from(answer.body), { status: 200, headers: { "Content-Type": answer.contentType, "Cache-Control": "no-store" } });
}

/** 201 Created; a replayed idempotent request says so (Idempotent-Replayed: true). */
export function created(result: { body: unknown; replayed?: boolean }): Response {
  return json(result.body, { status: 201, headers: result.replayed ? { "Idempotent-Replayed": "true" } : {} });
}

/** 204 No Content (a DELETE that succeeded). */
export function noContent(): Response {
  return new Response(null, { status: 204, headers: { "Cache-Control": "no-store" } });
}

/**
 * A route a scheduler calls (Vercel Cron, a systemd timer, curl) with
 * `Authorization: Bearer <CRON_SECRET>`, for hosts where nothing runs in the
 * background. Without CRON_SECRET the route is off; a missing or wrong token
 * gets the same 401 (compared as SHA-256 digests, in constant time).
 */
export function cronRoute(handler: (ctx: { request: Request; requestId: string }) => Promise<Response>): Handler {
  return apiRoute(async (request, { requestId }) => {
    const secret = settings().cron.secret;
    if (!secret) throw new AppError(401, "unauthenticated", "This route is off: set CRON_SECRET on the server and send it as Authorization: Bearer <CRON_SECRET>.");
    const sent = /^Bearer (.+)$/.exec(request.headers.get("authorization") ?? "")?.[1] ?? "";
    if (!timingSafeEqual(createHash("sha256").update(sent).digest(), createHash("sha256").update(secret).digest())) {
      throw new AppError(401, "unauthenticated", "Send Authorization: Bearer <CRON_SECRET>.", { headers: { "WWW-Authenticate": 'Bearer realm="telltale-cron"' } });
    }
    return handler({ request, requestId });
  });
}

const METHODS = ["GET", "POST", "PUT", "PATCH", "DELETE"] as const;
type Method = (typeof METHODS)[number];

/**
 * Handlers for the methods a route does not serve, so that they answer 405
 * problem details with an Allow header instead of Next.js's empty 405:
 * `export const { PUT, PATCH, DELETE } = otherMethods("GET", "POST");`
 */
export function otherMethods(...allowed: Method[]): Record<Method, Handler> {
  const refuse = apiRoute(async (request) => {
    throw errors.methodNotAllowed(request.method, allowed);
  });
  return Object.fromEntries(METHODS.filter((m) => !allowed.includes(m)).map((m) => [m, refuse])) as Record<Method, Handler>;
}
