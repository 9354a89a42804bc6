/**
 * The ingest routes' handlers, declared once: the route files in app/
 * export them to Next.js, and lib/edge/direct-ingest.ts serves the same
 * handlers to the production server's ingest requests before Next.js sees
 * them.
 */
import { apiKeyRoute, created, encoded, sentryRoute, type Handler } from "@/lib/edge/route";
import { idempotencyKeyOf } from "@/lib/http/input";
import { ingestBody, ingestEvent, ingestEventBatch, ingestRateLimit, parseEventBatchBody, parseEventBody } from "@/lib/ingest/ingest";
import { ingestOtlpLogs, readOtlpRequest } from "@/lib/otlp/ingest";
import { ingestSentryRequest } from "@/lib/sentry/ingest";

/** POST /api/events: one event, authenticated by the project's API key. */
export const postEvent = apiKeyRoute({ read: ingestBody.single, rateLimit: ingestRateLimit }, async ({ request, key, body }) =>
  created(await ingestEvent(key, parseEventBody(body), { idempotencyKey: idempotencyKeyOf(request) })),
);

/** POST /api/events/batch: 1 to 1,000 events, all or nothing. */
export const postEventBatch = apiKeyRoute({ read: ingestBody.batch, rateLimit: ingestRateLimit }, async ({ request, key, body }) =>
  created(await ingestEventBatch(key, parseEventBatchBody(body), { idempotencyKey: idempotencyKeyOf(request) })),
);

/** POST /api/<projectNumber>/envelope/: what a Sentry SDK sends, authenticated by the DSN's public key. */
export const postSentryEnvelope = sentryRoute(({ request, params }) => ingestSentryRequest(request, "envelope", String(params.projectNumber)));

/** POST /api/<projectNumber>/store/: the older Sentry SDKs' single event. */
export const postSentryStore = sentryRoute(({ request, params }) => ingestSentryRequest(request, "store", String(params.projectNumber)));

/** POST /v1/logs: OTLP/HTTP logs (protobuf or JSON), authenticated by the project's API key. */
export const postOtlpLogs = apiKeyRoute({ read: readOtlpRequest, rateLimit: ingestRateLimit }, async ({ key, body }) => encoded(await ingestOtlpLogs(key, body)));

const SENTRY_PATH = /^\/api\/([^/]+)\/(envelope|store)\/?$/;

/**
 * The POST handler for a request path (no query), with the path parameters
 * Next.js would give it; null for any other path. Matches what the route
 * files match: `[projectNumber]` is any one segment (the handler decides
 * whether it names a project), and the Sentry routes take a trailing slash.
 */
export function ingestRouteFor(pathname: string): { handler: Handler; params: Record<string, string> } | null {
  if (pathname === "/api/events") return { handler: postEvent, params: {} };
  if (pathname === "/api/events/batch") return { handler: postEventBatch, params: {} };
  if (pathname === "/v1/logs") return { handler: postOtlpLogs, params: {} };
  const sentry = SENTRY_PATH.exec(pathname);
  if (!sentry) return null;
  let projectNumber: string;
  try {
    projectNumber = decodeURIComponent(sentry[1]!);
  } catch {
    return null;
  }
  return { handler: sentry[2] === "envelope" ? postSentryEnvelope : postSentryStore, params: { projectNumber } };
}
