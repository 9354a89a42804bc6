import { decodeJsonLogs } from "@/lib/otlp/decode-json";
import { decodeProtobufLogs } from "@/lib/otlp/decode-protobuf";
import { MAX_OTLP_BODY_BYTES } from "@/lib/otlp/limits";
import { mapLogsRequest, type OtlpLogsResult } from "@/lib/otlp/map";

export type { OtlpEvent, OtlpLogsResult } from "@/lib/otlp/map";
import { ExportLogsServiceResponse } from "@/lib/otlp/proto";
import { otlpBodyTooLarge, unsupportedOtlpMediaType } from "@/lib/otlp/problems";

/**
 * OTLP/HTTP logs (`POST /v1/logs`) as library calls: the route reads the
 * body (decompressed, within its limits), then
 *
 *   const format = otlpFormatOf(request.headers.get("content-type"));   // 415
 *   const { events, rejected, errorMessage } = parseOtlpLogs(body, format, projectId);   // 400, 413
 *   ...store `events`, then answer 200 with encodeOtlpLogsResponse({ rejected, errorMessage }, format)
 */

export type OtlpFormat = "protobuf" | "json";

/** The request's encoding, from its Content-Type (parameters ignored); anything else is a 415. */
export function otlpFormatOf(contentType: string | null): OtlpFormat {
  const type = contentType?.split(";")[0]!.trim().toLowerCase();
  if (type === "application/x-protobuf" || type === "application/protobuf") return "protobuf";
  if (type === "application/json") return "json";
  throw unsupportedOtlpMediaType();
}

/**
 * Decodes an ExportLogsServiceRequest (the body already decompressed) and
 * maps each record to an event of `projectId`. Throws AppError for a
 * whole-request problem: 400 (not protobuf / not OTLP JSON, truncated, too
 * deep), 413 (over MAX_OTLP_BODY_BYTES, too many records or values). A bad
 * record is only counted in `rejected` with the reason in `errorMessage`.
 * An empty request gives no events and nothing rejected (OTLP: a success).
 */
export function parseOtlpLogs(body: Uint8Array, format: OtlpFormat, projectId: string): OtlpLogsResult {
  if (body.byteLength > MAX_OTLP_BODY_BYTES) throw otlpBodyTooLarge();
  const request = format === "protobuf" ? decodeProtobufLogs(body) : decodeJsonLogs(body);
  return mapLogsRequest(request, projectId);
}

/**
 * The 200 answer: an ExportLogsServiceResponse in the request's encoding,
 * with `partialSuccess` only when records were rejected (OTLP: a full
 * success leaves it unset).
 */
export function encodeOtlpLogsResponse(
  { rejected, errorMessage }: { rejected: number; errorMessage: string },
  format: OtlpFormat,
): { body: Uint8Array; contentType: string } {
  const partialSuccess = rejected > 0 || errorMessage !== "" ? { rejectedLogRecords: rejected, errorMessage } : undefined;
  if (format === "protobuf") {
    return {
      body: ExportLogsServiceResponse.encode(ExportLogsServiceResponse.create(partialSuccess ? { partialSuccess } : {})).finish(),
      contentType: "application/x-protobuf",
    };
  }
  // Protobuf's JSON mapping writes int64 as a string.
  const json = partialSuccess ? { partialSuccess: { rejectedLogRecords: String(rejected), errorMessage } } : {};
  return { body: new TextEncoder().encode(JSON.stringify(json)), contentType: "application/json" };
}
