import { errors } from "@/lib/http/errors";
import { normalizeEventId, newSentryEventId } from "@/lib/sentry/event-id";
import {
  boundMessage,
  isRecord,
  mapEnvironment,
  mapFingerprint,
  mapLevel,
  mapRelease,
  mapTags,
  mapTimestamp,
  mapUser,
  scalarText,
  type Notes,
} from "@/lib/sentry/fields";
import { boundedJson, defineValue, makeStorable, type StorableReport } from "@/lib/sentry/storable";
import { fitEvent, recordNotes } from "@/lib/sentry/trim";
import { MAX_BREADCRUMBS, type MappedEvent, type MappingContext, type SentryEvent } from "@/lib/sentry/types";
import { contextsWithUserAgent } from "@/lib/sentry/user-agent";
import { plural } from "@/lib/text/plural";

/**
 * One Sentry event payload (an envelope's `event` item, or a store body)
 * as a Telltale event (SPEC "Sentry SDK compatibility", "Mapping"):
 *
 * - level: fatal/error -> error, warning -> warn, info/debug/log -> info
 *   (the original in `context.sentry.level`; none sent: error, as Sentry);
 * - message: the outermost exception's `Type: value` (the last of
 *   `exception.values`), else `logentry.formatted` (or `logentry.message`
 *   with its params), else `message`, else `<no message>`;
 * - timestamp: the event's `timestamp` (seconds or RFC 3339);
 * - release, environment, tags, user, fingerprint: the contract's fields;
 * - context: `exception` ({values}, Sentry order, frames as sent),
 *   `breadcrumbs` ({values}, the last 100), `request` (without Cookie,
 *   Authorization and Proxy-Authorization headers nor `cookies`),
 *   `contexts` (with `browser` and `os` from the request's User-Agent
 *   where the SDK sent none, as Sentry does), `extra`, `sdk`, `server_name`, `transaction`, `platform`,
 *   `logger`, `dist`, `logentry`, `threads` and `stacktrace` when sent;
 *   `sentry` (the event_id, the original level, the other user fields,
 *   dropped tags);
 *   `_telltale.trimmed` when anything was cut. `modules`, `debug_meta`,
 *   `spans`, `measurements`, `_meta` and other fields are not kept.
 *
 * The result passes the store's rules whatever the payload (NUL and lone
 * surrogates replaced, nesting cut at 32 levels, numbers exact, at most
 * 1 MiB: lib/sentry/trim.ts). A payload that is not a JSON object is a 400.
 */
export function mapSentryEvent(
  payload: unknown,
  context: MappingContext & {
    /** The envelope header's event_id, used when the payload has none. */
    fallbackEventId?: string | null;
    /** Size of the payload as sent: small ones skip measuring. */
    payloadBytes?: number;
    /** Names the payload in an error's detail ("Item 2 (event)"). */
    where?: string;
    /** Read from text that vouches that makeStorable would change nothing (lib/sentry/items.ts). */
    storable?: boolean;
  },
): SentryEvent {
  const where = context.where ?? "The event";
  if (!isRecord(payload)) throw errors.invalidJson(`${where} is not a JSON object.`);
  let eventId = context.fallbackEventId ?? null;
  if (payload.event_id !== undefined && payload.event_id !== null) {
    eventId = normalizeEventId(payload.event_id);
    if (!eventId) throw errors.invalidJson(`${where} has an event_id that is not 32 hexadecimal digits (or a UUID).`);
  }
  eventId ??= newSentryEventId();
  const notes: Notes = [];

  const exception = mapException(payload.exception);
  const message = messageOf(payload, exception);
  const out: Record<string, unknown> = {};
  if (exception) out.exception = exception;
  const breadcrumbs = mapBreadcrumbs(payload.breadcrumbs, notes);
  if (breadcrumbs) out.breadcrumbs = breadcrumbs;
  const request = mapRequest(payload.request);
  if (request) out.request = request;
  for (const key of KEPT_AS_SENT) {
    const value = payload[key];
    if (isEmpty(value)) continue;
    // Threads matter for their stacks (sentry-python attaches a message's stack there); ids alone are noise.
    if (key === "threads" && !(isRecord(value) && Array.isArray(value.values) && value.values.some((t) => isRecord(t) && isRecord(t.stacktrace)))) continue;
    defineValue(out, key, value);
  }
  const contexts = contextsWithUserAgent(request, out.contexts);
  if (contexts) out.contexts = contexts;
  const logentry = logentryToKeep(payload, message.from);
  if (logentry) out.logentry = logentry;

  const sentry: Record<string, unknown> = { event_id: eventId };
  if (typeof payload.level === "string") sentry.level = payload.level;
  const { user, rest: userRest } = mapUser(payload.user, context.clientAddress, notes);
  if (userRest) sentry.user = userRest;
  const { tags, dropped: droppedTags } = mapTags(payload.tags, notes);
  if (droppedTags) sentry.dropped_tags = droppedTags;
  out.sentry = sentry;

  if (!context.storable) {
    const report: StorableReport = { textFixed: 0, cut: 0 };
    makeStorable(out, 1, report);
    storableNotes(report, notes);
  }

  const event: MappedEvent = {
    level: mapLevel(payload.level),
    message: boundMessage(message.text, notes),
    projectId: context.projectId,
    context: out,
    timestamp: mapTimestamp(payload.timestamp),
    fingerprint: mapFingerprint(payload.fingerprint, notes),
    release: mapRelease(payload.release, notes),
    environment: mapEnvironment(payload.environment, notes),
    tags,
    user,
  };
  fitEvent(event, notes, context.payloadBytes);
  recordNotes(event, notes);
  return { eventId, event };
}

/** Top-level fields kept in the context as the SDK sent them. */
const KEPT_AS_SENT = ["contexts", "extra", "sdk", "server_name", "transaction", "platform", "logger", "dist", "threads", "stacktrace"] as const;

function isEmpty(value: unknown): boolean {
  if (value === undefined || value === null || value === "") return true;
  if (Array.isArray(value)) return value.length === 0;
  return isRecord(value) && Object.keys(value).length === 0;
}

export function storableNotes(report: StorableReport, notes: Notes): void {
  if (report.textFixed) notes.push(`text: ${plural(report.textFixed, "string")} of the context with NUL characters or lone surrogates repaired (U+FFFD)`);
  if (report.cut) notes.push(`nesting: ${plural(report.cut, "value")} deeper than 32 levels replaced by "[Object]" or "[Array]"`);
}

/** `{values: [...]}` (or the bare array older SDKs send), each value an object with a stacktrace of object frames. */
function mapException(value: unknown): { values: Record<string, unknown>[] } | null {
  const list = Array.isArray(value) ? value : isRecord(value) && Array.isArray(value.values) ? value.values : null;
  if (!list) return null;
  const values: Record<string, unknown>[] = [];
  for (const item of list) {
    if (!isRecord(item)) continue;
    for (const field of ["type", "value", "module"] as const) {
      if (item[field] === undefined || typeof item[field] === "string") continue;
      const text = scalarText(item[field]);
      if (text === null) delete item[field];
      else item[field] = text;
    }
    if (isRecord(item.stacktrace)) {
      const frames = item.stacktrace.frames;
      item.stacktrace.frames = Array.isArray(frames) ? frames.filter(isRecord) : [];
    } else if (item.stacktrace !== undefined) {
      delete item.stacktrace;
    }
    values.push(item);
  }
  return values.length > 0 ? { values } : null;
}

type MessageSource = "exception" | "logentry" | "message" | "none";

function messageOf(payload: Record<string, unknown>, exception: { values: Record<string, unknown>[] } | null): { text: string; from: MessageSource } {
  const outermost = exception?.values.at(-1);
  if (outermost) {
    const type = typeof outermost.type === "string" ? outermost.type.trim() : "";
    const value = typeof outermost.value === "string" ? outermost.value.trim() : "";
    const text = type && value ? `${type}: ${value}` : type || value;
    if (text) return { text, from: "exception" };
  }
  const logentry = formatLogentry(payload.logentry);
  if (logentry) return { text: logentry, from: "logentry" };
  const message = typeof payload.message === "string" ? payload.message.trim() : formatLogentry(payload.message);
  if (message) return { text: message, from: "message" };
  return { text: "<no message>", from: "none" };
}

/** `formatted`, else `message` with its params applied (`%s`-style or `{}`-style, positional or named). */
function formatLogentry(value: unknown): string | null {
  if (!isRecord(value)) return null;
  if (typeof value.formatted === "string" && value.formatted.trim()) return value.formatted.trim();
  if (typeof value.message !== "string" || !value.message.trim()) return null;
  return applyParams(value.message, value.params).trim() || null;
}

function paramText(value: unknown): string {
  const text = scalarText(value);
  if (text !== null) return text;
  return value === undefined ? "" : boundedJson(value, 8);
}

function applyParams(template: string, params: unknown): string {
  if (Array.isArray(params)) {
    let next = 0;
    const positional = template.replace(/%%|%[-+ #0]*\d*(?:\.\d+)?[sdifrx]|\{\}/g, (token) => {
      if (token === "%%") return "%";
      return next < params.length ? paramText(params[next++]) : token;
    });
    return positional;
  }
  if (isRecord(params)) {
    return template.replace(/%\((\w+)\)[-+ #0]*\d*(?:\.\d+)?[sdifrx]|\{(\w+)\}/g, (token, a: string | undefined, b: string | undefined) => {
      const name = (a ?? b)!;
      return Object.hasOwn(params, name) ? paramText(params[name]) : token;
    });
  }
  return template;
}

/** The logentry (or plain message) as sent, when the message text came from elsewhere or it carries params. */
function logentryToKeep(payload: Record<string, unknown>, from: MessageSource): Record<string, unknown> | null {
  if (isRecord(payload.logentry) && (from !== "logentry" || payload.logentry.params !== undefined)) return payload.logentry;
  if (typeof payload.message === "string" && payload.message.trim() && from !== "message") return { formatted: payload.message };
  if (isRecord(payload.message) && from !== "message") return payload.message;
  return null;
}

/** The last 100 breadcrumbs, oldest first, from `{values: [...]}` or a bare array. */
function mapBreadcrumbs(value: unknown, notes: Notes): { values: unknown[] } | null {
  const list = Array.isArray(value) ? value : isRecord(value) && Array.isArray(value.values) ? value.values : null;
  if (!list) return null;
  const crumbs = list.filter(isRecord);
  if (crumbs.length === 0) return null;
  if (crumbs.length > MAX_BREADCRUMBS) {
    notes.push(`breadcrumbs: ${crumbs.length - MAX_BREADCRUMBS} of ${crumbs.length} dropped (the last ${MAX_BREADCRUMBS} are kept)`);
    return { values: crumbs.slice(-MAX_BREADCRUMBS) };
  }
  return { values: crumbs };
}

/** Headers that carry credentials: never stored. */
const SECRET_HEADERS = new Set(["cookie", "set-cookie", "authorization", "proxy-authorization", "x-sentry-auth"]);

/**
 * The request without its credentials: Cookie, Authorization and
 * Proxy-Authorization headers (in object or [name, value] form) and
 * `cookies` are removed. The query string is kept as sent: what it may
 * hold is the SDK's to scrub (they do, with sendDefaultPii off).
 */
function mapRequest(value: unknown): Record<string, unknown> | null {
  if (!isRecord(value)) return null;
  const request: Record<string, unknown> = {};
  for (const key of Object.keys(value)) {
    if (key === "cookies") continue;
    if (key === "headers") {
      const headers = value.headers;
      if (Array.isArray(headers)) {
        request.headers = headers.filter((pair) => !(Array.isArray(pair) && typeof pair[0] === "string" && SECRET_HEADERS.has(pair[0].trim().toLowerCase())));
      } else if (isRecord(headers)) {
        const kept: Record<string, unknown> = {};
        for (const name of Object.keys(headers)) if (!SECRET_HEADERS.has(name.trim().toLowerCase())) defineValue(kept, name, headers[name]);
        request.headers = kept;
      }
      continue;
    }
    defineValue(request, key, value[key]);
  }
  return Object.keys(request).length > 0 ? request : null;
}
