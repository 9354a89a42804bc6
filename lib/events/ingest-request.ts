import { requireApiKey } from "@/lib/auth/caller";
import { ingestEvent, ingestEventBatch, parseEventBatchBody, parseEventBody, parseIdempotencyKey } from "@/lib/events/ingest";
import { ingestLimits, ingestRateLimit } from "@/lib/events/ingest-limits";
import { consumeRateLimit } from "@/lib/http/rate-limit";
import { readJsonBody } from "@/lib/http/read-json";
import { json } from "@/lib/http/route";
import { AppError } from "@/lib/http/errors";

type Kind = "single" | "batch";

/**
 * The shared front half of both ingestion routes, in the SPEC's order:
 * key (401) -> rate limit (429) -> content type (415) -> size (413) ->
 * JSON (400) -> validation (400) -> project (403) -> commit -> 201.
 */
export async function handleIngestRequest(request: Request, kind: Kind): Promise<Response> {
  const key = await requireApiKey(request);
  let rateHeaders: Record<string, string> = {};
  try {
    rateHeaders = await consumeRateLimit(ingestRateLimit(), key.keyId);
    const body = await readJsonBody(request, kind === "single" ? ingestLimits.maxBodyBytes : ingestLimits.maxBatchBodyBytes);
    const idempotencyKey = parseIdempotencyKey(request.headers.get("idempotency-key"));
    const result =
      kind === "single"
        ? await ingestEvent(key, parseEventBody(body), { idempotencyKey })
        : await ingestEventBatch(key, parseEventBatchBody(body), { idempotencyKey });
    return json(result.body, {
      status: 201,
      headers: { ...rateHeaders, ...(result.replayed ? { "Idempotent-Replayed": "true" } : {}) },
    });
  } catch (error) {
    // Rate-limit headers ride on every answer to an authenticated request.
    if (error instanceof AppError && !error.headers?.["RateLimit-Limit"]) {
      throw new AppError(error.status, error.code, error.message, { errors: error.errors, headers: { ...rateHeaders, ...error.headers } });
    }
    throw error;
  }
}
