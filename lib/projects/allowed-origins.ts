import { z } from "zod";

/**
 * A project's allowed origins (projects.allowed_origins): the pages that may
 * send through the Sentry routes (CORS, lib/sentry/ingest.ts). Each entry is
 * what a browser sends in its Origin header, `scheme://host[:port]`, or `*`
 * for any page. Stored normalised the way browsers write them (lower case,
 * no default port, no trailing slash), since the check is an exact match.
 */

export const MAX_ALLOWED_ORIGINS = 50;
const MAX_ORIGIN_CHARS = 200;

// scheme://host[:port]: a DNS name or IPv4 address, or an IPv6 literal in brackets.
const ORIGIN = /^([a-z][a-z0-9+.-]*):\/\/([a-z0-9](?:[a-z0-9.-]*[a-z0-9])?|\[[0-9a-f:.]+\])(?::(\d{1,5}))?$/;

/** The origin as browsers write it, or null when `value` is not an origin. */
export function normalizeOrigin(value: string): string | null {
  const trimmed = value.trim().replace(/\/$/, "").toLowerCase();
  const match = ORIGIN.exec(trimmed);
  if (!match) return null;
  const [, scheme, , port] = match;
  if (port !== undefined && Number(port) > 65_535) return null;
  if (scheme === "http" || scheme === "https") {
    try {
      // Drops a default port and writes IDN hosts as browsers send them.
      return new URL(trimmed).origin;
    } catch {
      return null;
    }
  }
  return trimmed;
}

// An origin never contains whitespace: an entry with some is most likely
// several origins in one string, which the API refuses rather than guesses.
const originSchema = z
  .string({ error: "Each allowed origin is a string." })
  .max(MAX_ORIGIN_CHARS, `An origin has at most ${MAX_ORIGIN_CHARS} characters.`)
  .transform((value, ctx) => {
    if (/\s/.test(value)) {
      ctx.addIssue({
        code: "custom",
        message: `“${value.slice(0, 100)}” contains whitespace: give each origin as its own element of the list, with no spaces or line breaks (an origin never has any).`,
      });
      return z.NEVER;
    }
    if (value === "*") return "*";
    const origin = normalizeOrigin(value);
    if (origin === null) {
      ctx.addIssue({
        code: "custom",
        message: `“${value.slice(0, 100)}” is not an origin: write scheme://host[:port] (such as https://app.example.com, no path), or * for any page.`,
      });
      return z.NEVER;
    }
    return origin;
  });

export const allowedOriginsSchema = z
  .array(originSchema, { error: "allowedOrigins is a list of origins (or [\"*\"])." })
  .max(MAX_ALLOWED_ORIGINS, `At most ${MAX_ALLOWED_ORIGINS} allowed origins.`)
  .transform((origins) => [...new Set(origins)])
  .refine((origins) => !origins.includes("*") || origins.length === 1, "“*” already allows every origin: give either “*” alone or a list of origins.");

/**
 * The dashboard's text box: one origin per line, or separated by commas or
 * spaces (an origin has none of them; the form's hint says so). The API takes
 * a list and refuses an entry with whitespace instead.
 */
export function splitOriginsText(text: string): string[] {
  return text.split(/[\s,]+/).filter((s) => s !== "");
}
