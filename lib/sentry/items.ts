import { MAX_DEPTH } from "@/lib/events/schema";
import { AppError, errors } from "@/lib/http/errors";
import { describeType, type Envelope } from "@/lib/sentry/envelope";
import { isRecord } from "@/lib/sentry/fields";
import { readSdkJson } from "@/lib/sentry/json";
import { mapSentryEvent } from "@/lib/sentry/map-event";
import { countLogs, mapSentryLogs } from "@/lib/sentry/map-log";
import type { MappingContext, SentryEvent } from "@/lib/sentry/types";

/**
 * What an envelope (or a store body) becomes (SPEC "Envelope items"):
 * `event` items are events, `log` items one event per log, every other
 * item is dropped and counted by type, for the project's settings page.
 */
export type SentryIngest = {
  /** For the answer `{"id"}`: the envelope's event_id, else its first event's, else null. */
  eventId: string | null;
  /** Ready to store, each with its own event id (idempotency). */
  events: SentryEvent[];
  /** Items dropped, per type: the known Sentry types by name (a repeated event_id as "event"), anything else as "unknown". */
  dropped: Record<string, number>;
};

/** Events (error events and logs together) one envelope may hold; a batch of the native API holds as many. */
export const MAX_EVENTS_PER_ENVELOPE = 1_000;

/**
 * Item types Sentry defines that Telltale accepts and drops, counted under
 * their own name. Another type is counted as "unknown", so that a client
 * cannot make up counters.
 */
export const DROPPED_ITEM_TYPES = new Set([
  "transaction",
  "span",
  "otel_span",
  "session",
  "sessions",
  "client_report",
  "attachment",
  "profile",
  "profile_chunk",
  "replay_event",
  "replay_recording",
  "replay_video",
  "check_in",
  "statsd",
  "metric_buckets",
  "trace_metric",
  "feedback",
  "user_report",
  "otel_log",
  "security",
  "raw_security",
  "form_data",
  "nel",
  "unreal_report",
]);

/** An envelope's items as events to store and counts of what was dropped; a payload that cannot be read is a 400. */
export function envelopeToEvents(envelope: Envelope, context: MappingContext): SentryIngest {
  const events: SentryEvent[] = [];
  const dropped: Record<string, number> = {};
  const drop = (type: string) => {
    const name = DROPPED_ITEM_TYPES.has(type) || type === "event" ? type : "unknown";
    dropped[name] = (dropped[name] ?? 0) + 1;
  };
  const seen = new Set<string>();
  let firstEvent = true;
  for (const item of envelope.items) {
    const where = `Item ${item.position} (${describeType(item.type)})`;
    if (item.type === "event") {
      const { payload, storable } = parsePayload(item.payload, where);
      // An event item holding a transaction is a transaction.
      if (isRecord(payload) && payload.type === "transaction") {
        drop("transaction");
        continue;
      }
      const mapped = mapSentryEvent(payload, {
        ...context,
        fallbackEventId: firstEvent ? envelope.header.eventId : null,
        payloadBytes: item.payload.length,
        where,
        storable,
      });
      firstEvent = false;
      if (seen.has(mapped.eventId)) {
        drop("event");
        continue;
      }
      seen.add(mapped.eventId);
      events.push(mapped);
    } else if (item.type === "log") {
      const { payload } = parsePayload(item.payload, where);
      if (events.length + countLogs(payload) > MAX_EVENTS_PER_ENVELOPE) throw tooManyEvents();
      events.push(...mapSentryLogs(payload, { ...context, payloadBytes: item.payload.length, where }));
    } else {
      drop(item.type);
    }
    if (events.length > MAX_EVENTS_PER_ENVELOPE) throw tooManyEvents();
  }
  // Cut at the decoded limit inside an item Telltale drops anyway (a large
  // attachment, a replay): the events before it are stored, as Sentry
  // stores them. Nothing after the cut was read. An event or log cut is the
  // 413 the limit gives.
  if (envelope.cut !== null) {
    const { type } = envelope.cut;
    if (type === null || type === "event" || type === "log") throw cutTooLarge(envelope.cut.position, type);
    drop(type);
  }
  return { eventId: envelope.header.eventId ?? events[0]?.eventId ?? null, events, dropped };
}

function cutTooLarge(position: number, type: string | null): AppError {
  return new AppError(413, "payload_too_large", `The envelope decodes to more than the limit; its item ${position}${type ? ` (${describeType(type)})` : ""} does not fit.`);
}

/** The body of POST /api/<n>/store/: one event as JSON. */
export function storeBodyToEvents(body: Buffer, context: MappingContext): SentryIngest {
  const { payload, storable } = parsePayload(body, "The request body");
  if (isRecord(payload) && payload.type === "transaction") return { eventId: null, events: [], dropped: { transaction: 1 } };
  const event = mapSentryEvent(payload, { ...context, payloadBytes: body.length, where: "The request body", storable });
  return { eventId: event.eventId, events: [event], dropped: {} };
}

function tooManyEvents(): AppError {
  return new AppError(413, "payload_too_large", `The envelope holds more than ${MAX_EVENTS_PER_ENVELOPE} events and logs; send them in several envelopes.`);
}

/** Replaces invalid UTF-8 (a payload is not refused for one bad byte of a log line); holds no state between calls. */
const utf8 = new TextDecoder("utf-8");

/**
 * JSON of an SDK: UTF-8, invalid sequences replaced, numbers kept exact.
 * `storable`: the text vouches that the mapped event needs no repair
 * (lib/sentry/storable.ts): it has no `\u` escape, so (decoded with
 * replacement, its raw control characters refused by JSON) no string or key
 * holds a NUL or a lone surrogate; and it nests at most MAX_DEPTH - 1
 * levels, since mapping puts a value at most one level deeper than the
 * payload had it (the user's other fields under `sentry.user`, a bare
 * array of exceptions under `values`).
 */
function parsePayload(bytes: Buffer, where: string): { payload: unknown; storable: boolean } {
  const text = utf8.decode(bytes);
  if (text.trim() === "") throw errors.invalidJson(`${where} is empty.`);
  try {
    const { value, maxDepth } = readSdkJson(text);
    return { payload: value, storable: maxDepth <= MAX_DEPTH - 1 && !text.includes("\\u") };
  } catch (error) {
    const reason = error instanceof SyntaxError ? ` ${error.message}` : "";
    throw errors.invalidJson(`${where} is not valid JSON.${reason}`);
  }
}
