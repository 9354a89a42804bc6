import { readRequestBody } from "@/lib/http/body-decoding";
import { ingestMappedEvents } from "@/lib/ingest/ingest";
import type { AuthenticatedKey } from "@/lib/keys/service";
import { MAX_OTLP_BODY_BYTES } from "@/lib/otlp/limits";
import { encodeOtlpLogsResponse, otlpFormatOf, parseOtlpLogs, type OtlpFormat } from "@/lib/otlp/logs";

export type OtlpRequest = { format: OtlpFormat; body: Buffer };

/** The request's encoding (415 otherwise) and its body, decompressed within MAX_OTLP_BODY_BYTES. */
export async function readOtlpRequest(request: Request): Promise<OtlpRequest> {
  const format = otlpFormatOf(request.headers.get("content-type"));
  const body = await readRequestBody(request, { maxBytes: MAX_OTLP_BODY_BYTES, maxDecodedBytes: MAX_OTLP_BODY_BYTES });
  return { format, body };
}

/**
 * POST /v1/logs: the key's project gets every record that maps to a valid
 * event, in one statement; the answer (after the commit) is OTLP's
 * ExportLogsServiceResponse, naming the records refused in partialSuccess.
 */
export async function ingestOtlpLogs(key: AuthenticatedKey, { format, body }: OtlpRequest): Promise<{ body: Uint8Array; contentType: string }> {
  const { events, rejected, errorMessage } = parseOtlpLogs(body, format, key.projectId);
  if (events.length > 0) await ingestMappedEvents(key, events, {});
  return encodeOtlpLogsResponse({ rejected, errorMessage }, format);
}
