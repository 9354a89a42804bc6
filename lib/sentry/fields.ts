import { createHash } from "node:crypto";
import type { EventLevel } from "@/lib/events/schema";
import {
  MAX_ENVIRONMENT_CHARS,
  MAX_FINGERPRINT_PART_CHARS,
  MAX_FINGERPRINT_PARTS,
  MAX_MESSAGE_CHARS,
  MAX_RELEASE_CHARS,
  MAX_TAG_KEY_CHARS,
  MAX_TAG_VALUE_CHARS,
  MAX_TAGS,
  MAX_USER_FIELD_CHARS,
} from "@/lib/events/schema";
import { supportedTime, unixTimestampToMs } from "@/lib/events/time";
import { defineValue, storableText } from "@/lib/sentry/storable";
import type { EventUser } from "@/lib/sentry/types";
import { plural } from "@/lib/text/plural";

/**
 * The contract's fields from what Sentry SDKs send: each reader takes any
 * JSON value and returns a valid field or null, noting in `notes` what it
 * had to cut (the event keeps those notes in `context._telltale.trimmed`).
 */

export type Notes = string[];

export const isRecord = (value: unknown): value is Record<string, unknown> =>
  value !== null && typeof value === "object" && !Array.isArray(value);

/** Levels: fatal/error -> error, warning -> warn, the rest (info, debug, log, trace) -> info; none: error, as Sentry. */
export function mapLevel(level: unknown): EventLevel {
  if (typeof level !== "string") return "error";
  switch (level.trim().toLowerCase()) {
    case "fatal":
    case "critical":
    case "error":
      return "error";
    case "warning":
    case "warn":
      return "warn";
    default:
      return "info";
  }
}

/** `text` cut to `max` characters (code points, as the store counts), the last one an ellipsis. */
export function truncate(text: string, max: number): string {
  if (text.length <= max) return text;
  const points = Array.from(text);
  if (points.length <= max) return text;
  return points.slice(0, max - 1).join("") + "…";
}

/** A scalar as text: strings as they are, numbers and booleans written out, the rest null. */
export function scalarText(value: unknown): string | null {
  if (typeof value === "string") return value;
  if (typeof value === "number" || typeof value === "boolean" || typeof value === "bigint") return String(value);
  return null;
}

function boundedText(value: unknown, max: number, name: string, notes: Notes): string | null {
  const text = scalarText(value);
  if (text === null) return null;
  const clean = storableText(text.trim());
  if (clean === "") return null;
  const cut = truncate(clean, max);
  if (cut !== clean) notes.push(`${name}: truncated to ${max} characters`);
  return cut;
}

export const mapRelease = (value: unknown, notes: Notes) => boundedText(value, MAX_RELEASE_CHARS, "release", notes);
export const mapEnvironment = (value: unknown, notes: Notes) => boundedText(value, MAX_ENVIRONMENT_CHARS, "environment", notes);

/**
 * The message, at most 10,000 characters (the store's limit), never empty.
 */
export function boundMessage(text: string, notes: Notes): string {
  const clean = storableText(text);
  const cut = truncate(clean, MAX_MESSAGE_CHARS);
  if (cut !== clean) notes.push(`message: truncated from ${Array.from(clean).length} to ${MAX_MESSAGE_CHARS} characters`);
  return cut;
}

/**
 * Tags: an object, or an array of [key, value] pairs (both are Sentry's
 * wire forms). Values that are numbers or booleans are written as text;
 * null and objects are dropped. A key outside 1..32 characters is dropped
 * (cutting it could merge two tags), a value past 200 characters is
 * truncated, tags past the 50th are dropped. What was dropped stays in
 * `dropped` (the event keeps it in its context), and the notes say so.
 */
export function mapTags(value: unknown, notes: Notes): { tags: Record<string, string> | null; dropped: Record<string, unknown> | null } {
  const pairs: Array<[unknown, unknown]> = [];
  if (Array.isArray(value)) {
    for (const pair of value) if (Array.isArray(pair) && pair.length === 2) pairs.push([pair[0], pair[1]]);
  } else if (isRecord(value)) {
    for (const key of Object.keys(value)) pairs.push([key, value[key]]);
  }
  if (pairs.length === 0) return { tags: null, dropped: null };
  const tags: Record<string, string> = {};
  const dropped: Record<string, unknown> = {};
  let kept = 0;
  let badKeys = 0;
  let badValues = 0;
  let truncated = 0;
  let overflow = 0;
  for (const [rawKey, rawValue] of pairs) {
    const keyText = scalarText(rawKey);
    const key = keyText === null ? null : storableText(keyText.trim());
    const valueText = scalarText(rawValue);
    if (key === null || key === "" || key.length > MAX_TAG_KEY_CHARS) {
      badKeys++;
      if (key) defineValue(dropped, key, rawValue);
      continue;
    }
    if (valueText === null || valueText.trim() === "") {
      badValues++;
      defineValue(dropped, key, rawValue);
      continue;
    }
    if (Object.hasOwn(tags, key)) continue; // the first of a repeated key wins
    if (kept >= MAX_TAGS) {
      overflow++;
      defineValue(dropped, key, rawValue);
      continue;
    }
    const clean = storableText(valueText);
    const cut = truncate(clean, MAX_TAG_VALUE_CHARS);
    if (cut !== clean) truncated++;
    defineValue(tags, key, cut);
    kept++;
  }
  if (badKeys) notes.push(`tags: ${badKeys} dropped (key empty or longer than ${MAX_TAG_KEY_CHARS} characters)`);
  if (badValues) notes.push(`tags: ${badValues} dropped (value empty, null or not text)`);
  if (overflow) notes.push(`tags: ${overflow} dropped (more than ${MAX_TAGS})`);
  if (truncated) notes.push(`tags: ${plural(truncated, "value")} truncated to ${MAX_TAG_VALUE_CHARS} characters`);
  return { tags: kept > 0 ? tags : null, dropped: Object.keys(dropped).length > 0 ? dropped : null };
}

const USER_FIELDS = ["id", "email", "username", "ip_address"] as const;

/**
 * The user: id (numbers written as text), email, username, ip_address
 * (`{{auto}}` is the client's address, as Sentry resolves it). The other
 * fields an SDK sends (name, geo, data, segment) come back in `rest`.
 */
export function mapUser(value: unknown, clientAddress: string | null | undefined, notes: Notes): { user: EventUser | null; rest: Record<string, unknown> | null } {
  if (!isRecord(value)) return { user: null, rest: null };
  const user: EventUser = {};
  for (const field of USER_FIELDS) {
    let text = scalarText(value[field]);
    if (text === null) continue;
    if (field === "ip_address" && text.trim() === "{{auto}}") {
      if (!clientAddress || clientAddress === "unknown") continue;
      text = clientAddress;
    }
    const bounded = boundedText(text, MAX_USER_FIELD_CHARS, `user.${field}`, notes);
    if (bounded !== null) user[field] = bounded;
  }
  const rest: Record<string, unknown> = {};
  for (const key of Object.keys(value)) if (!(USER_FIELDS as readonly string[]).includes(key)) defineValue(rest, key, value[key]);
  return { user: Object.keys(user).length > 0 ? user : null, rest: Object.keys(rest).length > 0 ? rest : null };
}

/**
 * Sentry's fingerprint, as the contract holds it: 1 to 8 parts of 1 to 200
 * characters, `{{ default }}` kept for the grouping rules. Numbers are
 * written as text and empty parts dropped. A longer part keeps its first
 * 180 characters and a hash of the whole, more parts fold the rest into a
 * hash as the 8th: two fingerprints that differ stay different.
 */
export function mapFingerprint(value: unknown, notes: Notes): string[] | null {
  if (!Array.isArray(value)) return null;
  let parts = value
    .map((part) => scalarText(part))
    .filter((part): part is string => part !== null && part.trim() !== "")
    .map((part) => storableText(part));
  if (parts.length === 0) return null;
  if (parts.some((part) => part.length > MAX_FINGERPRINT_PART_CHARS)) {
    parts = parts.map((part) => (part.length > MAX_FINGERPRINT_PART_CHARS ? `${part.slice(0, 180)}#${shortHash(part)}` : part));
    notes.push(`fingerprint: parts longer than ${MAX_FINGERPRINT_PART_CHARS} characters shortened to a prefix and a hash`);
  }
  if (parts.length > MAX_FINGERPRINT_PARTS) {
    const rest = parts.slice(MAX_FINGERPRINT_PARTS - 1);
    parts = [...parts.slice(0, MAX_FINGERPRINT_PARTS - 1), `#${shortHash(JSON.stringify(rest))}`];
    notes.push(`fingerprint: parts past the ${MAX_FINGERPRINT_PARTS - 1}th folded into one hash`);
  }
  return parts;
}

function shortHash(text: string): string {
  return createHash("sha256").update(text).digest("hex").slice(0, 16);
}

/**
 * The event's time: Sentry sends seconds as a number (with a fraction) or
 * an RFC 3339 string (sentry-ruby, without offset meaning UTC). Numbers
 * from 10^12 up are taken as milliseconds, as on the native API. Anything
 * unreadable or outside years 0001-9999 is null (the server's time is used).
 */
export function mapTimestamp(value: unknown): Date | null {
  if (typeof value === "number") return Number.isFinite(value) && value >= 0 ? supportedTime(unixTimestampToMs(value)) : null;
  if (typeof value !== "string") return null;
  const text = value.trim();
  if (/^\d+(\.\d+)?$/.test(text)) return mapTimestamp(Number(text));
  // A date-time without an offset is UTC in Sentry's protocol; Date.parse would take local time.
  const withZone = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?$/.test(text) ? `${text}Z` : text;
  if (!/^\d{4}-\d{2}-\d{2}T/.test(withZone)) return null;
  return supportedTime(Date.parse(withZone));
}
