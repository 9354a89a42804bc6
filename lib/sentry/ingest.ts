import { z } from "zod";
import { fromSettings } from "@/lib/config/settings";
import { addressBlock, clientAddress } from "@/lib/http/client-address";
import { AppError, errors } from "@/lib/http/errors";
import { consumeRateLimit, createRateLimit, type RateLimitDecision } from "@/lib/http/rate-limit";
import { ingestMappedEvents, ingestRateLimit } from "@/lib/ingest/ingest";
import { authenticatePublicKey, type PublicKeyProject } from "@/lib/keys/service";
import { resolveSentryCredentials, sentryRequestCredentials } from "@/lib/sentry/auth";
import { decodeStoreBody, readEnvelopeBody, readSentryBody } from "@/lib/sentry/body";
import { countDroppedItems } from "@/lib/sentry/dropped-items";
import { parseEnvelope } from "@/lib/sentry/envelope";
import { envelopeToEvents, storeBodyToEvents, type SentryIngest } from "@/lib/sentry/items";
import { sentryAnswer, sentryRateLimitHeaders } from "@/lib/sentry/rate-limits";

export type SentryEndpoint = "envelope" | "store";

/** Per client address on the Sentry routes, for browsers (they send there directly): SENTRY_CLIENT_RATE_LIMIT per second, bursts twice that. */
const clientRateLimit = fromSettings((s) =>
  createRateLimit({ name: "sentry-client", perWindow: s.sentry.clientRatePerSecond, windowSeconds: 1, burst: s.sentry.clientRatePerSecond, burstWindowSeconds: 10 }),
);

/** A 429 as the Sentry SDKs read it: Retry-After and X-Sentry-Rate-Limits, scoped to the key or the client. */
function sentryRateLimited(decision: RateLimitDecision, scope: "key" | "organization"): AppError {
  const error = errors.rateLimited(decision);
  const headers = sentryRateLimitHeaders({ retryAfterSeconds: decision.resetSeconds, scope, reasonCode: scope === "key" ? "key_quota" : "client_quota" });
  return new AppError(error.status, error.code, error.message, { headers, rateLimit: decision });
}

/**
 * The native routes' answers name an API key and a projectId; a Sentry SDK's
 * user holds a DSN, so these say what to check in it.
 */
const dsnOfAnotherProject = () =>
  new AppError(403, "project_mismatch", "This DSN's public key belongs to another project than the number in the URL (the DSN's last part). Copy the DSN again from the Projects page.");

function unknownPublicKey(error: AppError): AppError {
  return new AppError(401, "invalid_api_key", "The DSN's public key is not valid. It may have been rotated; copy the DSN again from the Projects page.", { headers: error.headers });
}

/** The path's project number: digits only, or the route does not exist. */
/** The path of the Sentry routes: /api/<projectNumber>/envelope/ and /store/. */
export const sentryPathParamsSchema = z.object({ projectNumber: z.string().regex(/^\d{1,9}$/) });

function pathProjectNumber(raw: string): number {
  const n = sentryPathParamsSchema.shape.projectNumber.safeParse(raw).success ? Number(raw) : NaN;
  if (!Number.isSafeInteger(n) || n < 1) throw errors.notFound("No such project. Check the DSN: its last part is the project number.");
  return n;
}

/**
 * A Sentry SDK's request (POST /api/<projectNumber>/envelope/ or /store/),
 * in this order: a browser's rate limit per client address; the public key from the request
 * (query or X-Sentry-Auth), checked before the body is read, or else from
 * the envelope's dsn (a tunnel); the key's project against the path's
 * number (403); the page's origin against the project's allowed origins
 * (403); the key's rate limit; then the items, stored in one statement
 * after which the answer goes out. The envelope's event_id makes a retry
 * idempotent for 24 hours.
 */
export async function ingestSentryRequest(request: Request, endpoint: SentryEndpoint, rawProjectNumber: string): Promise<{ id: string | null }> {
  const projectNumber = pathProjectNumber(rawProjectNumber);
  const address = clientAddress(request.headers);
  // Only browsers (they send Origin) are limited per address: a server SDK is
  // one address sending for all its users, and a traced server's transactions
  // would spend the limit and have its errors refused. Its key's limit bounds it.
  const perClient = request.headers.has("origin") ? await consumeRateLimit(clientRateLimit(), addressBlock(address)) : null;
  if (perClient && !perClient.allowed) throw sentryRateLimited(perClient, "organization");

  const fromRequest = sentryRequestCredentials(request);
  let project = fromRequest ? await admit(request, fromRequest.publicKey, projectNumber, address) : null;
  let ingest: SentryIngest;
  if (endpoint === "store") {
    const body = await readSentryBody(request);
    if (!project) throw errors.missingApiKey();
    ingest = storeBodyToEvents(await decodeStoreBody(body), { projectId: project.projectId, clientAddress: address });
  } else {
    const { body, truncated } = await readEnvelopeBody(request);
    const envelope = parseEnvelope(body, truncated);
    const credentials = resolveSentryCredentials(request, envelope.header.dsn, fromRequest);
    if (credentials.projectNumber !== null && credentials.projectNumber !== projectNumber) throw dsnOfAnotherProject();
    project ??= await admit(request, credentials.publicKey, projectNumber, address);
    ingest = envelopeToEvents(envelope, { projectId: project.projectId, clientAddress: address });
  }

  const answer = sentryAnswer(ingest.eventId);
  if (ingest.events.length > 0) {
    const claim = `sentry:${ingest.eventId ?? ingest.events.map((e) => e.eventId).join(",")}`;
    const stored = await ingestMappedEvents(project, ingest.events.map((e) => e.event), answer, claim.length <= 200 ? claim : undefined);
    await countDroppedItems(project.projectId, ingest.dropped);
    return stored.body;
  }
  await countDroppedItems(project.projectId, ingest.dropped);
  return answer;
}

/** The key's project may send here, from this page, now. */
async function admit(request: Request, publicKey: string, projectNumber: number, address: string): Promise<PublicKeyProject> {
  const project = await authenticatePublicKey(publicKey, address).catch((error: unknown) => {
    throw error instanceof AppError && error.code === "invalid_api_key" ? unknownPublicKey(error) : error;
  });
  if (project.projectNumber !== projectNumber) throw dsnOfAnotherProject();
  const origin = request.headers.get("origin");
  if (origin && !originAllowed(origin, project.allowedOrigins)) {
    throw errors.forbidden(`Pages on ${origin.slice(0, 200)} may not send to this project. An owner can allow the origin in the project's settings.`);
  }
  const decision = await consumeRateLimit(ingestRateLimit(), project.keyId);
  if (decision && !decision.allowed) throw sentryRateLimited(decision, "key");
  return project;
}

/** `*` allows every origin; otherwise an exact match of scheme, host and port. */
export function originAllowed(origin: string, allowed: readonly string[]): boolean {
  if (allowed.includes("*")) return true;
  return allowed.some((a) => a.replace(/\/+$/, "").toLowerCase() === origin.toLowerCase());
}

/** Headers of every answer on the Sentry routes: a page of another origin may read the answer. */
export function sentryCorsHeaders(request: Request): Record<string, string> {
  const origin = request.headers.get("origin");
  return {
    "Access-Control-Allow-Origin": origin && origin !== "null" ? origin : "*",
    "Access-Control-Expose-Headers": "X-Sentry-Rate-Limits, Retry-After, X-Request-Id",
    Vary: "Origin",
  };
}

/** The answer to a browser's preflight: POST with the headers the SDKs send. */
export function sentryPreflightHeaders(request: Request): Record<string, string> {
  return {
    ...sentryCorsHeaders(request),
    "Access-Control-Allow-Methods": "POST, OPTIONS",
    "Access-Control-Allow-Headers": "Content-Type, Content-Encoding, X-Sentry-Auth, Authorization, Sentry-Trace, Baggage",
    "Access-Control-Max-Age": "86400",
  };
}
