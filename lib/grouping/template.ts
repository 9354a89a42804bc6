import { POD_END, shapesOfStage, type PieceStart } from "@/lib/grouping/message-shapes";

export { looksGenerated } from "@/lib/grouping/message-shapes";

/**
 * Message templates: the message with its variable parts masked, so that
 * events that differ only in ids, numbers, addresses or times form one issue.
 * What is masked, and in which order, is the table of named shapes in
 * lib/grouping/message-shapes.ts; this file is the pass that applies it.
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
const ASCII_DELIMITERS = new Uint8Array(0x80);
for (const char of " '\"`()[]{},;") ASCII_DELIMITERS[char.charCodeAt(0)] = 1;
const IRREGULAR_SPACE = /\s\s|[^\S ]/;
const MAY_NEED_MASKING = /[0-9@?#'"`“]|-[bcdfghjklmnpqrstvwxz2456789]{5}|_[A-Za-z]{8}|\s\s|[^\S ]/;
const MAY_VARY = /[0-9@?#]/;
const MAY_EMBED = /[@.-]/;

const QUERY_SPLIT = /([=&|]+)/;
const PATH_SPLIT = /([/\\]+)/;
const COLON_SPLIT = /(:+)/;
const AT_SPLIT = /(@)/;
// Within a piece: Stripe-style `prefix_id` (lowercase words, then a part
// with a digit), a decimal, or an alphanumeric segment.
const SEGMENTS =
  /(?<![\w>])[a-z]{1,12}(?:_[a-z]{1,12})*_[A-Za-z]*\d[A-Za-z0-9]*(?:_[A-Za-z0-9]+)*(?![\w<])|\d+(?:\.\d+)+|[A-Za-z0-9]+/g;

// The table's shapes, stage by stage, in its order. The loops read copies
// that all have one object shape (the table's entries differ in their
// fields, and V8 reads a field slowly across objects of many shapes); the
// token and segment stages call each shape from its own call site, which V8
// can inline, so a shape added to those stages needs its call below.
const MESSAGE_STAGE = shapesOfStage("message").map((s) => ({ mayMatch: s.mayMatch, pattern: s.pattern, replace: s.replace }));
const QUOTED = shapesOfStage("quoted")[0]!.pattern;
const TOKEN_STAGE = shapesOfStage("token").map((s) => s.mask);
const [T0, T1, T2] = TOKEN_STAGE as [TokenMask, TokenMask, TokenMask];
type TokenMask = (typeof TOKEN_STAGE)[number];
const EMBEDDED_PLACEHOLDERS = shapesOfStage("embedded").map((s) => s.placeholder);
// The embedded shapes are tried as one pattern (one pass over the token):
// its alternatives in the table's order, each in its own group but the last
// (what matched when no group did).
const EMBEDDED = new RegExp(
  shapesOfStage("embedded")
    .map((s, i, all) => (i < all.length - 1 ? `(${s.pattern.source})` : `(?:${s.pattern.source})`))
    .join("|"),
  "gi",
);
const LAST_EMBEDDED = EMBEDDED_PLACEHOLDERS.length - 1;
const SEGMENT_STAGE = shapesOfStage("segment").map((s) => s.judge);
const [S0, S1, S2, S3, S4, S5, S6] = SEGMENT_STAGE as [SegmentJudge, SegmentJudge, SegmentJudge, SegmentJudge, SegmentJudge, SegmentJudge, SegmentJudge];
type SegmentJudge = (typeof SEGMENT_STAGE)[number];
const JOINED_STAGE = shapesOfStage("joined").map((s) => ({ after: s.after, pattern: s.pattern, placeholder: s.placeholder }));
// A piece shape's guard as two numbers: GUARD_* and a length or a letter's code.
const GUARD_NONE = 0;
const GUARD_LENGTH = 1;
const GUARD_FIRST_LETTER = 2;
const GUARD_IPV6_COLONS = 3;
type PieceMatcher = { guard: number; guardValue: number; pattern: RegExp; placeholder: string | null };
const piecesFrom = (starts: PieceStart[]): PieceMatcher[] =>
  shapesOfStage("piece")
    .filter((s) => starts.includes(s.start))
    .map((s) => {
      const g = s.guard;
      const [guard, guardValue] =
        g === undefined ? [GUARD_NONE, 0]
        : "length" in g ? [GUARD_LENGTH, g.length]
        : "firstLetter" in g ? [GUARD_FIRST_LETTER, g.firstLetter.toLowerCase().charCodeAt(0)]
        : [GUARD_IPV6_COLONS, 0];
      return { guard, guardValue, pattern: s.pattern, placeholder: s.placeholder };
    });
// The piece shapes a piece may match, by its first character.
const PIECES_FROM_DIGIT = piecesFrom(["digit", "digit-or-sign", "any"]);
const PIECES_FROM_SIGN = piecesFrom(["digit-or-sign", "any"]);
const PIECES_FROM_OTHER = piecesFrom(["other", "any"]);
if (TOKEN_STAGE.length !== 3 || SEGMENT_STAGE.length !== 7) {
  throw new Error("messageTemplate calls the token and segment shapes one by one: give a new shape its call");
}

export function messageTemplate(message: string): string {
  // Many messages hold nothing to mask; finding that out is cheaper than the pass.
  if (!MAY_NEED_MASKING.test(message)) return cap(trimSpaces(message));
  let template = trimSpaces(IRREGULAR_SPACE.test(message) ? message.replace(/\s+/g, " ") : message);
  for (const shape of MESSAGE_STAGE) {
    if (shape.mayMatch.test(template)) template = template.replace(shape.pattern, shape.replace);
  }
  template = maskTokensAndQuotes(template);
  for (const shape of JOINED_STAGE) {
    if (template.includes(shape.after)) template = template.replace(shape.pattern, shape.placeholder);
  }
  return cap(template);
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
  if (end === token.length) return maskTokenShapes(token);
  return maskTokenShapes(token.slice(0, end)) + token.slice(end);
}

function isTrailingPunctuation(code: number): boolean {
  return code === 0x2e || code === 0x3a || code === 0x21 || code === 0x3f || code === 0x23; // . : ! ? #
}

/**
 * The token shapes (a query string, a URL's fragment, a pod name) take
 * their part whole; their placeholders are recognised again so that a
 * template templated again stays the same.
 */
function maskTokenShapes(token: string): string {
  return T0(token, maskEmbedded) ?? T1(token, maskEmbedded) ?? T2(token, maskEmbedded) ?? maskEmbedded(token);
}

/**
 * Masks the embedded shapes (emails, UUIDs, ISO dates, IPv4 addresses)
 * wherever they are in the text, then the rest piece by piece. In a token
 * that holds a path, names with digits are more likely ids.
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
    let shape = 0;
    while (shape < LAST_EMBEDDED && match[shape + 1] === undefined) shape++;
    out += maskPiece(text.slice(last, match.index), 0, inPath) + EMBEDDED_PLACEHOLDERS[shape]!;
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

/** The first piece shape (in the table's order) that takes the whole piece. */
function maskWhole(piece: string): string | undefined {
  const first = piece.charCodeAt(0);
  const shapes =
    first >= 0x30 && first <= 0x39
      ? PIECES_FROM_DIGIT
      : first === 0x2d || first === 0x2b || first === 0x2e
        ? PIECES_FROM_SIGN
        : PIECES_FROM_OTHER;
  for (let i = 0; i < shapes.length; i++) {
    const shape = shapes[i]!;
    const guard = shape.guard;
    if (guard !== GUARD_NONE) {
      if (guard === GUARD_LENGTH ? piece.length !== shape.guardValue
        : guard === GUARD_FIRST_LETTER ? (first | 0x20) !== shape.guardValue
        : !piece.includes("::") && countColons(piece) !== 7) continue;
    }
    if (shape.pattern.test(piece)) return shape.placeholder ?? piece;
  }
  return undefined;
}

function countColons(text: string): number {
  let n = 0;
  for (let i = 0; i < text.length; i++) if (text.charCodeAt(i) === 0x3a) n++;
  return n;
}

const maskSegmentMatch = (match: string) => maskSegment(match, false);
const maskPathSegmentMatch = (match: string) => maskSegment(match, true);

/**
 * One segment, judged by the segment shapes in the table's order from
 * facts counted in one pass. In a path, a name with three digits or more is
 * an id (`/T0001/`), while `v1` or `oauth2` stay.
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
  return (
    S0(segment, digits, runs, hexOnly, firstLetter, inPath) ??
    S1(segment, digits, runs, hexOnly, firstLetter, inPath) ??
    S2(segment, digits, runs, hexOnly, firstLetter, inPath) ??
    S3(segment, digits, runs, hexOnly, firstLetter, inPath) ??
    S4(segment, digits, runs, hexOnly, firstLetter, inPath) ??
    S5(segment, digits, runs, hexOnly, firstLetter, inPath) ??
    S6(segment, digits, runs, hexOnly, firstLetter, inPath) ??
    segment
  );
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
