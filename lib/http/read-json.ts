import { errors } from "@/lib/http/errors";

/** True for application/json and application/*+json, with any parameters. */
export function isJsonContentType(value: string | null): boolean {
  if (!value) return false;
  const type = value.split(";")[0]!.trim().toLowerCase();
  return type === "application/json" || (type.startsWith("application/") && type.endsWith("+json"));
}

/**
 * The one place that reads a request body: checks the content type, stops
 * reading as soon as the body passes `limitBytes` (a lying or absent
 * Content-Length changes nothing), and parses JSON.
 */
export async function readJsonBody(request: Request, limitBytes: number): Promise<unknown> {
  if (!isJsonContentType(request.headers.get("content-type"))) throw errors.unsupportedMediaType();

  const declared = Number(request.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > limitBytes) {
    await request.body?.cancel().catch(() => {});
    throw errors.payloadTooLarge(limitBytes);
  }

  const text = await readLimitedText(request, limitBytes);
  if (text.trim() === "") throw errors.invalidJson("The request body is empty; send one JSON value.");
  try {
    return JSON.parse(text);
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
      await reader.cancel().catch(() => {});
      throw errors.payloadTooLarge(limitBytes);
    }
    chunks.push(value);
  }
  return decodeUtf8(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total));
}

function decodeUtf8(bytes: Uint8Array): string {
  // fatal: invalid UTF-8 is a client error, not silently replaced text.
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw errors.invalidJson("The request body is not valid UTF-8.");
  }
}
