/**
 * What the event store refuses (lib/events/schema.ts: no NUL character, no
 * lone UTF-16 surrogate, nesting of at most 32 levels) made storable instead
 * of refused: an SDK sends what its application had, and the event matters
 * more than one odd string. Numbers parsed are exact already
 * (lib/sentry/json.ts); integers past 2^53 and non-finite numbers given in
 * code become text too.
 */
import { MAX_DEPTH } from "@/lib/events/schema";

/** Levels a context may nest, the context object itself being level 1: the native API's rule. */
const MAX_CONTEXT_DEPTH = MAX_DEPTH;

/** What replaces a NUL character or a lone surrogate. */
const REPLACEMENT = "\uFFFD";

/** `text` with NUL characters and lone surrogates replaced by U+FFFD. */
export function storableText(text: string): string {
  const fixed = text.includes("\u0000") ? text.replaceAll("\u0000", REPLACEMENT) : text;
  return fixed.isWellFormed() ? fixed : fixed.toWellFormed();
}

/** What making a value storable changed, for the event's trimming notes. */
export type StorableReport = { textFixed: number; cut: number };

/**
 * `value` made storable, in place where it can be (the parsed payload is
 * ours): strings and keys fixed, containers at `depth` past the limit
 * replaced by "[Object]" or "[Array]" (as the Sentry SDKs' own normalizer
 * writes them). `depth` is the level `value` would sit at.
 */
export function makeStorable(value: unknown, depth: number, report: StorableReport): unknown {
  if (typeof value === "string") {
    const fixed = storableText(value);
    if (fixed !== value) report.textFixed++;
    return fixed;
  }
  if (typeof value === "number") {
    // Parsed JSON never has these (lib/sentry/json.ts); a value built in code may.
    return !Number.isFinite(value) || (Number.isInteger(value) && !Number.isSafeInteger(value)) ? String(value) : value;
  }
  if (value === null || typeof value !== "object") return value;
  if (depth > MAX_CONTEXT_DEPTH) {
    report.cut++;
    return Array.isArray(value) ? "[Array]" : "[Object]";
  }
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) value[i] = makeStorable(value[i], depth + 1, report);
    return value;
  }
  const object = value as Record<string, unknown>;
  for (const key of Object.keys(object)) {
    const fixedKey = storableText(key);
    const item = makeStorable(object[key], depth + 1, report);
    if (fixedKey === key) {
      // Assignment to an own "__proto__" data property (JSON.parse makes
      // one) sets that property, not the prototype.
      object[key] = item;
    } else {
      report.textFixed++;
      delete object[key];
      if (!Object.hasOwn(object, fixedKey)) defineValue(object, fixedKey, item);
    }
  }
  return object;
}

/** Sets `key` as an own data property, also when it is "__proto__". */
export function defineValue(object: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(object, key, { value, writable: true, enumerable: true, configurable: true });
}

/**
 * `value` as JSON text, containers past `maxDepth` written as "[Object]" or
 * "[Array]": JSON.stringify recurses without bound, and a parsed payload may
 * nest a million levels (JSON.parse does not recurse).
 */
export function boundedJson(value: unknown, maxDepth = MAX_CONTEXT_DEPTH): string {
  const cut = (item: unknown, depth: number): unknown => {
    if (item === null || typeof item !== "object") return item;
    if (depth > maxDepth) return Array.isArray(item) ? "[Array]" : "[Object]";
    if (Array.isArray(item)) return item.map((element) => cut(element, depth + 1));
    const copy: Record<string, unknown> = {};
    for (const key of Object.keys(item)) defineValue(copy, key, cut((item as Record<string, unknown>)[key], depth + 1));
    return copy;
  };
  return JSON.stringify(cut(value, 1)) ?? "";
}
