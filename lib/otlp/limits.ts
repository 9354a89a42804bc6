/**
 * Bounds on one OTLP logs request. Every decoding step checks them before it
 * allocates, so a hostile body costs bounded time and memory whatever it holds.
 */

/** Largest decoded (decompressed) body read; OTLP suggests 64 MiB, which no log batch needs here. */
export const MAX_OTLP_BODY_BYTES = 16 * 1024 * 1024;

/**
 * Log records in one request. The OpenTelemetry SDKs send at most 512 per
 * request; the Collector's default batch is 8,192. More is a 413.
 */
export const MAX_LOG_RECORDS = 10_000;

/**
 * Protobuf messages (records, attributes, values) in one request, counted
 * before anything is decoded: an empty message costs two bytes on the wire
 * and about 75 in memory once decoded. More is a 413.
 */
export const MAX_PROTOBUF_MESSAGES = 500_000;

/** JSON values (containers, and the items after each comma) in one request, counted before parsing. More is a 413. */
export const MAX_JSON_VALUES = 1_000_000;

/** Containers a JSON body may nest: deep enough for AnyValue nested past the event's own limit. */
export const MAX_JSON_DEPTH = 160;

/** Size of one mapped event's context (characters of its JSON, about); a bigger record is rejected alone. */
export const MAX_RECORD_CONTEXT_CHARS = 1024 * 1024;

/** Attributes of one record (the SDKs keep 128 by default); a record with more is rejected alone. */
export const MAX_RECORD_ATTRIBUTES = 1_000;

/** Rejection reasons quoted in `partialSuccess.errorMessage`; the count covers the rest. */
export const MAX_QUOTED_REJECTIONS = 5;
