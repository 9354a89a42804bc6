import { Readable, Transform, type TransformCallback } from "node:stream";
import { pipeline } from "node:stream/promises";
import { createBrotliDecompress, createGunzip, createInflate, createInflateRaw } from "node:zlib";
import { AppError, errors } from "@/lib/http/errors";

/**
 * Reading a request body with its Content-Encoding undone (RFC 9110 §8.4):
 * gzip, deflate (zlib-wrapped, or raw as some clients send it) and br. Two
 * limits hold while the bytes stream in: on the body as sent, and on what
 * it decodes to. A decompression bomb (a few KB that inflate to gigabytes)
 * is stopped at the decoded limit with a 413, having held at most that much
 * plus one zlib chunk (16 KiB) in memory.
 */

export const CONTENT_CODINGS = ["gzip", "deflate", "br"] as const;
export type ContentCoding = (typeof CONTENT_CODINGS)[number];

/** What Accept-Encoding a 415 for an unknown coding advertises. */
export const ACCEPTED_ENCODINGS = "gzip, deflate, br, identity";


export type BodyLimits = {
  /** Bytes of the body as sent (compressed or not). */
  maxBytes: number;
  /** Bytes of the body once decoded; for an identity body the smaller of the two limits holds. */
  maxDecodedBytes: number;
};

function unsupportedCoding(coding: string): AppError {
  return new AppError(
    415,
    "unsupported_media_type",
    `Content-Encoding "${coding.slice(0, 40)}" is not supported: send the body uncompressed, or with gzip, deflate or br.`,
    { headers: { "Accept-Encoding": ACCEPTED_ENCODINGS } },
  );
}

/**
 * The coding of a Content-Encoding header, or null for none. `identity` and
 * empty entries mean nothing (sentry-ruby sends an empty header for small
 * bodies); `x-gzip` is gzip (RFC 9110 §8.4.1.3). Anything else is a 415
 * naming the coding, and so are two codings stacked ("deflate, gzip"),
 * which no client sends and each of which would be one more bomb to defuse.
 */
export function parseContentEncoding(header: string | null): ContentCoding | null {
  if (!header) return null;
  let found: ContentCoding | null = null;
  for (const part of header.split(",")) {
    const coding = part.trim().toLowerCase();
    if (coding === "" || coding === "identity") continue;
    const known = coding === "x-gzip" ? "gzip" : coding;
    if (!(CONTENT_CODINGS as readonly string[]).includes(known)) throw unsupportedCoding(coding);
    if (found) throw unsupportedCoding(header.trim());
    found = known as ContentCoding;
  }
  return found;
}

/** A 413 for a body past `limit`: as sent, or once decoded. */
export function tooLarge(limit: number, decoded: boolean): AppError {
  return decoded
    ? new AppError(413, "payload_too_large", `The request body decodes to more than the limit of ${limit} bytes.`)
    : errors.payloadTooLarge(limit);
}

/**
 * The body of `request`, its Content-Encoding undone, within `limits`:
 * 413 `payload_too_large` past either limit (a declared Content-Length past
 * the limit is refused before reading), 415 for a coding not supported, 400
 * `invalid_json` for a stream that does not decode (corrupt, truncated).
 * A client that hangs up mid-body rejects with the stream's own error.
 */
export async function readRequestBody(request: Request, limits: BodyLimits): Promise<Buffer> {
  return (await readBody(request, limits, false)).body;
}

/**
 * Like readRequestBody, but a body that decodes past `maxDecodedBytes` is
 * cut there (`truncated: true`) rather than refused: decoding stops at the
 * limit, so a bomb costs no more than a refused one. For a caller that can
 * still use the start of a body (a Sentry envelope whose event comes before
 * a large attachment).
 */
export function readRequestBodyPrefix(request: Request, limits: BodyLimits): Promise<{ body: Buffer; truncated: boolean }> {
  return readBody(request, limits, true);
}

/** `truncate`: past the decoded limit, its first bytes and `truncated` rather than a 413 (the limit on a compressed body as sent still holds). */
async function readBody(request: Request, limits: BodyLimits, truncate: boolean): Promise<{ body: Buffer; truncated: boolean }> {
  const coding = parseContentEncoding(request.headers.get("content-encoding"));
  const rawLimit = coding === null ? Math.min(limits.maxBytes, limits.maxDecodedBytes) : limits.maxBytes;
  const declared = Number(request.headers.get("content-length"));
  // An identity body past the limit can still be cut; a compressed one past maxBytes cannot.
  if (Number.isFinite(declared) && declared > rawLimit && !(truncate && coding === null)) {
    if (request.body) discardRest(request.body.getReader(), declared);
    throw tooLarge(rawLimit, false);
  }
  if (!request.body) return { body: Buffer.alloc(0), truncated: false };
  const reader = request.body.getReader();
  if (coding === null) return readLimited(reader, rawLimit, truncate);
  return decodeLimited(reader, coding, limits, truncate);
}

/** The identity path, kept free of stream machinery: most bodies take it. */
async function readLimited(reader: ReadableStreamDefaultReader<Uint8Array>, limit: number, truncate: boolean): Promise<{ body: Buffer; truncated: boolean }> {
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    if (total + value.byteLength > limit) {
      discardRest(reader, DISCARD_MAX_BYTES);
      if (!truncate) throw tooLarge(limit, false);
      chunks.push(value.subarray(0, limit - total));
      return { body: Buffer.concat(chunks, limit), truncated: true };
    }
    total += value.byteLength;
    chunks.push(value);
  }
  if (chunks.length === 1) return { body: Buffer.from(chunks[0]!.buffer, chunks[0]!.byteOffset, chunks[0]!.byteLength), truncated: false };
  return { body: Buffer.concat(chunks, total), truncated: false };
}

/** Marks an error of the request's own stream (a client that went away), which is not the body's fault. */
class SourceError extends Error {
  constructor(readonly original: unknown) {
    super("request body stream failed");
  }
}

async function decodeLimited(
  reader: ReadableStreamDefaultReader<Uint8Array>,
  coding: ContentCoding,
  limits: BodyLimits,
  truncate: boolean,
): Promise<{ body: Buffer; truncated: boolean }> {
  let finished = false;
  let sent = 0;
  const read = async (): Promise<Uint8Array | null> => {
    let chunk: ReadableStreamReadResult<Uint8Array>;
    try {
      chunk = await reader.read();
    } catch (error) {
      throw new SourceError(error);
    }
    if (chunk.done) {
      finished = true;
      return null;
    }
    sent += chunk.value.byteLength;
    if (sent > limits.maxBytes) throw tooLarge(limits.maxBytes, false);
    return chunk.value;
  };
  // Refused mid-way (a limit, a corrupt stream): drain what the client still
  // sends, so that it reads the answer.
  const drain = () => {
    if (!finished) discardRest(reader, DISCARD_MAX_BYTES);
    finished = true;
  };

  // deflate's first two bytes say whether the stream is zlib-wrapped or raw.
  const head: Uint8Array[] = [];
  let headBytes = 0;
  try {
    while (coding === "deflate" && headBytes < 2) {
      const chunk = await read();
      if (!chunk) break;
      head.push(chunk);
      headBytes += chunk.byteLength;
    }
  } catch (error) {
    if (error instanceof SourceError) throw error.original;
    drain();
    throw error;
  }
  async function* source(): AsyncGenerator<Uint8Array> {
    try {
      yield* head;
      for (;;) {
        const chunk = await read();
        if (!chunk) return;
        yield chunk;
      }
    } finally {
      drain();
    }
  }

  const chunks: Buffer[] = [];
  let total = 0;
  const limit = new DecodedLimit(limits.maxDecodedBytes, truncate);
  try {
    await pipeline(Readable.from(source(), { objectMode: false }), decoderFor(coding, Buffer.concat(head)), limit, async (decoded: AsyncIterable<Buffer>) => {
      for await (const chunk of decoded) {
        chunks.push(chunk);
        total += chunk.byteLength;
      }
    });
  } catch (error) {
    // Cut at the limit: decoding stopped there, and what came before it is whole.
    if (error === CUT) return { body: Buffer.concat(limit.kept), truncated: true };
    if (error instanceof AppError) throw error;
    if (error instanceof SourceError) throw error.original;
    throw errors.invalidJson(`The request body is not valid ${coding} data: ${describeZlibError(error)}.`);
  }
  return { body: truncate ? Buffer.concat(limit.kept) : Buffer.concat(chunks, total), truncated: false };
}

/** Stops the pipeline where a body is cut (not an error of the body). */
const CUT = new Error("decoded body cut at its limit");

function describeZlibError(error: unknown): string {
  const message = error instanceof Error ? error.message : "";
  if (/unexpected end/i.test(message)) return "it ends before the compressed stream does";
  if (/header/i.test(message)) return "its header is wrong";
  return "the compressed data is corrupt";
}

/**
 * Counts what the decoder produced and stops it at the limit: a 413, or
 * with `truncate` the first `limit` bytes kept here (`kept`, whole up to
 * the cut however the pipeline ends) and the pipeline stopped with CUT.
 */
class DecodedLimit extends Transform {
  private total = 0;
  readonly kept: Buffer[] = [];
  constructor(
    private readonly limit: number,
    private readonly truncate: boolean,
  ) {
    super();
  }
  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    const before = this.total;
    this.total += chunk.byteLength;
    if (this.total > this.limit) {
      if (!this.truncate) return done(tooLarge(this.limit, true));
      this.kept.push(chunk.subarray(0, this.limit - before));
      return done(CUT);
    }
    if (!this.truncate) return done(null, chunk);
    this.kept.push(chunk);
    done();
  }
}

/**
 * `deflate` is meant to be zlib-wrapped (RFC 1950), but some clients send a
 * raw deflate stream (RFC 1951): a zlib header names method 8 in its first
 * byte, and its first two bytes read as a number are a multiple of 31.
 */
function decoderFor(coding: ContentCoding, head: Buffer): NodeJS.ReadWriteStream {
  if (coding === "gzip") return createGunzip();
  if (coding === "br") return createBrotliDecompress();
  const zlibWrapped = head.length >= 2 && (head[0]! & 0x0f) === 8 && ((head[0]! << 8) | head[1]!) % 31 === 0;
  return zlibWrapped ? createInflate() : createInflateRaw();
}

/** What is still read (and dropped) of a refused body, at most, so that its sender sees the answer (here, and by lib/edge/direct-ingest.ts's linger). */
export const DISCARD_MAX_BYTES = 32 * 1024 * 1024;
export const DISCARD_MAX_MS = 5_000;

/**
 * Reads what the client is still sending of a refused body and drops it,
 * while the refusal (413) goes out. Cancelling the body at once would close
 * the connection under a client that is still writing: its TCP stack gets a
 * reset, and most HTTP clients then report a broken connection instead of
 * the 413 already on its way. Past `budgetBytes` (at most 32 MiB) or 5 s
 * the body is cancelled after all: nothing is buffered either way.
 */
export function discardRest(reader: ReadableStreamDefaultReader<Uint8Array>, budgetBytes: number): void {
  let left = Math.min(budgetBytes, DISCARD_MAX_BYTES);
  const stop = () => void reader.cancel().catch(() => {});
  const timer = setTimeout(stop, DISCARD_MAX_MS);
  timer.unref?.();
  void (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) return;
        left -= value.byteLength;
        if (left < 0) return stop();
      }
    } catch {
      // the client went away: nothing left to drop
    } finally {
      clearTimeout(timer);
    }
  })();
}
