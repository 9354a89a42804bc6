import type { EventFilterValues } from "@/components/event-filters";
import { cursorParamSchema, levelsParamSchema, MAX_SEARCH_CHARS, searchTextSchema } from "@/lib/events/filters";
import type { EventLevel } from "@/lib/events/schema";
import { supportedTime } from "@/lib/events/time";

type SearchParams = Record<string, string | string[] | undefined>;

const RANGE_MS: Record<string, number> = { "1h": 3_600_000, "24h": 86_400_000, "7d": 7 * 86_400_000, "30d": 30 * 86_400_000 };
export const DEFAULT_RANGE = "24h";

export type EventQuery = {
  values: EventFilterValues;
  level?: EventLevel[];
  q?: string;
  since: Date;
  until?: Date;
  cursor?: string;
};

function single(value: string | string[] | undefined): string {
  return typeof value === "string" ? value : "";
}

/**
 * `YYYY-MM-DDTHH:mm` from a datetime-local input, in the browser's zone (`tz`:
 * getTimezoneOffset minutes); undefined outside the years the database takes.
 */
function parseLocal(value: string, tz: string): Date | undefined {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(value)) return undefined;
  const asUtc = Date.parse(`${value}Z`);
  if (Number.isNaN(asUtc)) return undefined;
  const offset = Number(tz);
  return supportedTime(asUtc + (Number.isFinite(offset) && Math.abs(offset) <= 24 * 60 ? offset : 0) * 60_000) ?? undefined;
}

// Typed or pasted control characters (NUL even fails in PostgreSQL) match nothing anyway.
const CONTROL_CHARS = /[\u0000-\u001f\u007f-\u009f]/g;

/** A URL value through the API's schema; what it refuses falls back to `undefined` (the default view). */
function lenient<T>(schema: { safeParse(v: unknown): { success: true; data: T } | { success: false } }, value: string): T | undefined {
  if (!value) return undefined;
  const result = schema.safeParse(value);
  return result.success ? result.data : undefined;
}

/**
 * The events page's URL -> what to ask the query layer, by the API's rules
 * (lib/events/filters.ts); a value the API would refuse means the default
 * view here, because a page never answers 400.
 */
export function parseEventQuery(params: SearchParams, now = new Date()): EventQuery {
  const level = lenient(levelsParamSchema, single(params.level));
  const q = lenient(searchTextSchema, single(params.q).replace(CONTROL_CHARS, "").slice(0, MAX_SEARCH_CHARS));
  let range = single(params.range) || DEFAULT_RANGE;
  if (range !== "custom" && !(range in RANGE_MS)) range = DEFAULT_RANGE;
  const from = single(params.from);
  const to = single(params.to);
  const tz = single(params.tz);

  let since = new Date(now.getTime() - (RANGE_MS[range] ?? RANGE_MS[DEFAULT_RANGE]!));
  let until: Date | undefined;
  if (range === "custom") {
    since = parseLocal(from, tz) ?? new Date(now.getTime() - RANGE_MS[DEFAULT_RANGE]!);
    until = parseLocal(to, tz);
    if (until && until <= since) until = undefined;
    // A start in the future would make an empty, inverted range.
    if (!until && since >= now) since = new Date(now.getTime() - RANGE_MS[DEFAULT_RANGE]!);
  }
  const cursor = lenient(cursorParamSchema, single(params.cursor));
  return { values: { level: level?.length === 1 ? level[0]! : "", q: q ?? "", range, from, to }, level, q, since, until, cursor };
}

/** The same filters as URL parameters, with a different cursor (or none: the newest page). */
export function eventQueryString(query: EventQuery, cursor?: string, tz?: string): string {
  const params = new URLSearchParams();
  if (query.level) params.set("level", query.level.join(","));
  if (query.q) params.set("q", query.q);
  if (query.values.range !== DEFAULT_RANGE) params.set("range", query.values.range);
  if (query.values.range === "custom") {
    if (query.values.from) params.set("from", query.values.from);
    if (query.values.to) params.set("to", query.values.to);
    if (tz) params.set("tz", tz);
  }
  if (cursor) params.set("cursor", cursor);
  const text = params.toString();
  return text ? `?${text}` : "";
}
