import { settings } from "@/lib/config/settings";
import { readRequestBody } from "@/lib/http/body-decoding";

/**
 * The body of an envelope or store request, any Content-Type (the SDKs send
 * none, text/plain or application/x-sentry-envelope), its Content-Encoding
 * undone, within SENTRY_MAX_BODY_BYTES as sent and
 * SENTRY_MAX_DECODED_BODY_BYTES decoded (413 past either, 415 for an
 * unknown coding, 400 for a corrupt stream).
 */
export function readSentryBody(request: Request): Promise<Buffer> {
  const { maxBodyBytes, maxDecodedBodyBytes } = settings().sentry;
  return readRequestBody(request, { maxBytes: maxBodyBytes, maxDecodedBytes: maxDecodedBodyBytes });
}
