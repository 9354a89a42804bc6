/**
 * Masks what looks like secrets or personal data in event text before it
 * is sent to an AI provider (AI_SCRUB, on by default): email addresses,
 * IPv4 and IPv6 addresses, bearer tokens, API keys (ours, `tlt_…`, and the
 * common providers' shapes), JSON Web Tokens, values of secret-named
 * fields, card numbers (13 to 19 digits that pass the Luhn check), phone
 * numbers and other long runs of digits. The built-in digest is not
 * scrubbed: it never leaves the server.
 *
 * Each mask names what it replaced ("[email]", "[ip]") so that the model can
 * still say "a user's email" without seeing it. Every pattern is linear
 * (bounded repetitions, no nested unbounded ones).
 */

type Rule = { pattern: RegExp; replace: string | ((match: string, ...groups: string[]) => string); cutOnly?: boolean };

const RULES: Rule[] = [
  { pattern: /\b(Bearer|Basic|Token)\s+[A-Za-z0-9._~+/=-]{8,}/gi, replace: "$1 [token]" },
  // Values of fields whose name says secret: password=…, "api_key": "…", token: …
  {
    pattern: /\b((?:pass(?:word|wd)?|pwd|secret|client[_-]?secret|token|access[_-]?token|refresh[_-]?token|id[_-]?token|api[_-]?key|apikey|private[_-]?key|session(?:[_-]?id)?|cookie|authorization|auth)["']?\s{0,3}[:=]\s{0,3}["']?)(?!\[|(?:Bearer|Basic|Token)\b)[^\s"',;&}\]]{4,}/gi,
    replace: "$1[secret]",
  },
  // JSON Web Tokens: three base64url parts, the first two JSON ("eyJ").
  { pattern: /\beyJ[A-Za-z0-9_-]{5,}\.eyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}/g, replace: "[token]" },
  // Our keys (tlt_…) and the common providers' key shapes.
  {
    pattern:
      /\b(?:tlt_[A-Za-z0-9_-]{8,}|sk-(?:proj-|ant-)?[A-Za-z0-9_-]{16,}|(?:sk|pk|rk)_(?:live|test)_[A-Za-z0-9]{8,}|gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,}|glpat-[A-Za-z0-9_-]{16,}|xox[abprs]-[A-Za-z0-9-]{10,}|AKIA[0-9A-Z]{16}|AIza[0-9A-Za-z_-]{35}|whsec_[A-Za-z0-9+/=_-]{16,})/g,
    replace: "[key]",
  },
  { pattern: /[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9-]{1,63}(?:\.[A-Za-z0-9-]{1,63}){0,8}\.[A-Za-z]{2,24}\b/g, replace: "[email]" },
  // An address cut at the end of a text (messages are read cut): "…john.doe@exam". Not for whole texts (see scrubText).
  { pattern: /[A-Za-z0-9._%+-]{1,64}@[A-Za-z0-9.-]{0,253}$/g, replace: "[email]", cutOnly: true },
  // IPv6: eight groups, or groups around "::" (not "Foo::Bar", not a time like 09:14:03).
  {
    pattern: /(?<![\w:.])(?:(?:[0-9a-f]{1,4}:){7}[0-9a-f]{1,4}|(?:[0-9a-f]{1,4}:){1,7}:(?:[0-9a-f]{1,4}(?::[0-9a-f]{1,4}){0,6})?|::(?:[0-9a-f]{1,4}(?::[0-9a-f]{1,4}){0,6})?)(?![\w:])/gi,
    replace: (match) => (/[a-f]/i.test(match) || match.includes("::") ? "[ip]" : match),
  },
  { pattern: /\b(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)(?:\.(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)){3}\b/g, replace: "[ip]" },
  // Card numbers: 13 to 19 digits, maybe grouped by spaces or dashes, that pass the Luhn check.
  { pattern: /\b\d(?:[ -]?\d){12,18}\b/g, replace: (match) => (luhnValid(match.replace(/\D/g, "")) ? "[card]" : match) },
  // Phone numbers written with a country code: +44 20 7946 0958.
  { pattern: /\+\d{1,3}(?:[ .-]?\(?\d{1,4}\)?){2,5}\d/g, replace: (match) => (match.replace(/\D/g, "").length >= 8 ? "[number]" : match) },
  // Any other run of 9 or more digits: account, phone or card-like numbers.
  { pattern: /\b\d{9,}\b/g, replace: "[number]" },
];

/**
 * `text` with everything that looks like a secret or personal data masked.
 * `whole`: the text was not cut, so an "@" near its end is no cut address
 * (a release named "shop@1.8.0", Sentry's package@version).
 */
export function scrubText(text: string, options: { whole?: boolean } = {}): string {
  let out = text;
  for (const { pattern, replace, cutOnly } of RULES) {
    if (cutOnly && options.whole) continue;
    out = typeof replace === "string" ? out.replace(pattern, replace) : out.replace(pattern, replace);
  }
  return out;
}

/** The Luhn checksum of a string of digits (card numbers pass it; most other numbers do not). */
export function luhnValid(digits: string): boolean {
  if (digits.length < 13 || digits.length > 19) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let d = digits.charCodeAt(digits.length - 1 - i) - 48;
    if (i % 2 === 1) {
      d *= 2;
      if (d > 9) d -= 9;
    }
    sum += d;
  }
  return sum % 10 === 0;
}
