import { AppError, errors } from "@/lib/http/errors";
import { MAX_JSON_VALUES, MAX_LOG_RECORDS, MAX_OTLP_BODY_BYTES, MAX_PROTOBUF_MESSAGES } from "@/lib/otlp/limits";

/** The whole-request refusals of POST /v1/logs (a bad record alone is reported in `partialSuccess` instead). */

export const unsupportedOtlpMediaType = () =>
  new AppError(
    415,
    "unsupported_media_type",
    "Send OTLP logs as protobuf (Content-Type: application/x-protobuf) or JSON (Content-Type: application/json).",
  );

export const otlpBodyTooLarge = () => errors.payloadTooLarge(MAX_OTLP_BODY_BYTES);

export const tooManyRecords = () =>
  new AppError(
    413,
    "payload_too_large",
    `The request holds more than ${MAX_LOG_RECORDS.toLocaleString("en-US")} log records: send at most ${MAX_LOG_RECORDS.toLocaleString("en-US")} per request (in the OpenTelemetry Collector, lower the exporter's batch size).`,
  );

export const tooManyValues = () =>
  new AppError(
    413,
    "payload_too_large",
    `The request holds more than ${MAX_PROTOBUF_MESSAGES.toLocaleString("en-US")} protobuf messages (or ${MAX_JSON_VALUES.toLocaleString("en-US")} JSON values): send fewer log records or attributes per request.`,
  );
