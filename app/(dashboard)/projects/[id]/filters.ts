import { z } from "zod";
import type { EventFilterValues } from "@/components/event-filters";
import type { IssueFilterValues } from "@/components/issue-filters";
import { cursorParamSchema, levelsParamSchema, MAX_SEARCH_CHARS, searchTextSchema, tagFiltersParamSchema, type TagFilter } from "@/lib/events/filters";
import type { EventLevel } from "@/lib/events/schema";
import { supportedTime } from "@/lib/events/time";
import { DEFAULT_RANGE, RANGES, TIME_RANGES, type Range } from "@/lib/events/time-ranges";
import { knownTimeZone, wallTimeToUtc } from "@/lib/events/wall-time";
import { ISSUE_SORTS, ISSUE_STATUSES, issuesQuerySchema, type IssueSort, type IssueStatus } from "@/lib/issues/filters";

type SearchParams = Record<string, string | string[] | undefined>;

export { DEFAULT_RANGE, RANGES, type Range } from "@/lib/events/time-ranges";
const RANGE_MS = Object.fromEntries(RANGES.map((r) => [r, TIME_RANGES[r].ms])) as Record<string, number>;

/** "the last 24 hours": how a page names a period in a sentence. */
export const RANGE_PHRASES = Object.fromEntries(RANGES.map((r) => [r, TIME_RANGES[r].phrase])) as Record<Range, string>;

function isRange(value: string): value is Range {
  return (RANGES as readonly string[]).includes(value);
}

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
 * `YYYY-MM-DDTHH:mm` from a datetime-local input, read in the reader's zone
 * `tz`: an IANA name ("Europe/Paris", "UTC"), each time with its own date's
 * offset; or, in links made before, a getTimezoneOffset value in minutes.
 * Undefined outside the years the database takes.
 */
function parseLocal(value: string, tz: string): Date | undefined {
  if (!/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?$/.test(value)) return undefined;
  const zone = knownTimeZone(tz);
  if (zone) return supportedTime(wallTimeToUtc(value, zone)) ?? undefined;
  const asUtc = Date.parse(`${value}Z`);
  if (Number.isNaN(asUtc)) return undefined;
  const offset = /^-?\d+$/.test(tz) ? Number(tz) : 0;
  return supportedTime(asUtc + (Math.abs(offset) <= 24 * 60 ? offset : 0) * 60_000) ?? undefined;
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

export type IssueQuery = {
  values: IssueFilterValues;
  status: IssueStatus;
  level?: EventLevel[];
  q?: string;
  environment?: string;
  release?: string;
  tag?: TagFilter[];
  range: Range;
  since: Date;
  sort: IssueSort;
  cursor?: string;
};

const statusSchema = z.enum(ISSUE_STATUSES);
const sortSchema = z.enum(ISSUE_SORTS);
const issueCursorSchema = issuesQuerySchema.shape.cursor;
const environmentSchema = issuesQuerySchema.shape.environment.unwrap();
const releaseSchema = issuesQuerySchema.shape.release.unwrap();

/**
 * The issues page's URL -> what to ask `listProjectIssues`, by the API's
 * rules; anything the API would refuse means the default (open issues of the
 * last 24 hours, last seen first). A cursor is checked for shape only: one of
 * another sort is refused by the lib, and the page then starts over.
 */
export function parseIssueQuery(params: SearchParams, now = new Date()): IssueQuery {
  const status = lenient(statusSchema, single(params.status)) ?? "open";
  const level = lenient(levelsParamSchema, single(params.level));
  const q = lenient(searchTextSchema, single(params.q).replace(CONTROL_CHARS, "").slice(0, MAX_SEARCH_CHARS));
  const rawRange = single(params.range);
  const range: Range = isRange(rawRange) ? rawRange : DEFAULT_RANGE;
  const sort = lenient(sortSchema, single(params.sort)) ?? "last_seen";
  const cursor = lenient(issueCursorSchema, single(params.cursor));
  const environment = lenient(environmentSchema, single(params.environment).replace(CONTROL_CHARS, ""));
  const release = lenient(releaseSchema, single(params.release).replace(CONTROL_CHARS, ""));
  const tag = eventTagFilters(params);
  return {
    values: {
      status,
      level: level?.length === 1 ? level[0]! : "",
      q: q ?? "",
      range,
      sort,
      environment: environment ?? "",
      release: release ?? "",
      tag: tag.map((t) => `${t.key}:${t.value}`),
    },
    status,
    level,
    q,
    environment,
    release,
    tag: tag.length > 0 ? tag : undefined,
    range,
    since: new Date(now.getTime() - RANGE_MS[range]!),
    sort,
    cursor,
  };
}

/** The same issue filters as URL parameters, defaults left out, with changes (another status, period or page). */
export function issueQueryString(query: IssueQuery, change: { status?: IssueStatus; range?: Range; cursor?: string } = {}): string {
  const params = new URLSearchParams();
  const status = change.status ?? query.status;
  const range = change.range ?? query.range;
  if (status !== "open") params.set("status", status);
  if (query.level) params.set("level", query.level.join(","));
  if (query.q) params.set("q", query.q);
  if (query.environment) params.set("environment", query.environment);
  if (query.release) params.set("release", query.release);
  for (const t of query.tag ?? []) params.append("tag", `${t.key}:${t.value}`);
  if (range !== DEFAULT_RANGE) params.set("range", range);
  if (query.sort !== "last_seen") params.set("sort", query.sort);
  if (change.cursor) params.set("cursor", change.cursor);
  const text = params.toString();
  return text ? `?${text}` : "";
}

/**
 * An issue page's period: the `range` in the URL, or else the shortest that
 * reaches back to the issue's last event (so a link without one still shows
 * its latest activity).
 */
export function issuePeriod(params: SearchParams, lastSeen?: string, now = new Date()): { range: Range; since: Date; explicit: boolean } {
  const raw = single(params.range);
  const explicit = isRange(raw);
  let range: Range = explicit ? raw : DEFAULT_RANGE;
  if (!explicit && lastSeen) {
    const age = now.getTime() - Date.parse(lastSeen);
    range = RANGES.find((r) => RANGE_MS[r]! > age && RANGE_MS[r]! >= RANGE_MS[DEFAULT_RANGE]!) ?? "30d";
  }
  return { range, since: new Date(now.getTime() - RANGE_MS[range]!), explicit };
}

/** `?cursor=` for pages of events under a fixed period (the issue page). */
export function eventPageCursor(params: SearchParams): string | undefined {
  return lenient(cursorParamSchema, single(params.cursor));
}

/** `?tag=key:value` (repeatable) on an issue's page: its events with those tags; what the API would refuse means none. */
export function eventTagFilters(params: SearchParams): TagFilter[] {
  const raw = params.tag;
  if (raw === undefined) return [];
  const result = tagFiltersParamSchema.safeParse(raw);
  return result.success ? result.data : [];
}
