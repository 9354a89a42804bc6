import { readRequestBody } from "@/lib/http/body-decoding";
import { errors, type FieldProblem } from "@/lib/http/errors";
import { parseStrictJson } from "@/lib/http/strict-json";

/** True for application/json and application/*+json, with any parameters. */
export function isJsonContentType(value: string | null): boolean {
  if (!value) return false;
  const type = value.split(";")[0]!.trim().toLowerCase();
  return type === "application/json" || (type.startsWith("application/") && type.endsWith("+json"));
}

/** True for newline-delimited JSON: application/x-ndjson, application/jsonl and the like. */
export function isNdjsonContentType(value: string | null): boolean {
  const type = value?.split(";")[0]!.trim().toLowerCase();
  return type === "application/x-ndjson" || type === "application/ndjson" || type === "application/jsonl" || type === "application/x-jsonlines" || type === "application/jsonlines";
}

/**
 * A parsed body, and what strict parsing found wrong in it (validation
 * problems, with paths). `plain`, when reading vouches for it: the text had
 * no `\u` escape, so (being valid UTF-8 JSON) none of its strings or keys
 * holds a NUL character or a lone surrogate, and no container nests deeper
 * than `maxDepth` (counting the root).
 */
export type JsonBody = { value: unknown; problems: FieldProblem[]; plain?: { maxDepth: number } };

/** Containers (objects and arrays) a body may nest, counting its root. */
export const DEFAULT_MAX_BODY_DEPTH = 64;

/**
 * The one place that reads a JSON request body: checks the content type,
 * undoes a Content-Encoding (gzip, deflate, br) while reading, stops as
 * soon as the body passes `limitBytes` as sent or `maxDecodedBytes` once
 * decoded (default: `limitBytes`; a lying or absent Content-Length changes
 * nothing; lib/http/body-decoding.ts), and parses JSON strictly: duplicate
 * keys, numbers a double would alter and nesting past `maxDepth` come back
 * as problems (400 validation_failed, listed with the body's other problems).
 */
export async function readJsonBody(
  request: Request,
  limitBytes: number,
  { maxDepth = DEFAULT_MAX_BODY_DEPTH, tooDeep, maxDecodedBytes = limitBytes }: { maxDepth?: number; tooDeep?: string; maxDecodedBytes?: number } = {},
): Promise<JsonBody> {
  if (!isJsonContentType(request.headers.get("content-type"))) throw errors.unsupportedMediaType();
  const text = decodeUtf8(await readRequestBody(request, { maxBytes: limitBytes, maxDecodedBytes }));
  if (text.trim() === "") throw errors.invalidJson("The request body is empty; send one JSON value.");
  try {
    const parsed = parseStrictJson(text, { maxDepth, tooDeep });
    return text.includes("\\u") ? parsed : { ...parsed, plain: { maxDepth } };
  } catch (error) {
    const reason = error instanceof SyntaxError ? ` ${error.message}` : "";
    throw errors.invalidJson(`The request body is not valid JSON.${reason}`);
  }
}

/**
 * A newline-delimited JSON body (one value per line; blank lines skipped),
 * read and limited as readJsonBody reads JSON: its value is the array of
 * the lines' values, and each line's problems have its index as their path's
 * first part (`3.context.n`). A line that is not JSON is invalid_json naming it.
 */
export async function readNdjsonBody(
  request: Request,
  limitBytes: number,
  { maxDepth = DEFAULT_MAX_BODY_DEPTH, tooDeep, maxDecodedBytes = limitBytes }: { maxDepth?: number; tooDeep?: string; maxDecodedBytes?: number } = {},
): Promise<JsonBody> {
  if (!isNdjsonContentType(request.headers.get("content-type"))) throw errors.unsupportedMediaType();
  const text = decodeUtf8(await readRequestBody(request, { maxBytes: limitBytes, maxDecodedBytes }));
  const values: unknown[] = [];
  const problems: FieldProblem[] = [];
  text.split("\n").forEach((line, lineIndex) => {
    if (line.trim() === "") return;
    const index = values.length;
    let parsed;
    try {
      parsed = parseStrictJson(line, { maxDepth, tooDeep });
    } catch (error) {
      const reason = error instanceof SyntaxError ? ` ${error.message}` : "";
      throw errors.invalidJson(`Line ${lineIndex + 1} of the request body is not valid JSON.${reason}`);
    }
    values.push(parsed.value);
    for (const p of parsed.problems) problems.push({ path: p.path ? `${index}.${p.path}` : String(index), message: p.message });
  });
  if (values.length === 0) throw errors.invalidJson("The request body is empty; send one JSON value per line.");
  return { value: values, problems };
}

function decodeUtf8(bytes: Uint8Array): string {
  // fatal: invalid UTF-8 is a client error, not silently replaced text.
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw errors.invalidJson("The request body is not valid UTF-8.");
  }
}
