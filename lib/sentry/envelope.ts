import { AppError, errors } from "@/lib/http/errors";
import { normalizeEventId } from "@/lib/sentry/event-id";
import { isRecord } from "@/lib/sentry/fields";

/**
 * Sentry's envelope format (Relay's rules):
 *
 *   {"event_id":"...","dsn":"...","sent_at":"..."}\n      envelope header
 *   {"type":"event","length":41}\n                         item header
 *   {"message":"hello world","level":"error"}\n            payload
 *   ...
 *
 * Each header is one line of JSON (an object). A payload is exactly
 * `length` bytes when the item header gives one (binary allowed), then a
 * newline or the end; without `length` it runs to the next newline. The
 * last newline is optional, blank lines between items are skipped, items
 * may be empty, and unknown types are items like any other. Anything else
 * is a 400 naming what is wrong and where, after work bounded by the body's
 * size: one pass, headers of at most 64 KiB, at most 1,000 items.
 */

export const MAX_ENVELOPE_ITEMS = 1_000;
export const MAX_ENVELOPE_HEADER_BYTES = 64 * 1024;

export type EnvelopeHeader = {
  /** 32 lowercase hex digits, or null when the envelope has none. */
  eventId: string | null;
  /** The DSN the SDK was given (sent by browsers through a tunnel, and by some SDKs always). */
  dsn: string | null;
  sentAt: string | null;
  /** The whole header as sent. */
  raw: Record<string, unknown>;
};

export type EnvelopeItem = {
  /** 1-based, as error details name items. */
  position: number;
  type: string;
  headers: Record<string, unknown>;
  payload: Buffer;
};

/**
 * Where a body cut at the decoded limit (lib/sentry/body.ts) ends: the item
 * it cuts through, with its type when its header was whole. Nothing after
 * it was read.
 */
export type EnvelopeCut = { position: number; type: string | null };

export type Envelope = { header: EnvelopeHeader; items: EnvelopeItem[]; cut: EnvelopeCut | null };

const malformed = (detail: string): AppError => errors.invalidJson(`The envelope is malformed: ${detail}`);

const NEWLINE = 0x0a;
const isBlank = (byte: number) => byte === 0x20 || byte === 0x09 || byte === 0x0d || byte === NEWLINE;

/**
 * Parses an envelope body (decoded already: lib/http/body-decoding.ts).
 * Throws a 400 AppError when it is malformed. `truncated`: the body was
 * cut at the decoded limit, so its last item may end early; the items
 * before it are returned and the cut one is `cut`.
 */
export function parseEnvelope(body: Buffer, truncated = false): Envelope {
  if (!truncated) return parseItems(body, false);
  try {
    return parseItems(body, true);
  } catch (error) {
    // Not an envelope up to the cut (a decompression bomb of zeros, say): the 413 of any body past the limit.
    if (error instanceof AppError && error.status === 400) throw new AppError(413, "payload_too_large", "The envelope decodes to more than the limit.");
    throw error;
  }
}

function parseItems(body: Buffer, truncated: boolean): Envelope {
  let offset = skipBlank(body, 0);
  if (offset >= body.length) throw malformed("the body is empty; an envelope starts with a header line of JSON.");
  const first = readHeaderLine(body, offset, "its header");
  const header = envelopeHeader(first.value);
  offset = first.next;

  const items: EnvelopeItem[] = [];
  for (;;) {
    offset = skipBlank(body, offset);
    if (offset >= body.length) break;
    const position = items.length + 1;
    if (position > MAX_ENVELOPE_ITEMS) throw malformed(`it has more than ${MAX_ENVELOPE_ITEMS} items.`);
    // A header line that runs to the end of a cut body is cut too.
    if (truncated && body.indexOf(NEWLINE, offset) < 0) return { header, items, cut: { position, type: null } };
    const line = readHeaderLine(body, offset, `item ${position}'s header`);
    const headers = line.value;
    const type = headers.type;
    if (typeof type !== "string" || type.trim() === "") throw malformed(`item ${position}'s header has no "type".`);
    const start = line.next;
    let end: number;
    if (headers.length === undefined || headers.length === null) {
      const newline = body.indexOf(NEWLINE, start);
      if (newline < 0 && truncated) return { header, items, cut: { position, type: type.trim() } };
      end = newline < 0 ? body.length : newline;
    } else {
      const length = headers.length;
      if (typeof length !== "number" || !Number.isSafeInteger(length) || length < 0) {
        throw malformed(`item ${position} (${describeType(type)}) has a "length" that is not a whole number of bytes.`);
      }
      end = start + length;
      if (end > body.length && truncated) return { header, items, cut: { position, type: type.trim() } };
      if (end > body.length) {
        throw malformed(`item ${position} (${describeType(type)}) declares ${length} bytes, but only ${body.length - start} remain.`);
      }
      if (end < body.length && body[end] !== NEWLINE) {
        throw malformed(`item ${position} (${describeType(type)}): its ${length} bytes are not followed by a newline (is "length" right?).`);
      }
    }
    items.push({ position, type: type.trim(), headers, payload: body.subarray(start, end) });
    offset = end + 1;
  }
  return { header, items, cut: null };
}

function skipBlank(body: Buffer, offset: number): number {
  while (offset < body.length && isBlank(body[offset]!)) offset++;
  return offset;
}

/** One header line from `offset`: its JSON object, and where the next line starts. */
function readHeaderLine(body: Buffer, offset: number, what: string): { value: Record<string, unknown>; next: number } {
  // Look for the newline only as far as a header may reach: a body with no
  // newline is not scanned to its end for each header.
  const window = body.subarray(offset, offset + MAX_ENVELOPE_HEADER_BYTES + 1);
  const newline = window.indexOf(NEWLINE);
  if (newline < 0 && window.length > MAX_ENVELOPE_HEADER_BYTES) throw malformed(`${what} is longer than ${MAX_ENVELOPE_HEADER_BYTES} bytes.`);
  const end = newline < 0 ? body.length : offset + newline;
  let value: unknown;
  try {
    value = JSON.parse(body.toString("utf8", offset, end));
  } catch {
    throw malformed(`${what} is not valid JSON.`);
  }
  if (!isRecord(value)) throw malformed(`${what} is not a JSON object.`);
  return { value, next: Math.min(end + 1, body.length) };
}

function envelopeHeader(raw: Record<string, unknown>): EnvelopeHeader {
  let eventId: string | null = null;
  if (raw.event_id !== undefined && raw.event_id !== null) {
    eventId = normalizeEventId(raw.event_id);
    if (!eventId) throw malformed('its header\'s "event_id" is not 32 hexadecimal digits (or a UUID).');
  }
  if (raw.dsn !== undefined && raw.dsn !== null && typeof raw.dsn !== "string") throw malformed('its header\'s "dsn" is not a string.');
  return {
    eventId,
    dsn: typeof raw.dsn === "string" && raw.dsn.trim() ? raw.dsn.trim() : null,
    sentAt: typeof raw.sent_at === "string" ? raw.sent_at : null,
    raw,
  };
}

/** An item's type as error details quote it: short, printable. */
export function describeType(type: string): string {
  const printable = type.replace(/[^\x20-\x7e]/g, "?");
  return printable.length > 32 ? `${printable.slice(0, 32)}…` : printable;
}
