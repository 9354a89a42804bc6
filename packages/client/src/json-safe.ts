/**
 * Turns any value into JSON the Telltale server stores as sent. The server
 * refuses a whole batch for one bad value (a NUL character, a lone surrogate,
 * an integer beyond 2^53, nesting past 32 levels), and JSON.stringify throws
 * on cycles and BigInt: a logging call must never do either.
 */

/** Containers a context may nest, the context itself counted (the server's limit). */
export const MAX_CONTEXT_LEVELS = 32;
const MAX_ERROR_CHAIN = 8;
const MAX_AGGREGATE_ERRORS = 20;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g;

/** Text the server accepts: no NUL, no lone surrogate (each becomes U+FFFD). */
export function cleanText(text: string): string {
  let out = text.includes("\u0000") ? text.replace(/\u0000/g, "\uFFFD") : text;
  // String.prototype.isWellFormed is Node 20+; the regex is the fallback.
  const isWellFormed = (out as { isWellFormed?: () => boolean }).isWellFormed;
  const wellFormed = typeof isWellFormed === "function" ? isWellFormed.call(out) : !LONE_SURROGATE.test(out);
  LONE_SURROGATE.lastIndex = 0;
  if (!wellFormed) out = out.replace(LONE_SURROGATE, "\uFFFD");
  return out;
}

/** The first `max` characters (code points, as the server counts), never splitting a surrogate pair. */
export function clipText(text: string, max: number, marker = "…"): string {
  if (text.length <= max) return text;
  const points = Array.from(text);
  if (points.length <= max) return text;
  return points.slice(0, Math.max(0, max - marker.length)).join("") + marker;
}

/**
 * An Error, or one from another realm (a vm context, a worker's): not a
 * plain object that merely has `message` and `stack` (that is data, and is
 * what this module itself makes of errors).
 */
export function isErrorLike(value: unknown): value is Error {
  if (typeof value !== "object" || value === null) return false;
  try {
    if (value instanceof Error) return true;
    const proto = Object.getPrototypeOf(value);
    if (proto === Object.prototype || proto === null) return false;
    return Object.prototype.toString.call(value) === "[object Error]" || (typeof (value as Error).message === "string" && typeof (value as Error).stack === "string");
  } catch {
    return false;
  }
}

/** `TypeError`, or a subclass's own name when it did not set `name`. */
export function errorType(error: Error): string {
  let name: unknown;
  try {
    name = error.name;
  } catch {
    name = undefined;
  }
  let ctor: string | undefined;
  try {
    ctor = typeof error.constructor === "function" ? error.constructor.name : undefined;
  } catch {
    ctor = undefined;
  }
  if (typeof name === "string" && name && name !== "Error") return name;
  if (ctor && ctor !== "Object") return ctor;
  return typeof name === "string" && name ? name : "Error";
}

/** `Type: message`, or `Type` when the message is empty. */
export function errorTitle(error: Error): string {
  const message = safeGet(error, "message");
  const type = errorType(error);
  return typeof message === "string" && message ? `${type}: ${message}` : type;
}

function safeGet(target: object, key: PropertyKey): unknown {
  try {
    return (target as Record<PropertyKey, unknown>)[key];
  } catch {
    return undefined;
  }
}

/** A shallow copy of an object's own enumerable properties; one that throws when read says so instead. */
export function readableCopy(value: object): Record<string, unknown> {
  const copy: Record<string, unknown> = {};
  for (const key of ownKeys(value)) {
    let item: unknown;
    try {
      item = (value as Record<string, unknown>)[key];
    } catch (error) {
      item = `[unreadable: ${error instanceof Error ? error.message : "error"}]`;
    }
    Object.defineProperty(copy, key, { value: item, enumerable: true, writable: true, configurable: true });
  }
  return copy;
}

/** One error of a chain, as stored in `context.cause` / `context.errors`. */
export type ErrorInfo = { type: string; message: string; stack?: string; [property: string]: unknown };

/**
 * An error's type, message, stack and own enumerable properties (`code`,
 * `errno`, ...). Property values are left raw: the caller passes the result
 * through toJsonSafe, which also cuts a property that points back at the error.
 */
export function errorInfo(error: unknown): ErrorInfo {
  if (!isErrorLike(error)) return { type: error === null ? "null" : typeof error, message: describeThrown(error) };
  const message = safeGet(error, "message");
  const stack = safeGet(error, "stack");
  const info: ErrorInfo = { type: errorType(error), message: typeof message === "string" ? message : "" };
  if (typeof stack === "string" && stack) info.stack = stack;
  for (const key of ownKeys(error)) {
    if (key === "message" || key === "stack" || key === "name" || key === "cause" || key === "errors" || key in info) continue;
    info[key] = safeGet(error, key);
  }
  return info;
}

function ownKeys(value: object): string[] {
  try {
    return Object.keys(value);
  } catch {
    return [];
  }
}

/** A thrown value that is not an Error, as text. */
export function describeThrown(value: unknown): string {
  if (typeof value === "string") return value;
  if (value === undefined) return "undefined";
  try {
    const json = JSON.stringify(toJsonSafe(value, 1, new Set()));
    return json === undefined ? String(value) : json;
  } catch {
    return Object.prototype.toString.call(value);
  }
}

/** An error with its `cause` chain (outermost first) and an AggregateError's `errors`, bounded, cycles cut. */
export function errorDetails(error: unknown, seen: Set<unknown> = new Set([error])): ErrorInfo & { cause?: ErrorInfo[]; errors?: ErrorInfo[] } {
  const details: ErrorInfo & { cause?: ErrorInfo[]; errors?: ErrorInfo[] } = errorInfo(error);
  const causes = causeChain(error, seen);
  if (causes.length > 0) details.cause = causes;
  const errors = aggregateErrors(error, seen);
  if (errors) details.errors = errors;
  return details;
}

/**
 * What captureException puts in the context: `stack` (read by the server's
 * stack-aware grouping), `error` (type, message, own properties), `cause`
 * (the chain below, outermost first) and `errors` (an AggregateError's).
 */
export function exceptionContext(error: Error): Record<string, unknown> {
  const { stack, cause, errors, ...outer } = errorDetails(error);
  const context: Record<string, unknown> = {};
  if (stack) context.stack = stack;
  context.error = outer;
  if (cause) context.cause = cause;
  if (errors) context.errors = errors;
  return context;
}

function causeChain(error: unknown, seen: Set<unknown>): ErrorInfo[] {
  const chain: ErrorInfo[] = [];
  let current: unknown = error;
  while (chain.length < MAX_ERROR_CHAIN) {
    if (typeof current !== "object" || current === null) break;
    const cause = safeGet(current, "cause");
    if (cause === undefined) break;
    if (seen.has(cause)) {
      chain.push({ type: "Circular", message: "the cause chain loops back to an error above" });
      break;
    }
    seen.add(cause);
    chain.push(errorInfo(cause));
    current = cause;
  }
  return chain;
}

function aggregateErrors(error: unknown, seen: Set<unknown>): ErrorInfo[] | undefined {
  const errors = typeof error === "object" && error !== null ? safeGet(error, "errors") : undefined;
  if (!Array.isArray(errors)) return undefined;
  return errors.slice(0, MAX_AGGREGATE_ERRORS).map((item) => {
    if (seen.has(item)) return { type: "Circular", message: "this error appears above" };
    seen.add(item);
    const info: ErrorInfo = errorInfo(item);
    const causes = causeChain(item, seen);
    if (causes.length > 0) info.cause = causes;
    return info;
  });
}

/**
 * A JSON-safe copy of `value` at container level `level` (a context is
 * level 1). `ancestors` holds the containers above, for cycles.
 */
export function toJsonSafe(value: unknown, level: number, ancestors: Set<unknown>): unknown {
  switch (typeof value) {
    case "string":
      return cleanText(value);
    case "number":
      if (!Number.isFinite(value)) return String(value);
      // JSON would write 2^60 as digits the server cannot store exactly.
      if (Number.isInteger(value) && !Number.isSafeInteger(value) && Math.abs(value) < 1e21) return String(value);
      return value;
    case "bigint":
      return value.toString();
    case "boolean":
      return value;
    case "undefined":
    case "function":
    case "symbol":
      return undefined;
  }
  if (value === null) return null;
  const object = value as object;
  if (ancestors.has(object)) return "[Circular]";
  if (level > MAX_CONTEXT_LEVELS) return "[nested too deep]";
  try {
    if (object instanceof Date) return Number.isNaN(object.getTime()) ? "Invalid Date" : object.toISOString();
    if (isErrorLike(object)) {
      ancestors.add(object);
      const details = toJsonSafe(errorDetails(object), level, ancestors);
      ancestors.delete(object);
      return details;
    }
    const toJSON = safeGet(object, "toJSON");
    if (typeof toJSON === "function") {
      ancestors.add(object);
      const result = toJsonSafe(toJSON.call(object), level, ancestors);
      ancestors.delete(object);
      return result;
    }
    ancestors.add(object);
    try {
      if (Array.isArray(object)) return object.map((item) => toJsonSafe(item, level + 1, ancestors) ?? null);
      if (object instanceof Map) {
        const out: Record<string, unknown> = {};
        for (const [k, v] of object) {
          const safe = toJsonSafe(v, level + 1, ancestors);
          if (safe !== undefined) out[cleanText(String(k))] = safe;
        }
        return out;
      }
      if (object instanceof Set) return Array.from(object, (item) => toJsonSafe(item, level + 1, ancestors) ?? null);
      if (ArrayBuffer.isView(object)) return `[${object.constructor?.name ?? "binary"} of ${object.byteLength} bytes]`;
      if (object instanceof ArrayBuffer) return `[ArrayBuffer of ${object.byteLength} bytes]`;
      const out: Record<string, unknown> = {};
      for (const key of ownKeys(object)) {
        const safe = toJsonSafe(safeGet(object, key), level + 1, ancestors);
        // "__proto__" as an own key: defineProperty keeps it a plain key.
        if (safe !== undefined) Object.defineProperty(out, cleanText(key), { value: safe, enumerable: true, writable: true, configurable: true });
      }
      return out;
    } finally {
      ancestors.delete(object);
    }
  } catch (error) {
    return `[unserializable: ${error instanceof Error ? cleanText(error.message) : "error"}]`;
  }
}

/** The head of a stack (`Type: message`, possibly several lines) split from its frames. */
export function stackHead(stack: string): { type?: string; message: string } {
  const frames = stack.search(/\n\s+at /);
  const head = frames >= 0 ? stack.slice(0, frames) : stack;
  const colon = head.indexOf(": ");
  if (colon > 0 && /^[\w$.]+$/.test(head.slice(0, colon))) return { type: head.slice(0, colon), message: head.slice(colon + 2) };
  return { message: head };
}

/** Bytes of `text` in UTF-8, without encoding it. */
export function utf8Length(text: string): number {
  let bytes = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < text.length && (text.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return bytes;
}
