/**
 * The message shapes: each variable part of a message that the template
 * masks, with its name, an example and its matcher, in the order the
 * template applies them (lib/grouping/template.ts runs them stage by stage;
 * docs/grouping.md lists them for users, and a test keeps the two in step).
 *
 * Stages, in order:
 * - `message`: over the whole message, before anything else.
 * - `quoted`: a quoted value, where the scan meets a quote.
 * - `token`: a whole token (a run of characters between spaces, quotes,
 *   brackets, commas and semicolons) that holds a digit, `@`, `?` or `#`.
 * - `embedded`: found anywhere inside such a token, before it is split.
 * - `piece`: what is left of the token, tried whole, then again on each part
 *   after splitting on `=&|`, `/`, `:` and `@` in turn.
 * - `segment`: the alphanumeric segments of a piece no earlier shape took.
 * - `joined`: over the short result, to join placeholders with the words
 *   around them (`<num> ms`, spelled-out dates).
 *
 * Every pattern is anchored or bounded by a character its own repetition
 * cannot match, so the work stays linear in the message's length.
 */

export type ShapeStage = "message" | "quoted" | "token" | "embedded" | "piece" | "segment" | "joined";

type ShapeBase = {
  /** Unique, kebab-case; shown in docs/grouping.md. */
  name: string;
  /** A message holding the shape, and what the template makes of it. */
  example: string;
  template: string;
  /** One line for users. */
  description: string;
};

/** Replaced wherever its pattern matches in the whole message. */
export type MessageStageShape = ShapeBase & {
  stage: "message";
  /** Cheap test: the pattern can only match when this one does. */
  mayMatch: RegExp;
  pattern: RegExp;
  replace: (match: string, ...groups: string[]) => string;
};

/** A quoted value, matched (sticky) where the scan meets a quote. */
export type QuotedStageShape = ShapeBase & { stage: "quoted"; pattern: RegExp };

/** Given a token (trailing punctuation removed), the token masked, or undefined. */
export type TokenStageShape = ShapeBase & {
  stage: "token";
  mask: (token: string, maskRest: (text: string) => string) => string | undefined;
};

/** Alternatives of one global pattern; the first that matches at a position wins. */
export type EmbeddedStageShape = ShapeBase & { stage: "embedded"; pattern: RegExp; placeholder: string };

/** Which first characters a piece must have for the shape to be tried. */
export type PieceStart = "digit" | "digit-or-sign" | "other" | "any";

/**
 * A cheap test a piece must pass before the pattern is tried: its length,
 * its first letter (either case), or for IPv6 a `::` or exactly seven colons.
 */
export type PieceGuard = { length: number } | { firstLetter: string } | { ipv6Colons: true };

/** A whole piece; `placeholder` null keeps the piece as it is (vocabulary). */
export type PieceStageShape = ShapeBase & {
  stage: "piece";
  start: PieceStart;
  guard?: PieceGuard;
  pattern: RegExp;
  placeholder: string | null;
};

/**
 * An alphanumeric segment of a piece. `judge` gets facts counted in one
 * pass: digits, runs (letter/digit alternations), whether only hex
 * characters, the index of the first letter (-1 when none), whether the
 * token holds a path. Undefined: not this shape.
 */
export type SegmentStageShape = ShapeBase & {
  stage: "segment";
  judge: (segment: string, digits: number, runs: number, hexOnly: boolean, firstLetter: number, inPath: boolean) => string | undefined;
};

/** Run over the result when it holds `after`. */
export type JoinedStageShape = ShapeBase & { stage: "joined"; after: string; pattern: RegExp; placeholder: string };

export type MessageShape =
  | MessageStageShape
  | QuotedStageShape
  | TokenStageShape
  | EmbeddedStageShape
  | PieceStageShape
  | SegmentStageShape
  | JoinedStageShape;

// Vocabulary with digits that reads the same in every message of a kind.
const VOCABULARY =
  /^(?:utf-?(?:8|16|32)(?:[lb]e)?|iso-?8859-\d{1,2}|windows-?125\d|x86[-_]64|sha3?-?(?:1|224|256|384|512)|aes-?(?:128|192|256)(?:-[a-z]{3})?|chacha20-poly1305|p-(?:256|384|521)|https?\/\d(?:\.\d)?|tlsv?1\.[0-3])$/i;
export const VOCABULARY_SEGMENT =
  /^(?:(?:(?:big)?u?int|float|sha|md|base|utf|ipv|http|oauth|ecmascript|windows|win|iso|latin|arm|aarch|amd|aes|rsa|tls|ssl|es|x)\d+[a-z]*|utf8mb[34]|v\d+(?:alpha|beta)\d+|ed25519|secp256[kr]1)$/i;
const DURATION =
  /^[+-]?(?:\d+(?:\.\d+)?(?:ns|us|µs|μs|ms|millis|milliseconds?|secs?|seconds?|s|mins?|minutes?|m|hrs?|hours?|h|days?|d))+$/i;
const DURATION_UNIT = /^(?:ns|us|µs|μs|ms|millis|milliseconds?|secs?|seconds?|s|mins?|minutes?|m|hrs?|hours?|h|days?|d)$/i;
const SIZE_UNIT = /^(?:b|bytes?|[kmgtp]i?b?|px|x|k?hz|[mg]hz)$/i;

// A Kubernetes pod name ends in `-<replicaset hash>-<suffix>`, drawn from an
// alphabet without vowels (so they never spell a word) and not always with a digit.
export const POD_END = /-[bcdfghjklmnpqrstvwxz2456789]{5}(?![^\s'"`“”()[\]{},;.:!?])/y;
const POD_SUFFIX = /(?<=[A-Za-z0-9])-[bcdfghjklmnpqrstvwxz2456789]{6,10}-[bcdfghjklmnpqrstvwxz2456789]{5}$/;

// A Stripe-style id whose random part happens to hold no digit
// (`ord_fypgkirw`: one in fourteen 8-character base-36 ids, one in 34 of
// base 62's 20 characters). Only after a short lowercase prefix:
// always after one that names an id and nothing else (Stripe's, and usr_), else
// when the part after it does not read as a word (looksGenerated).
const ID_PREFIXES = new Set(["acct", "ch", "cus", "evt", "ord", "pi", "pm", "seti", "tok", "txn", "usr"]);
// Consonant pairs that English words and names use; a random string of
// letters has several pairs outside this list, a word almost never two.
const WORD_CONSONANT_PAIRS = new Set(
  ("bl br bs ch ck cl cr cs ct dg dr ds ff fl fr ft gh gl gn gr gs hm hn hr ht kl kn ks ld lf lk ll lm lp ls lt lv " +
    "mb mm mn mp ms mt nc nd nf ng nk nl nm nn nr ns nt nv nx ph pl pm pp pr ps pt rb rc rd rf rg rh rk rl rm rn rp " +
    "rr rs rt rv rw sc sh sk sl sm sn sp sq ss st sw tc th tl tr ts tt tw tz wh wk wl wn wr ws xt").split(" "),
);

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

const MONTH = "(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\\.?";

export const MESSAGE_SHAPES: readonly MessageShape[] = [
  {
    name: "prefixed-id-letters",
    stage: "message",
    description: "A Stripe-style id whose random part has no digit, after a prefix that names ids or when the letters look random.",
    example: "Order ord_fypgkirw not found",
    template: "Order <id> not found",
    mayMatch: /_[A-Za-z]{8}/,
    pattern: /(?<![\w<>@.-])([a-z]{2,5})_([A-Za-z]{8,64})(?![\w<>@-]|\.\w)/g,
    replace: (match, prefix, rest) => (ID_PREFIXES.has(prefix!) || looksGenerated(rest!) ? "<id>" : match),
  },
  {
    name: "quoted-value",
    stage: "quoted",
    description:
      "A value in quotes (' \" ` “”), when the quote opens after and closes before a non-word character, so apostrophes stay; an empty one is kept.",
    example: "KeyError: 'user_id'",
    template: "KeyError: '<str>'",
    // `>` and `<` count as word characters here, so that a quote next to a
    // token that became a placeholder is judged the same when a template is templated again.
    pattern: /(?<![\w>])(?:'[^']*'|"[^"]*"|`[^`]*`|“[^“”]*”)(?![\w<])/y,
  },
  {
    name: "query-string",
    stage: "token",
    description: "A URL's query string (after a path, or made of key=value pairs).",
    example: "GET /api/orders?page=2&sort=desc failed",
    template: "GET /api/orders?<query> failed",
    mask: (token, maskRest) => {
      const query = token.indexOf("?");
      if (
        query >= 0 &&
        query < token.length - 1 &&
        (token.lastIndexOf("/", query) >= 0 || token.includes("=", query) || token.startsWith("<query>", query + 1))
      ) {
        return `${maskRest(token.slice(0, query))}?<query>`;
      }
      return undefined;
    },
  },
  {
    name: "url-fragment",
    stage: "token",
    description: "A URL's fragment.",
    example: "Redirect to https://example.com/docs#install loops",
    template: "Redirect to https://example.com/docs#<fragment> loops",
    mask: (token, maskRest) => {
      const fragment = token.indexOf("#");
      if (
        fragment > 0 &&
        fragment < token.length - 1 &&
        (token.includes("://") || token.startsWith("<fragment>", fragment + 1))
      ) {
        return `${maskRest(token.slice(0, fragment))}#<fragment>`;
      }
      return undefined;
    },
  },
  {
    name: "kubernetes-pod",
    stage: "token",
    description: "The replica-set hash and suffix of a Kubernetes pod name.",
    example: "pod api-7d4f9b8c6d-x2k4q OOMKilled",
    template: "pod api-<id>-<id> OOMKilled",
    mask: (token, maskRest) => {
      if (token.charCodeAt(token.length - 6) !== 0x2d) return undefined;
      const pod = POD_SUFFIX.exec(token);
      return pod === null ? undefined : `${maskRest(token.slice(0, pod.index))}-<id>-<id>`;
    },
  },
  {
    name: "email",
    stage: "embedded",
    description: "An email address.",
    example: "Invalid email: c.d+e@example.org",
    template: "Invalid email: <email>",
    pattern: /(?<![\w.%+>-])[\w.%+-]+@[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}(?![\w<-])/,
    placeholder: "<email>",
  },
  {
    name: "uuid",
    stage: "embedded",
    description: "A UUID, in either case.",
    example: "Request 550e8400-e29b-41d4-a716-446655440000 failed",
    template: "Request <uuid> failed",
    pattern: /(?<![0-9a-z>])[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}(?![0-9a-z<])/,
    placeholder: "<uuid>",
  },
  {
    name: "iso-date",
    stage: "embedded",
    description: "An ISO 8601 date or date-time, with or without a zone.",
    example: "Cron job started at 2026-11-22T10:15:30.123Z",
    template: "Cron job started at <time>",
    pattern: /(?<![\w.>])\d{4}-\d{2}-\d{2}(?:T\d{2}:\d{2}(?::\d{2}(?:[.,]\d+)?)?)?(?:Z|[+-]\d{2}(?::?\d{2})?)?(?![\w.:<])/,
    placeholder: "<time>",
  },
  {
    name: "ipv4",
    stage: "embedded",
    description: "An IPv4 address, with its port.",
    example: "connect ECONNREFUSED 10.0.0.12:5432",
    template: "connect ECONNREFUSED <ip>",
    pattern: /(?<![\w.>])(?:\d{1,3}\.){3}\d{1,3}(?::\d+)?(?![\w.<])/,
    placeholder: "<ip>",
  },
  {
    name: "hex-id",
    stage: "piece",
    start: "digit-or-sign",
    description: "Seven or more hex digits with a letter, such as a short commit hash (which could read as a number or a duration).",
    example: "Deploy 855042d started",
    template: "Deploy <id> started",
    pattern: /^(?=[0-9a-f]*[a-f])[0-9a-f]{7,}$/i,
    placeholder: "<id>",
  },
  {
    name: "number",
    stage: "piece",
    start: "digit-or-sign",
    description: "A number: signed, decimal, dotted or with an exponent.",
    example: "User 42 not found",
    template: "User <num> not found",
    pattern: /^[+-]?(?:\d+(?:\.\d+)*|\.\d+)(?:e[+-]?\d+)?$/i,
    placeholder: "<num>",
  },
  {
    name: "duration",
    stage: "piece",
    start: "digit-or-sign",
    description: "A duration with its units (`30000ms`, `2m30s`, `1.5h`).",
    example: "Stripe API timeout after 30000ms",
    template: "Stripe API timeout after <duration>",
    pattern: DURATION,
    placeholder: "<duration>",
  },
  {
    name: "clock-time",
    stage: "piece",
    start: "digit",
    description: "A time of day with seconds (`12:34` alone is as often a line and column).",
    example: "Backup started 10:15:30",
    template: "Backup started <time>",
    pattern: /^\d{1,2}:\d{2}:\d{2}(?:[.,]\d+)?(?:Z|[+-]\d{2}:?\d{2})?$/i,
    placeholder: "<time>",
  },
  {
    name: "log-date",
    stage: "piece",
    start: "digit",
    description: "A web server log's date (`22/Nov/2026:10:15:30`).",
    example: "Request at 22/Nov/2026:10:15:30 failed",
    template: "Request at <time> failed",
    pattern: /^\d{1,2}\/[a-z]{3}\/\d{4}(?::\d{2}:\d{2}:\d{2})?$/i,
    placeholder: "<time>",
  },
  {
    name: "hex-literal",
    stage: "piece",
    start: "digit",
    description: "A hex literal (`0x7ffd`).",
    example: "Segmentation fault at address 0x7ffd5e8c",
    template: "Segmentation fault at address <hex>",
    pattern: /^0x[0-9a-f]+$/i,
    placeholder: "<hex>",
  },
  {
    name: "vocabulary",
    stage: "piece",
    start: "other",
    description: "Words with digits that read the same in every message of a kind (`utf-8`, `x86_64`, `sha-256`, `HTTP/1.1`): kept.",
    example: "Invalid utf-8 sequence",
    template: "Invalid utf-8 sequence",
    pattern: VOCABULARY,
    placeholder: null,
  },
  {
    name: "version",
    stage: "piece",
    start: "other",
    description: "A version after `v` (`v1.2.3`, `v2.0.0-rc.1+build.5`).",
    example: "Upgraded to v2.14.1",
    template: "Upgraded to v<num>",
    guard: { firstLetter: "v" },
    pattern: /^v\d+(?:\.\d+)+(?:-[0-9a-z.]+)?(?:\+[0-9a-z.]+)?$/i,
    placeholder: "v<num>",
  },
  {
    name: "mac-address",
    stage: "piece",
    start: "any",
    description: "A MAC address.",
    example: "Unknown device 00:1a:2b:3c:4d:5e",
    template: "Unknown device <id>",
    guard: { length: 17 },
    pattern: /^[0-9a-f]{2}(?:[:-][0-9a-f]{2}){5}$/i,
    placeholder: "<id>",
  },
  {
    name: "ipv6",
    stage: "piece",
    start: "any",
    description: "An IPv6 address, with its zone.",
    example: "Connection reset by peer fe80::1ff:fe23:4567:890a%eth0",
    template: "Connection reset by peer <ip>",
    guard: { ipv6Colons: true },
    pattern: /^(?:[0-9a-f]{0,4}:){2,7}(?:[0-9a-f]{0,4}|(?:\d{1,3}\.){3}\d{1,3})(?:%[\w.-]+)?$/i,
    placeholder: "<ip>",
  },
  {
    name: "prefixed-id",
    stage: "segment",
    description: "A Stripe-style id: lowercase words joined by `_`, then a part with a digit (`ord_8f3k2a1c`).",
    example: "Payment intent pi_3MtwBwLkdIwHu7ix28a3tqPa requires action",
    template: "Payment intent <id> requires action",
    judge: (segment) => (segment.includes("_") ? "<id>" : undefined),
  },
  {
    name: "dotted-number",
    stage: "segment",
    description: "A decimal or dotted number inside a larger piece.",
    example: "Memory usage at 12.5GB",
    template: "Memory usage at <num>GB",
    judge: (segment) => (segment.includes(".") ? "<num>" : undefined),
  },
  {
    name: "word",
    stage: "segment",
    description: "A segment without a digit is a word: kept.",
    example: "Retry order-42 later",
    template: "Retry order-<num> later",
    judge: (segment, digits) => (digits === 0 ? segment : undefined),
  },
  {
    name: "digits",
    stage: "segment",
    description: "A segment of digits only.",
    example: "getaddrinfo ENOTFOUND db-replica-3.internal",
    template: "getaddrinfo ENOTFOUND db-replica-<num>.internal",
    judge: (segment, digits) => (digits === segment.length ? "<num>" : undefined),
  },
  {
    name: "hex-segment",
    stage: "segment",
    description: "Seven or more hex characters with a digit.",
    example: "Cache miss for session:9f86d081884c7d65",
    template: "Cache miss for session:<id>",
    judge: (segment, _digits, _runs, hexOnly) =>
      hexOnly && segment.length >= 7 && !VOCABULARY_SEGMENT.test(segment) ? "<id>" : undefined,
  },
  {
    name: "quantity",
    stage: "segment",
    description: "A number with a unit: a duration (`3ms`), or a size whose unit is kept (`512Mi`, `1920px`).",
    example: "OOMKilled (memory limit 512Mi)",
    template: "OOMKilled (memory limit <num>Mi)",
    judge: (segment, _digits, runs, _hexOnly, firstLetter) => {
      if (firstLetter > 0 && runs === 2) {
        const unit = segment.slice(firstLetter);
        if (DURATION_UNIT.test(unit)) return "<duration>";
        if (SIZE_UNIT.test(unit)) return `<num>${unit}`;
      } else if (firstLetter > 0 && DURATION.test(segment)) {
        return "<duration>";
      }
      return undefined;
    },
  },
  {
    name: "mixed-id",
    stage: "segment",
    description:
      "Letters and digits mixed like an id: long, with many digits or frequent alternation; in a path, any name with three digits. Short words with digits (`utf8`, `k8s`, `python3`) stay.",
    example: "ids x2k4q user123456 at /items/T0001",
    template: "ids <id> <id> at /items/<id>",
    judge: (segment, digits, runs, _hexOnly, firstLetter, inPath) => {
      const numberedWord = runs === 2 && firstLetter === 0 && digits <= 2;
      const id = runs >= 4 || digits >= 5 || (segment.length >= 8 && !numberedWord) || (inPath && digits >= 3);
      return id && !VOCABULARY_SEGMENT.test(segment) ? "<id>" : undefined;
    },
  },
  {
    name: "spaced-duration",
    stage: "joined",
    description: "A number followed by a time unit as its own word (`3 ms`, `5 seconds`).",
    example: "Event loop blocked for 3 ms",
    template: "Event loop blocked for <duration>",
    after: "<num> ",
    // Only a unit that ends its token (`3 ms`, `3 ms.`), not the start of one (`3 ms@x`).
    pattern:
      /<num> (?:ns|us|µs|μs|ms|millis|milliseconds?|secs?|seconds?|s|mins?|minutes?|hrs?|hours?|days?)(?=$|[ ,;)\]}'"`”]|[.:!?](?: |$))/g,
    placeholder: "<duration>",
  },
  {
    name: "spelled-date",
    stage: "joined",
    description: "A date around a time (`Nov 22 10:15:30`, `Sat, 22 Nov 2026 10:15:30 GMT`, `2026-11-22 10:15:30 UTC`).",
    example: "Nov 22 10:15:30 web-1 sshd[1234]: Failed password",
    template: "<time> web-<num> sshd[<num>]: Failed password",
    after: "<time>",
    pattern: new RegExp(
      `(?<=^|[ (\\[{'"\`“])(?:(?:(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*,? )?(?:${MONTH} <num>|<num> ${MONTH}),?(?: <num>)? )?<time>(?: (?:<time>|UTC|GMT))*(?=$|[ ,;)\\]}'"\`”]|[.:!?](?: |$))`,
      "g",
    ),
    placeholder: "<time>",
  },
];

export function shapesOfStage<S extends ShapeStage>(stage: S): Extract<MessageShape, { stage: S }>[] {
  return MESSAGE_SHAPES.filter((shape): shape is Extract<MessageShape, { stage: S }> => shape.stage === stage);
}
