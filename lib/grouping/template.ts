import { sha256Hex } from "@/lib/crypto/hash";
import type { EventLevel } from "@/lib/events/schema";

/**
 * Message templates: the message with its variable parts masked, so that
 * events that differ only in ids, numbers, addresses or times form one issue.
 *
 * It runs for every ingested event, so one pass jumps from one character
 * that can belong to a value (a digit, `@`, `?`, `#`, a quote) to the next
 * and copies the words in between untouched. A token holding such a
 * character loses its query string, then the emails, UUIDs, ISO dates and
 * IPv4 addresses found anywhere in it; what is left is tried whole against
 * the other shapes (number, duration, time, hex, IPv6 ...), then split on
 * `=&|`, `/`, `:` and `@` in turn, and finally cut into alphanumeric segments
 * judged one by one. Two passes over the short result join `3 ms` and
 * spelled-out dates. Every pattern is anchored or bounded by a character its
 * own repetition cannot match, so the work is linear in the message's length.
 */

export const MAX_TEMPLATE_CHARS = 1000;

// The pass jumps from one of these characters to the next: a character a
// value holds, a quote, or a hyphen (a Kubernetes pod name may have no digit).
const TRIGGER = /[0-9@?#'"`“-]/g;
// Quotes are masked only where they open after and close before a non-word
// character, so apostrophes (`can't`, `users'`) are not taken as quotes. `>`
// and `<` count as word characters there, so that a quote next to a token
// that became a placeholder is judged the same when a template is templated again.
const QUOTED = /(?<![\w>])(?:'[^']*'|"[^"]*"|`[^`]*`|“[^“”]*”)(?![\w<])/y;
const POD_END = /-[bcdfghjklmnpqrstvwxz2456789]{5}(?![^\s'"`“”()[\]{},;.:!?])/y;
const ASCII_DELIMITERS = new Uint8Array(0x80);
for (const char of " '\"`()[]{},;") ASCII_DELIMITERS[char.charCodeAt(0)] = 1;
const IRREGULAR_SPACE = /\s\s|[^\S ]/;
const MAY_NEED_MASKING = /[0-9@?#'"`“]|-[bcdfghjklmnpqrstvwxz2456789]{5}|_[A-Za-z]{8}|\s\s|[^\S ]/;
const MAY_VARY = /[0-9@?#]/;
const MAY_EMBED = /[@.-]/;

// Vocabulary with digits that reads the same in every message of a kind.
const VOCABULARY =
  /^(?:utf-?(?:8|16|32)(?:[lb]e)?|iso-?8859-\d{1,2}|windows-?125\d|x86[-_]64|sha3?-?(?:1|224|256|384|512)|aes-?(?:128|192|256)(?:-[a-z]{3})?|chacha20-poly1305|p-(?:256|384|521)|https?\/\d(?:\.\d)?|tlsv?1\.[0-3])$/i;
const VOCABULARY_SEGMENT =
  /^(?:(?:(?:big)?u?int|float|sha|md|base|utf|ipv|http|oauth|ecmascript|windows|win|iso|latin|arm|aarch|amd|aes|rsa|tls|ssl|es|x)\d+[a-z]*|utf8mb[34]|v\d+(?:alpha|beta)\d+|ed25519|secp256[kr]1)$/i;

// Values found anywhere in a token before it is split, so that what is glued
// to them (`id=a@b.com`, `host:10.0.0.1:5432/db`) cannot hide them.
const EMBEDDED =
  /(?<![\w.%+>-])([\w.%+-]+@[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,})(?![\w<-])|(?<![0-9a-z>])([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})(?![0-9a-z<])|(?<![\w.>])(\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?)(?![\w.:<])|(?<![\w.>])(?:\d{1,3}\.){3}\d{1,3}(?::\d+)?(?![\w.<])/gi;
const IPV6 = /^(?:[0-9a-f]{0,4}:){2,7}(?:[0-9a-f]{0,4}|(?:\d{1,3}\.){3}\d{1,3})(?:%[\w.-]+)?$/i;
const MAC = /^[0-9a-f]{2}(?:[:-][0-9a-f]{2}){5}$/i;
// Seconds are required: `12:34` is as often a line and column as a time.
const TIME = /^\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?$/i;
const LOG_DATE = /^\d{1,2}\/[a-z]{3}\/\d{4}(?::\d{2}:\d{2}:\d{2})?$/i;
const NUMBER = /^[+-]?(?:\d+(?:\.\d+)*|\.\d+)(?:e[+-]?\d+)?$/i;
// `v1.2.3`, `v2.0.0-rc.1+build.5`.
const VERSION = /^v\d+(?:\.\d+)+(?:-[0-9a-z.]+)?(?:\+[0-9a-z.]+)?$/i;
const HEX_LITERAL = /^0x[0-9a-f]+$/i;
const HEX_ID = /^(?=[0-9a-f]*[a-f])[0-9a-f]{7,}$/i;
const DURATION =
  /^[+-]?(?:\d+(?:\.\d+)?(?:ns|us|µs|μs|ms|millis|milliseconds?|secs?|seconds?|s|mins?|minutes?|m|hrs?|hours?|h|days?|d))+$/i;
const DURATION_UNIT = /^(?:ns|us|µs|μs|ms|millis|milliseconds?|secs?|seconds?|s|mins?|minutes?|m|hrs?|hours?|h|days?|d)$/i;
const SIZE_UNIT = /^(?:b|bytes?|[kmgtp]i?b?|px|x|k?hz|[mg]hz)$/i;

const QUERY_SPLIT = /([=&|]+)/;
const PATH_SPLIT = /([/\\]+)/;
const COLON_SPLIT = /(:+)/;
const AT_SPLIT = /(@)/;
// A Kubernetes pod name ends in `-<replicaset hash>-<suffix>`, drawn from an
// alphabet without vowels (so they never spell a word) and not always with a digit.
const POD_SUFFIX = /(?<=[A-Za-z0-9])-[bcdfghjklmnpqrstvwxz2456789]{6,10}-[bcdfghjklmnpqrstvwxz2456789]{5}$/;
// Within a piece: Stripe-style `prefix_id` (lowercase words, then a part
// with a digit), a decimal, or an alphanumeric segment.
const SEGMENTS =
  /(?<![\w>])[a-z]{1,12}(?:_[a-z]{1,12})*_[A-Za-z]*\d[A-Za-z0-9]*(?:_[A-Za-z0-9]+)*(?![\w<])|\d+(?:\.\d+)+|[A-Za-z0-9]+/g;

// A Stripe-style id whose random part happens to hold no digit
// (`ord_fypgkirw`: one in fourteen 8-character base-36 ids, one in 34 of
// base 62's 20 characters). Only after a short lowercase prefix:
// always after one that names an id and nothing else (Stripe's, and usr_), else
// when the part after it does not read as a word (looksGenerated).
const PREFIXED_LETTERS = /(?<![\w<>@.-])([a-z]{2,5})_([A-Za-z]{8,64})(?![\w<>@-]|\.\w)/g;
const ID_PREFIXES = new Set(["acct", "ch", "cus", "evt", "ord", "pi", "pm", "seti", "tok", "txn", "usr"]);
const MAY_BE_PREFIXED_LETTERS = /_[A-Za-z]{8}/;
// Consonant pairs that English words and names use; a random string of
// letters has several pairs outside this list, a word almost never two.
const WORD_CONSONANT_PAIRS = new Set(
  ("bl br bs ch ck cl cr cs ct dg dr ds ff fl fr ft gh gl gn gr gs hm hn hr ht kl kn ks ld lf lk ll lm lp ls lt lv " +
    "mb mm mn mp ms mt nc nd nf ng nk nl nm nn nr ns nt nv nx ph pl pm pp pr ps pt rb rc rd rf rg rh rk rl rm rn rp " +
    "rr rs rt rv rw sc sh sk sl sm sn sp sq ss st sw tc th tl tr ts tt tw tz wh wk wl wn wr ws xt").split(" "),
);

// Only a unit that ends its token (`3 ms`, `3 ms.`), not the start of one (`3 ms@x`).
const SPACED_DURATION =
  /<num> (?:ns|us|µs|μs|ms|millis|milliseconds?|secs?|seconds?|s|mins?|minutes?|hrs?|hours?|days?)(?=$|[ ,;)\]}'"`”]|[.:!?](?: |$))/g;
const MONTH = "(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\\.?";
// `Nov 22 10:15:30`, `Sat, 22 Nov 2026 10:15:30 GMT`, `2026-11-22 10:15:30 UTC`.
const SPELLED_DATE = new RegExp(
  `(?<=^|[ (\\[{'"\`“])(?:(?:(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*,? )?(?:${MONTH} <num>|<num> ${MONTH}),?(?: <num>)? )?<time>(?: (?:<time>|UTC|GMT))*(?=$|[ ,;)\\]}'"\`”]|[.:!?](?: |$))`,
  "g",
);

export function messageTemplate(message: string): string {
  // Many messages hold nothing to mask; finding that out is cheaper than the pass.
  if (!MAY_NEED_MASKING.test(message)) return cap(trimSpaces(message));
  let template = trimSpaces(IRREGULAR_SPACE.test(message) ? message.replace(/\s+/g, " ") : message);
  if (MAY_BE_PREFIXED_LETTERS.test(template)) template = template.replace(PREFIXED_LETTERS, maskPrefixedLetters);
  template = maskTokensAndQuotes(template);
  if (template.includes("<num> ")) template = template.replace(SPACED_DURATION, "<duration>");
  if (template.includes("<time>")) template = template.replace(SPELLED_DATE, "<time>");
  return cap(template);
}

function maskPrefixedLetters(match: string, prefix: string, rest: string): string {
  return ID_PREFIXES.has(prefix) || looksGenerated(rest) ? "<id>" : match;
}

/**
 * Whether letters look drawn at random rather than spelled: base-62 case
 * (two capitals and two small letters, not only at the start), or two
 * consonant pairs that words do not use (`fypgkirw`: fy is fine, yp, pg, gk
 * are not, with y as a vowel). Catches about four in five 8-letter random
 * strings and nine in ten of 10 letters; of common words it takes
 * `strengths` (gt, hs).
 */
export function looksGenerated(letters: string): boolean {
  let upper = 0;
  let lowerAfterFirst = 0;
  for (let i = 1; i < letters.length; i++) {
    const code = letters.charCodeAt(i);
    if (code <= 0x5a) upper++;
    else lowerAfterFirst++;
  }
  if (upper >= 2 && lowerAfterFirst >= 2) return true;
  const lower = letters.toLowerCase();
  let uncommon = 0;
  for (let i = 0; i + 1 < lower.length; i++) {
    const a = lower[i]!;
    const b = lower[i + 1]!;
    if (!isVowel(a) && !isVowel(b) && !WORD_CONSONANT_PAIRS.has(a + b) && ++uncommon >= 2) return true;
  }
  return false;
}

function isVowel(letter: string): boolean {
  return letter === "a" || letter === "e" || letter === "i" || letter === "o" || letter === "u" || letter === "y";
}

function trimSpaces(text: string): string {
  return text.charCodeAt(0) === 0x20 || text.charCodeAt(text.length - 1) === 0x20 ? text.trim() : text;
}

/**
 * Masks quoted values, and tokens (runs of characters other than space,
 * quote, bracket, comma and semicolon) that hold a digit, `@`, `?` or `#` or
 * end like a pod name; words in between are copied as they are.
 */
function maskTokensAndQuotes(text: string): string {
  let out = "";
  let last = 0;
  TRIGGER.lastIndex = 0;
  for (let found = TRIGGER.exec(text); found !== null; found = TRIGGER.exec(text)) {
    const at = found.index;
    const code = text.charCodeAt(at);
    if (code === 0x27 || code === 0x22 || code === 0x60 || code === 0x201c) {
      QUOTED.lastIndex = at;
      const quoted = QUOTED.exec(text);
      if (quoted === null) continue;
      const value = quoted[0];
      // An empty quoted value is a constant, not a variable part.
      out += text.slice(last, at) + (value.length === 2 ? value : `${value[0]}<str>${value[value.length - 1]}`);
      last = at + value.length;
      TRIGGER.lastIndex = last;
      continue;
    }
    if (code === 0x2d) {
      // Only a hyphen five characters before the token's end can start a pod suffix.
      if (at + 6 < text.length && !isTokenEnd(text.charCodeAt(at + 6))) continue;
      POD_END.lastIndex = at;
      if (!POD_END.test(text)) continue;
    }
    let start = at;
    while (start > last && !isDelimiter(text.charCodeAt(start - 1))) start--;
    let end = at + 1;
    while (end < text.length && !isDelimiter(text.charCodeAt(end))) end++;
    out += text.slice(last, start) + maskToken(text.slice(start, end));
    last = end;
    TRIGGER.lastIndex = end;
  }
  return last === 0 ? text : out + text.slice(last);
}

/** Space, quotes, brackets, comma and semicolon end a token. */
function isDelimiter(code: number): boolean {
  return code < 0x80 ? ASCII_DELIMITERS[code] === 1 : code === 0x201c || code === 0x201d;
}

function isTokenEnd(code: number): boolean {
  return isDelimiter(code) || isTrailingPunctuation(code);
}

function maskToken(token: string): string {
  let end = token.length;
  // Punctuation after a value (`process 4242.`, `failed:`) is not part of it.
  while (end > 0 && isTrailingPunctuation(token.charCodeAt(end - 1))) end--;
  if (end === token.length) return maskUrlParts(token);
  return maskUrlParts(token.slice(0, end)) + token.slice(end);
}

function isTrailingPunctuation(code: number): boolean {
  return code === 0x2e || code === 0x3a || code === 0x21 || code === 0x3f || code === 0x23; // . : ! ? #
}

/**
 * A query string (after a path, or made of `key=value`) and a URL's fragment
 * are masked whole; their placeholders are recognised again so that a
 * template templated again stays the same.
 */
function maskUrlParts(token: string): string {
  const query = token.indexOf("?");
  if (
    query >= 0 &&
    query < token.length - 1 &&
    (token.lastIndexOf("/", query) >= 0 || token.includes("=", query) || token.startsWith("<query>", query + 1))
  ) {
    return `${maskEmbedded(token.slice(0, query))}?<query>`;
  }
  const fragment = token.indexOf("#");
  if (
    fragment > 0 &&
    fragment < token.length - 1 &&
    (token.includes("://") || token.startsWith("<fragment>", fragment + 1))
  ) {
    return `${maskEmbedded(token.slice(0, fragment))}#<fragment>`;
  }
  const pod = token.charCodeAt(token.length - 6) === 0x2d ? POD_SUFFIX.exec(token) : null;
  return pod === null ? maskEmbedded(token) : `${maskEmbedded(token.slice(0, pod.index))}-<id>-<id>`;
}

/**
 * Masks emails, UUIDs, ISO dates and IPv4 addresses wherever they are in the
 * text, then the rest piece by piece. In a token that holds a path, names
 * with digits are more likely ids.
 */
function maskEmbedded(text: string): string {
  const inPath = text.includes("/");
  if (!MAY_EMBED.test(text)) return maskPiece(text, 0, inPath);
  EMBEDDED.lastIndex = 0;
  let match = EMBEDDED.exec(text);
  if (match === null) return maskPiece(text, 0, inPath);
  let out = "";
  let last = 0;
  do {
    const placeholder =
      match[1] !== undefined ? "<email>" : match[2] !== undefined ? "<uuid>" : match[3] !== undefined ? "<time>" : "<ip>";
    out += maskPiece(text.slice(last, match.index), 0, inPath) + placeholder;
    last = match.index + match[0].length;
    match = EMBEDDED.exec(text);
  } while (match !== null);
  return out + maskPiece(text.slice(last), 0, inPath);
}

/** Masks a piece of a token; `level` says which splits were already made. */
function maskPiece(piece: string, level: number, inPath: boolean): string {
  if (piece.length === 0 || !MAY_VARY.test(piece)) return piece;
  const whole = maskWhole(piece);
  if (whole !== undefined) return whole;
  if (level < 1 && QUERY_SPLIT.test(piece)) return maskParts(piece.split(QUERY_SPLIT), 1, inPath);
  if (level < 2 && PATH_SPLIT.test(piece)) return maskParts(piece.split(PATH_SPLIT), 2, inPath);
  if (level < 3 && piece.includes(":")) return maskParts(piece.split(COLON_SPLIT), 3, inPath);
  if (level < 4 && piece.includes("@")) return maskParts(piece.split(AT_SPLIT), 4, inPath);
  return piece.replace(SEGMENTS, inPath ? maskPathSegmentMatch : maskSegmentMatch);
}

/** `parts` alternates pieces and the separators between them (split with a capture group). */
function maskParts(parts: string[], level: number, inPath: boolean): string {
  let out = "";
  for (let i = 0; i < parts.length; i++) out += i % 2 === 1 ? parts[i] : maskPiece(parts[i], level, inPath);
  return out;
}

function maskWhole(piece: string): string | undefined {
  const first = piece.charCodeAt(0);
  const startsWithDigit = first >= 0x30 && first <= 0x39;
  if (startsWithDigit || first === 0x2d || first === 0x2b || first === 0x2e) {
    // A short commit hash can read as a number or a duration (`0e72506`, `855042d`).
    if (HEX_ID.test(piece)) return "<id>";
    if (NUMBER.test(piece)) return "<num>";
    if (DURATION.test(piece)) return "<duration>";
    if (startsWithDigit) {
      if (TIME.test(piece) || LOG_DATE.test(piece)) return "<time>";
      if (HEX_LITERAL.test(piece)) return "<hex>";
    }
  } else {
    if (VOCABULARY.test(piece)) return piece;
    if ((first | 0x20) === 0x76 && VERSION.test(piece)) return "v<num>";
  }
  if (piece.length === 17 && MAC.test(piece)) return "<id>";
  if (piece.includes("::") || countColons(piece) === 7) return IPV6.test(piece) ? "<ip>" : undefined;
  return undefined;
}

function countColons(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 0x3a) n++;
  return n;
}

const maskSegmentMatch = (match: string) => maskSegmentsMatch(match, false);
const maskPathSegmentMatch = (match: string) => maskSegmentsMatch(match, true);

function maskSegmentsMatch(match: string, inPath: boolean): string {
  if (match.includes("_")) return "<id>";
  if (match.includes(".")) return "<num>";
  return maskSegment(match, inPath);
}

/**
 * One alphanumeric segment: a number, an id, a quantity with a unit, or a
 * word. In a path, a name with three digits or more is an id (`/T0001/`),
 * while `v1` or `oauth2` stay.
 */
function maskSegment(segment: string, inPath: boolean): string {
  let digits = 0;
  let runs = 0;
  let previousWasDigit = false;
  let hexOnly = true;
  let firstLetter = -1;
  for (let i = 0; i < segment.length; i++) {
    const code = segment.charCodeAt(i);
    const isDigit = code <= 0x39;
    if (isDigit) digits++;
    else {
      if (firstLetter < 0) firstLetter = i;
      const lower = code | 0x20;
      if (lower < 0x61 || lower > 0x66) hexOnly = false;
    }
    if (i === 0 || isDigit !== previousWasDigit) runs++;
    previousWasDigit = isDigit;
  }
  if (digits === 0) return segment;
  if (digits === segment.length) return "<num>";
  if (hexOnly && segment.length >= 7 && !VOCABULARY_SEGMENT.test(segment)) return "<id>";
  if (firstLetter > 0 && runs === 2) {
    const unit = segment.slice(firstLetter);
    if (DURATION_UNIT.test(unit)) return "<duration>";
    if (SIZE_UNIT.test(unit)) return `<num>${unit}`;
  } else if (firstLetter > 0 && DURATION.test(segment)) {
    return "<duration>";
  }
  // Short letter-digit words (`utf8`, `e2e`, `ipv4`, `sha256`, `k8s`) and
  // words with a small number after them (`psycopg2`, `python3`) are
  // vocabulary; long mixes, many digits and frequent alternation make an id.
  const numberedWord = runs === 2 && firstLetter === 0 && digits <= 2;
  const id = runs >= 4 || digits >= 5 || (segment.length >= 8 && !numberedWord) || (inPath && digits >= 3);
  return id && !VOCABULARY_SEGMENT.test(segment) ? "<id>" : segment;
}

/** Cuts at a word boundary when one is near, never inside a surrogate pair. */
function cap(template: string): string {
  if (template.length <= MAX_TEMPLATE_CHARS) return template;
  let cut = MAX_TEMPLATE_CHARS;
  // A word cut in two could read as another word (`msgs` -> `ms`) and be
  // masked differently when the template is templated again.
  if (isWordChar(template.charCodeAt(cut - 1)) && isWordChar(template.charCodeAt(cut))) {
    let start = cut - 1;
    while (start > 0 && isWordChar(template.charCodeAt(start - 1))) start--;
    if (start > 0) cut = start;
  }
  const last = template.charCodeAt(cut - 1);
  if (last >= 0xd800 && last <= 0xdbff) cut--;
  return template.slice(0, cut).trimEnd();
}

function isWordChar(code: number): boolean {
  return (
    (code >= 0x30 && code <= 0x39) || ((code | 0x20) >= 0x61 && (code | 0x20) <= 0x7a) || code === 0x5f
  );
}

export type IssueGroupingInput = {
  level: EventLevel;
  message: string;
  fingerprint?: string[] | null;
};

/**
 * The key that assigns an event to an issue, and the issue's title.
 *
 * The hashed text starts with a scheme version and the kind of key so that a
 * later change of the template rules or of the key's parts gives new keys
 * instead of colliding with the old ones (old issues simply stop growing), and
 * a fingerprint can never hash like a template.
 */
export function issueGroupingKey(input: IssueGroupingInput): { hash: string; title: string } {
  const title = messageTemplate(input.message);
  // Parts are joined with NUL, which no part can contain: event validation
  // refuses U+0000 anywhere in an event, so ["a", "b"] and ["a\0b"] cannot both arrive.
  const key =
    input.fingerprint && input.fingerprint.length > 0
      ? `v1\u0000fingerprint\u0000${input.fingerprint.join("\u0000")}`
      : `v1\u0000template\u0000${input.level}\u0000${title}`;
  return { hash: recentKeyHash(key), title };
}

// Hashes of recent grouping keys. A service sends the same few hundred keys
// all day, and a SHA-256 through node:crypto (a new Hash object each time)
// took about 4% of the server's CPU on batches of 100 (npm run
// bench:profile with BENCH_BATCH=100). Bounded: emptied when full; long keys
// are not kept.
const recentHashes = new Map<string, string>();
const MAX_RECENT_HASHES = 10_000;
const MAX_CACHED_KEY_CHARS = 1_024;

function recentKeyHash(key: string): string {
  let hash = recentHashes.get(key);
  if (hash === undefined) {
    hash = sha256Hex(key);
    if (key.length <= MAX_CACHED_KEY_CHARS) {
      if (recentHashes.size >= MAX_RECENT_HASHES) recentHashes.clear();
      recentHashes.set(key, hash);
    }
  }
  return hash;
}
