import type { FieldProblem } from "@/lib/http/errors";

/**
 * JSON.parse keeps the last of two equal keys and rounds numbers it cannot
 * hold (1e400 becomes Infinity, then null; 12345678901234567890 loses its last
 * digits) without a word: a silently altered value is worse than a refusal.
 * One linear pass over the text finds what JSON.parse would hide (duplicate
 * keys, numbers it would change, nesting past the limit), with each
 * problem's path; then JSON.parse builds the value (and judges the syntax).
 * About twice the cost of JSON.parse alone, far less than a general-purpose
 * lossless parser (docs/performance.md#figures-behind-the-code).
 */

export const NUMBER_MESSAGE = "This number cannot be stored exactly (it is too large, too small or too precise for a double): send it as a string.";
export const NEGATIVE_ZERO_MESSAGE = "Negative zero cannot be stored as such (stored JSON writes it as 0): send 0, or \"-0\" as a string.";
export const DUPLICATE_KEY_MESSAGE = "This field name appears twice in the same object: give each name once.";

/**
 * `raw` (a JSON number token) read as a double is exactly the number written,
 * and survives being written out again: not negative zero, which JSON
 * serializers (JSON.stringify, PostgreSQL's jsonb) write as 0.
 */
export function isExactNumber(raw: string): boolean {
  const n = Number(raw);
  if (!Number.isFinite(n) || Object.is(n, -0)) return false;
  // Integers beyond 2^53: other languages read them as 64-bit integers, JavaScript cannot.
  if (!/[.eE]/.test(raw)) return Number.isSafeInteger(n);
  return significantDigits(raw) === significantDigits(String(Math.abs(n)));
}

/** The number token at `start` begins "-0" (every spelling of negative zero does). */
export function isMinusZeroStart(text: string, start: number): boolean {
  return text.charCodeAt(start) === 45 && text.charCodeAt(start + 1) === 48;
}

function significantDigits(text: string): string {
  const mantissa = text.replace(/^-/, "").replace(/e.*$/i, "").replace(".", "");
  return mantissa.replace(/^0+/, "").replace(/0+$/, "");
}

/** Where the number token at `start` ends (its characters taken loosely: JSON.parse judges the form). */
export function numberTokenEnd(text: string, start: number): number {
  let i = start + 1;
  for (const n = text.length; i < n; i++) {
    const d = text.charCodeAt(i);
    if (!((d >= 48 && d <= 57) || d === 43 || d === 45 || d === 46 || d === 101 || d === 69)) break;
  }
  return i;
}

/**
 * Whether the number token text[start, end) needs isExactNumber: not when it
 * has at most 15 digits and no exponent (a plain integer, a timestamp in
 * seconds, a line number), which a double always holds exactly (it keeps
 * any 15 significant digits) and which is below 2^53.
 */
export function mayBeInexact(text: string, start: number, end: number): boolean {
  if (end - start > 17) return true;
  let digits = 0;
  for (let i = start; i < end; i++) {
    const d = text.charCodeAt(i);
    if (d >= 48 && d <= 57) digits++;
    else if (d === 101 || d === 69) return true;
  }
  return digits > 15;
}

// An object's keys so far: an array while it is small (a Set per object cost
// more than the search), a Set past SMALL_OBJECT_KEYS.
type Frame = { keys: string[] | Set<string> | null; key: string; index: number };
const SMALL_OBJECT_KEYS = 16;

/** Adds `key` to the object's keys; false when it was already there. */
function addKey(frame: Frame, key: string): boolean {
  const keys = frame.keys!;
  if (Array.isArray(keys)) {
    if (keys.includes(key)) return false;
    keys.push(key);
    if (keys.length > SMALL_OBJECT_KEYS) frame.keys = new Set(keys);
    return true;
  }
  if (keys.has(key)) return false;
  keys.add(key);
  return true;
}

export type StrictJsonResult = { value: unknown; problems: FieldProblem[] } | { value: undefined; problems: FieldProblem[]; tooDeep: true };

/**
 * Parses `text` as JSON (throws SyntaxError for invalid JSON) and reports
 * duplicate keys and inexact numbers with their paths. Containers nested
 * deeper than `maxDepth` are reported at the first such path and the value
 * is not built (JSON.parse itself would recurse without bound).
 *
 * Most bodies have nothing to report, and finding that out needs no key
 * kept: a pass that only counts keys (and checks numbers and nesting), then
 * JSON.parse, whose objects hold as many keys as the text names exactly
 * when no key repeats (a repeat drops at least itself). Anything else
 * (invalid JSON too) is read again by the full pass, which names the
 * problems or throws.
 */
export function parseStrictJson(text: string, options: { maxDepth: number; tooDeep?: string }): StrictJsonResult {
  const keys = countKeysIfPlain(text, options.maxDepth);
  if (keys >= 0) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      // The full pass throws, with its own message (a bad escape in a key is found there first).
      return parseStrictJsonFully(text, options);
    }
    if (keysIn(value) === keys) return { value, problems: [] };
  }
  return parseStrictJsonFully(text, options);
}

/** Container kinds by level for countKeysIfPlain (1: object), grown to the deepest limit asked for. */
let kinds = new Uint8Array(128);

/**
 * The number of keys `text` names, when it has no number that needs
 * checking, no container past `maxDepth` and no unterminated string; else
 * -1. Allocates nothing.
 */
function countKeysIfPlain(text: string, maxDepth: number): number {
  if (kinds.length <= maxDepth) kinds = new Uint8Array(maxDepth + 1);
  // An enumerable property on Object's prototype would count in every object (keysIn uses for...in).
  if (Object.keys(Object.prototype).length > 0) return -1;
  const n = text.length;
  let keys = 0;
  let depth = 0;
  let expectKey = false;
  for (let i = 0; i < n; ) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      const start = i + 1;
      let end = start;
      for (;;) {
        end = text.indexOf('"', end);
        if (end < 0) return -1;
        let backslashes = 0;
        for (let j = end - 1; j >= start && text.charCodeAt(j) === 92; j--) backslashes++;
        if (backslashes % 2 === 0) break;
        end++;
      }
      if (expectKey) {
        keys++;
        expectKey = false;
      }
      i = end + 1;
      continue;
    }
    if (c === 123 /* { */ || c === 91 /* [ */) {
      if (depth >= maxDepth) return -1;
      kinds[++depth] = c === 123 ? 1 : 0;
      expectKey = c === 123;
      i++;
      continue;
    }
    if (c === 125 /* } */ || c === 93 /* ] */) {
      if (depth > 0) depth--;
      expectKey = false;
      i++;
      continue;
    }
    if (c === 44 /* , */) {
      if (kinds[depth] === 1) expectKey = true;
      i++;
      continue;
    }
    if (c === 45 /* - */ || (c >= 48 && c <= 57)) {
      const start = i;
      i = numberTokenEnd(text, i);
      if ((mayBeInexact(text, start, i) || isMinusZeroStart(text, start)) && !isExactNumber(text.slice(start, i))) return -1;
      continue;
    }
    i++;
  }
  return keys;
}

/** Keys of every object in a parsed value (nested at most as deep as countKeysIfPlain allowed). */
function keysIn(value: unknown): number {
  if (value === null || typeof value !== "object") return 0;
  let n = 0;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) n += keysIn(value[i]);
    return n;
  }
  for (const key in value) n += 1 + keysIn((value as Record<string, unknown>)[key]);
  return n;
}

/** parseStrictJson's full pass: every key kept per object, every problem with its path. */
export function parseStrictJsonFully(text: string, { maxDepth, tooDeep = `Nesting is deeper than ${maxDepth} levels.` }: { maxDepth: number; tooDeep?: string }): StrictJsonResult {
  const problems: FieldProblem[] = [];
  const stack: Frame[] = [];
  const path = () => stack.map((f) => (f.keys ? f.key : String(f.index))).join(".");
  const n = text.length;
  let expectKey = false;
  // Where the next backslash is, found once and moved only past it: looking
  // for one from each string's start scanned to the end of the text for
  // every string (quadratic in a batch body without any).
  let nextBackslash = text.indexOf("\\");
  for (let i = 0; i < n; ) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) {
      const start = i + 1;
      let end = start;
      let escaped = false;
      for (;;) {
        end = text.indexOf('"', end);
        if (end < 0) throw new SyntaxError("Unterminated string in JSON.");
        let backslashes = 0;
        for (let j = end - 1; j >= start && text.charCodeAt(j) === 92; j--) backslashes++;
        if (backslashes % 2 === 0) break;
        escaped = true;
        end++;
      }
      if (nextBackslash >= 0 && nextBackslash < start) nextBackslash = text.indexOf("\\", start);
      if (!escaped && nextBackslash >= 0 && nextBackslash < end) escaped = true;
      if (expectKey) {
        const frame = stack[stack.length - 1]!;
        const raw = text.slice(start, end);
        const key = escaped ? (JSON.parse(`"${raw}"`) as string) : raw;
        frame.key = key;
        if (!addKey(frame, key)) problems.push({ path: path(), message: DUPLICATE_KEY_MESSAGE });
        expectKey = false;
      }
      i = end + 1;
      continue;
    }
    if (c === 123 /* { */ || c === 91 /* [ */) {
      if (stack.length >= maxDepth) {
        // The first container past the limit; later ones are the same problem.
        problems.push({ path: path(), message: tooDeep });
        return { value: undefined, problems, tooDeep: true };
      }
      stack.push({ keys: c === 123 ? [] : null, key: "", index: 0 });
      expectKey = c === 123;
      i++;
      continue;
    }
    if (c === 125 /* } */ || c === 93 /* ] */) {
      stack.pop();
      // An empty object leaves a key expected: what follows it in an array is a value.
      expectKey = false;
      i++;
      continue;
    }
    if (c === 44 /* , */) {
      const frame = stack[stack.length - 1];
      if (frame) {
        if (frame.keys) expectKey = true;
        else frame.index++;
      }
      i++;
      continue;
    }
    if (c === 45 /* - */ || (c >= 48 && c <= 57)) {
      const start = i;
      i = numberTokenEnd(text, i);
      // Short numbers without an exponent are exact, but for -0 (written back as 0).
      if (mayBeInexact(text, start, i) || isMinusZeroStart(text, start)) {
        const raw = text.slice(start, i);
        if (!isExactNumber(raw)) problems.push({ path: path(), message: Object.is(Number(raw), -0) ? NEGATIVE_ZERO_MESSAGE : NUMBER_MESSAGE });
      }
      continue;
    }
    i++;
  }
  return { value: JSON.parse(text), problems };
}
