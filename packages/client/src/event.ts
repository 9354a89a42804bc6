/**
 * Builds one event the server accepts whatever the application passed:
 * levels mapped, text cleaned and clipped to the server's bounds, context made
 * JSON-safe, and an event over the size limit cut down (or refused) here,
 * because one bad event would fail its whole batch on the server.
 */
import type { CallOptions, EventDefaults, EventInput, EventUser, Level } from "./types.js";
import { cleanText, clipText, describeThrown, errorTitle, exceptionContext, isErrorLike, readableCopy, toJsonSafe, utf8Length } from "./json-safe.js";

/** The server's bounds (lib/events/schema.ts and SPEC "Releases, environments and tags"). */
export const LIMITS = {
  messageChars: 10_000,
  releaseChars: 200,
  environmentChars: 64,
  tags: 50,
  tagKeyChars: 32,
  tagValueChars: 200,
  userFieldChars: 200,
  fingerprintParts: 8,
  fingerprintPartChars: 200,
} as const;

const ERROR_LEVELS = new Set(["error", "fatal", "critical", "crit", "alert", "emerg", "emergency", "panic"]);
const WARN_LEVELS = new Set(["warn", "warning"]);

/** A level name from any logger -> Telltale's three (the original is kept by the caller when it differs). */
export function mapLevel(name: string): Level {
  const lower = name.toLowerCase();
  if (ERROR_LEVELS.has(lower)) return "error";
  if (WARN_LEVELS.has(lower)) return "warn";
  return "info";
}

export type BuildInput = {
  level: string;
  message: unknown;
  context?: unknown;
  options?: CallOptions;
  /** Makes `message` an exception: `Type: message` with its stack and causes in the context. */
  exception?: boolean;
};

/** Text of a message argument: an Error is `Type: message`. */
function messageText(message: unknown): string {
  if (typeof message === "string") return message;
  if (isErrorLike(message)) return errorTitle(message);
  if (message === undefined || message === null) return "";
  return describeThrown(message);
}

/** A context argument as an object: an Error gives its stack and causes, anything else is kept under `value`. */
function contextObject(context: unknown): Record<string, unknown> {
  if (context === undefined || context === null) return {};
  if (isErrorLike(context)) return exceptionContext(context);
  if (typeof context === "object" && !Array.isArray(context)) return readableCopy(context);
  return { value: context };
}

export function buildEvent(input: BuildInput, projectId: string, defaults: EventDefaults, now: number): EventInput {
  const level = mapLevel(typeof input.level === "string" ? input.level : "info");
  let rawContext = contextObject(input.context);
  let message: string;
  const ancestors = new Set<unknown>();
  if (input.exception) {
    if (isErrorLike(input.message)) {
      message = errorTitle(input.message);
      rawContext = { ...rawContext, ...exceptionContext(input.message) };
      ancestors.add(input.message);
    } else {
      // A thrown string or object: no stack to read, the value kept as text.
      message = typeof input.message === "string" ? `Error: ${input.message}` : `Non-Error thrown: ${describeThrown(input.message)}`;
      rawContext = { ...rawContext, thrown: input.message };
    }
  } else {
    message = messageText(input.message);
    if (isErrorLike(input.message) && !("stack" in rawContext)) rawContext = { ...exceptionContext(input.message), ...rawContext };
  }
  if (typeof input.level === "string" && input.level !== level && !("level" in rawContext)) rawContext.level = input.level;

  const event: EventInput = {
    level,
    message: clipText(cleanText(message), LIMITS.messageChars) || "(no message)",
    projectId,
  };
  const context = toJsonSafe(rawContext, 1, ancestors) as Record<string, unknown>;
  if (Object.keys(context).length > 0) event.context = context;

  const options = input.options ?? {};
  event.timestamp = timestampOf(options.timestamp, now);
  const fingerprint = fingerprintOf(options.fingerprint);
  if (fingerprint) event.fingerprint = fingerprint;
  const release = textField(options.release ?? defaults.release, LIMITS.releaseChars);
  if (release) event.release = release;
  const environment = textField(options.environment ?? defaults.environment, LIMITS.environmentChars);
  if (environment) event.environment = environment;
  const tags = tagsOf(defaults.tags, options.tags);
  if (tags) event.tags = tags;
  const user = userOf(options.user ?? defaults.user);
  if (user) event.user = user;
  return event;
}

function timestampOf(value: CallOptions["timestamp"], now: number): string {
  let ms = now;
  if (value instanceof Date) ms = value.getTime();
  else if (typeof value === "number") ms = value;
  else if (typeof value === "string") ms = Date.parse(value);
  // Years 1 to 9999 are what the server takes; anything else is now.
  if (!Number.isFinite(ms) || ms < -62_135_596_800_000 || ms > 253_402_300_799_999) ms = now;
  return new Date(ms).toISOString();
}

/**
 * A short text field (release, environment, tag, user, fingerprint part):
 * the server counts these in UTF-16 units (JavaScript's `length`), so they
 * are cut by length, never between the two halves of a surrogate pair.
 */
function textField(value: unknown, max: number): string | undefined {
  if (value === undefined || value === null) return undefined;
  let text = cleanText(String(value)).trim();
  if (text.length > max) {
    text = text.slice(0, max);
    if (/[\uD800-\uDBFF]$/.test(text)) text = text.slice(0, -1);
  }
  return text || undefined;
}

function tagsOf(...sources: (Record<string, unknown> | undefined)[]): Record<string, string> | undefined {
  const tags: Record<string, string> = {};
  let count = 0;
  // The call's tags win over the client's: read them first, keep the first of each key.
  for (const source of sources.reverse()) {
    if (!source || typeof source !== "object") continue;
    for (const [rawKey, rawValue] of Object.entries(source)) {
      const key = textField(rawKey, LIMITS.tagKeyChars);
      const value = typeof rawValue === "object" && rawValue !== null ? undefined : textField(rawValue, LIMITS.tagValueChars);
      if (!key || !value || Object.prototype.hasOwnProperty.call(tags, key)) continue;
      if (count >= LIMITS.tags) return tags;
      Object.defineProperty(tags, key, { value, enumerable: true, writable: true, configurable: true });
      count++;
    }
  }
  return count > 0 ? tags : undefined;
}

function userOf(value: EventUser | undefined): EventUser | undefined {
  if (!value || typeof value !== "object") return undefined;
  const user: EventUser = {};
  for (const field of ["id", "email", "username", "ip_address"] as const) {
    const text = textField(value[field], LIMITS.userFieldChars);
    if (text) user[field] = text;
  }
  return Object.keys(user).length > 0 ? user : undefined;
}

function fingerprintOf(value: unknown): string[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const parts = value
    .map((part) => (typeof part === "string" || typeof part === "number" ? textField(part, LIMITS.fingerprintPartChars) : undefined))
    .filter((part): part is string => part !== undefined)
    .slice(0, LIMITS.fingerprintParts);
  return parts.length > 0 ? parts : undefined;
}

/** An event as JSON of at most `maxBytes`, cut down if needed; null when even that does not fit. */
export function serializeEvent(event: EventInput, maxBytes: number): { json: string; bytes: number; truncated: boolean } | null {
  let json = JSON.stringify(event);
  let bytes = utf8Length(json);
  if (bytes <= maxBytes) return { json, bytes, truncated: false };
  const originalBytes = bytes;
  const note = (how: string) => `${how} to fit the ${maxBytes}-byte event limit (the event had ${originalBytes} bytes)`;
  // First long strings, big arrays and wide objects, more each round;
  // then only the stack; then a shorter message too.
  for (const [chars, items] of [
    [16_384, 1_000],
    [2_048, 100],
    [256, 20],
  ] as const) {
    if (!event.context) break;
    const context = { ...(shrink(event.context, chars, items) as Record<string, unknown>), telltale_truncated: note("context values cut") };
    json = JSON.stringify({ ...event, context });
    bytes = utf8Length(json);
    if (bytes <= maxBytes) return { json, bytes, truncated: true };
  }
  const stack = typeof event.context?.stack === "string" ? clipText(event.context.stack, 8_192) : undefined;
  const context: Record<string, unknown> = { telltale_truncated: note("context dropped") };
  if (stack) context.stack = stack;
  for (const message of [event.message, clipText(event.message, 1_000)]) {
    json = JSON.stringify({ ...event, message, context });
    bytes = utf8Length(json);
    if (bytes <= maxBytes) return { json, bytes, truncated: true };
  }
  return null;
}

/** A copy with strings of at most `chars`, arrays and objects of at most `items` entries. */
function shrink(value: unknown, chars: number, items: number): unknown {
  if (typeof value === "string") return value.length > chars ? clipText(value, chars, `… [${value.length - chars} more characters]`) : value;
  if (Array.isArray(value)) {
    const kept = value.slice(0, items).map((item) => shrink(item, chars, items));
    if (value.length > items) kept.push(`[${value.length - items} more items]`);
    return kept;
  }
  if (value && typeof value === "object") {
    const out: Record<string, unknown> = {};
    const entries = Object.entries(value);
    for (const [key, item] of entries.slice(0, items)) Object.defineProperty(out, key, { value: shrink(item, chars, items), enumerable: true, writable: true, configurable: true });
    if (entries.length > items) out.telltale_more_keys = entries.length - items;
    return out;
  }
  return value;
}
