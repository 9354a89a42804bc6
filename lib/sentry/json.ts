import { isExactNumber, isMinusZeroStart, mayBeInexact, numberTokenEnd } from "@/lib/http/strict-json";

/**
 * JSON from Sentry SDKs, parsed without losing anything silently: a number
 * that a double would alter (an integer beyond 2^53 such as a 64-bit id,
 * 1e400, more digits than a double keeps), or that is an integer beyond
 * 2^53 at all (1e20), comes back as a string of its exact digits, where
 * JSON.parse would round it; so does negative zero (-0.0 from Python),
 * which stored JSON would write as 0. Unlike the native API,
 * which refuses such numbers (its client can resend them as strings), an
 * SDK's payload is not ours to refuse for a detail it cannot change.
 * A key given twice keeps its last value, as in every JSON parser SDKs use.
 * Throws SyntaxError for text that is not JSON.
 */
export function parseSdkJson(text: string): unknown {
  return readSdkJson(text).value;
}

/** parseSdkJson's value, and how deep the text's containers nest (the root is level 1; 0 for a scalar). */
export function readSdkJson(text: string): { value: unknown; maxDepth: number } {
  const { inexact, maxDepth } = scanNumbers(text);
  if (inexact.length === 0) return { value: JSON.parse(text), maxDepth };
  let quoted = "";
  let from = 0;
  for (const [start, end] of inexact) {
    quoted += text.slice(from, start) + '"' + text.slice(start, end) + '"';
    from = end;
  }
  return { value: JSON.parse(quoted + text.slice(from)), maxDepth };
}

/**
 * Exact as a double, and not an integer past 2^53 however it is written
 * (1e20, 1152921504606846976.0): written out again it would be a plain
 * integer that other languages read as a 64-bit one, which the native API
 * refuses for the same reason.
 */
function storableNumber(token: string): boolean {
  if (!isExactNumber(token)) return false;
  const n = Number(token);
  return !Number.isInteger(n) || Number.isSafeInteger(n);
}

const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/;

/**
 * [start, end) of every number token outside strings that a double cannot
 * hold exactly, and the deepest nesting of containers. One pass; strings
 * are skipped with indexOf, so the cost is about that of JSON.parse.
 * Invalid JSON is left for JSON.parse to judge.
 */
function scanNumbers(text: string): { inexact: Array<[number, number]>; maxDepth: number } {
  const found: Array<[number, number]> = [];
  let depth = 0;
  let maxDepth = 0;
  const n = text.length;
  for (let i = 0; i < n; ) {
    const c = text.charCodeAt(i);
    if (c === 123 /* { */ || c === 91 /* [ */) {
      if (++depth > maxDepth) maxDepth = depth;
      i++;
      continue;
    }
    if (c === 125 /* } */ || c === 93 /* ] */) {
      depth--;
      i++;
      continue;
    }
    if (c === 34 /* " */) {
      let end = i + 1;
      for (;;) {
        end = text.indexOf('"', end);
        if (end < 0) return { inexact: found, maxDepth }; // unterminated: JSON.parse says so
        let backslashes = 0;
        for (let j = end - 1; j > i && text.charCodeAt(j) === 92; j--) backslashes++;
        if (backslashes % 2 === 0) break;
        end++;
      }
      i = end + 1;
      continue;
    }
    if (c === 45 /* - */ || (c >= 48 && c <= 57)) {
      const start = i;
      i = numberTokenEnd(text, i);
      // Short numbers without an exponent (integers, timestamps in seconds) are exact and below 2^53, but for -0.
      if (mayBeInexact(text, start, i) || isMinusZeroStart(text, start)) {
        const token = text.slice(start, i);
        // Only a well-formed number is quoted: quoting "1-2" would make invalid JSON valid.
        if (JSON_NUMBER.test(token) && !storableNumber(token)) found.push([start, i]);
      }
      continue;
    }
    i++;
  }
  return { inexact: found, maxDepth };
}
