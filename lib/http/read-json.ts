import { errors, type FieldProblem } from "@/lib/http/errors";
import { parseStrictJson } from "@/lib/http/strict-json";

/** True for application/json and application/*+json, with any parameters. */
export function isJsonContentType(value: string | null): boolean {
  if (!value) return false;
  const type = value.split(";")[0]!.trim().toLowerCase();
  return type === "application/json" || (type.startsWith("application/") && type.endsWith("+json"));
}

/** A parsed body, and what strict parsing found wrong in it (validation problems, with paths). */
export type JsonBody = { value: unknown; problems: FieldProblem[] };

/** Containers (objects and arrays) a body may nest, counting its root. */
export const DEFAULT_MAX_BODY_DEPTH = 64;

/**
 * The one place that reads a request body: checks the content type, stops
 * reading as soon as the body passes `limitBytes` (a lying or absent
 * Content-Length changes nothing), and parses JSON strictly: duplicate keys,
 * numbers a double would alter and nesting past `maxDepth` come back as
 * problems (400 validation_failed, listed with the body's other problems).
 */
export async function readJsonBody(
  request: Request,
  limitBytes: number,
  { maxDepth = DEFAULT_MAX_BODY_DEPTH, tooDeep }: { maxDepth?: number; tooDeep?: string } = {},
): Promise<JsonBody> {
  if (!isJsonContentType(request.headers.get("content-type"))) throw errors.unsupportedMediaType();
  // A coding the service does not decode (gzip, br, ...) would be read, or
  // stored, as if it were the JSON text (RFC 9110 §8.4: 415).
  const coding = request.headers.get("content-encoding")?.trim().toLowerCase();
  if (coding && coding !== "identity") throw errors.unsupportedContentEncoding();

  const declared = Number(request.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > limitBytes) {
    if (request.body) discardRest(request.body.getReader(), declared);
    throw errors.payloadTooLarge(limitBytes);
  }

  const text = await readLimitedText(request, limitBytes);
  if (text.trim() === "") throw errors.invalidJson("The request body is empty; send one JSON value.");
  try {
    return parseStrictJson(text, { maxDepth, tooDeep });
  } catch (error) {
    const reason = error instanceof SyntaxError ? ` ${error.message}` : "";
    throw errors.invalidJson(`The request body is not valid JSON.${reason}`);
  }
}

async function readLimitedText(request: Request, limitBytes: number): Promise<string> {
  if (!request.body) return "";
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > limitBytes) {
      discardRest(reader, DISCARD_MAX_BYTES);
      throw errors.payloadTooLarge(limitBytes);
    }
    chunks.push(value);
  }
  return decodeUtf8(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total));
}

/** What is still read (and dropped) of a refused body, at most, so that its sender sees the answer. */
const DISCARD_MAX_BYTES = 32 * 1024 * 1024;
const DISCARD_MAX_MS = 5_000;

/**
 * Reads what the client is still sending of a refused body and drops it,
 * while the refusal (413) goes out. Cancelling the body at once would close
 * the connection under a client that is still writing: its TCP stack gets a
 * reset, and most HTTP clients then report a broken connection instead of
 * the 413 already on its way. Past `budgetBytes` (at most 32 MiB) or 5 s
 * the body is cancelled after all: nothing is buffered either way.
 */
function discardRest(reader: ReadableStreamDefaultReader<Uint8Array>, budgetBytes: number): void {
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

function decodeUtf8(bytes: Uint8Array): string {
  // fatal: invalid UTF-8 is a client error, not silently replaced text.
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw errors.invalidJson("The request body is not valid UTF-8.");
  }
}
