import { promisify } from "node:util";
import { inflate } from "node:zlib";
import { settings } from "@/lib/config/settings";
import { readRequestBody, readRequestBodyPrefix, tooLarge } from "@/lib/http/body-decoding";
import { errors } from "@/lib/http/errors";

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

/**
 * An envelope's body as readSentryBody reads it, except that past
 * SENTRY_MAX_DECODED_BODY_BYTES it is cut rather than refused, so that an
 * event before a large attachment is still stored (lib/sentry/items.ts
 * decides what a cut item means). The limit on the body as sent holds.
 */
export function readEnvelopeBody(request: Request): Promise<{ body: Buffer; truncated: boolean }> {
  const { maxBodyBytes, maxDecodedBodyBytes } = settings().sentry;
  return readRequestBodyPrefix(request, { maxBytes: maxBodyBytes, maxDecodedBytes: maxDecodedBodyBytes });
}

const inflateAsync = promisify(inflate);
const BASE64 = /^[A-Za-z0-9+/\s]+={0,2}\s*$/;

/**
 * A store body as the old SDKs send it (raven-python, sentry-raven for
 * Ruby, raven-php: base64 of zlib-compressed JSON, with no Content-Encoding
 * to say so), as JSON; Sentry's store endpoint reads both, and so does
 * Relay. A body that starts with `{` is JSON already. Inflating stops at
 * SENTRY_MAX_DECODED_BODY_BYTES (413); what is neither is left for the
 * JSON parser to refuse.
 */
export async function decodeStoreBody(body: Buffer): Promise<Buffer> {
  let start = 0;
  while (start < body.length && (body[start] === 0x20 || body[start] === 0x0a || body[start] === 0x0d || body[start] === 0x09)) start++;
  if (start >= body.length || body[start] === 0x7b) return body;
  const text = body.toString("latin1");
  if (!BASE64.test(text)) return body;
  const binary = Buffer.from(text, "base64");
  if (binary[0] === 0x7b) return binary;
  const limit = settings().sentry.maxDecodedBodyBytes;
  try {
    return await inflateAsync(binary, { maxOutputLength: limit });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ERR_BUFFER_TOO_LARGE") throw tooLarge(limit, true);
    throw errors.invalidJson("The request body is neither JSON nor base64 of zlib-compressed JSON (as old Sentry SDKs send it).");
  }
}
