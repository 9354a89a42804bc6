import { createHash } from "node:crypto";
import type { EventLevel } from "@/lib/events/schema";
import { errors } from "@/lib/http/errors";
import { boundMessage, isRecord, mapEnvironment, mapRelease, mapTimestamp, mapUser, scalarText, type Notes } from "@/lib/sentry/fields";
import { storableNotes } from "@/lib/sentry/map-event";
import { boundedJson, defineValue, makeStorable, type StorableReport } from "@/lib/sentry/storable";
import { fitEvent, recordNotes } from "@/lib/sentry/trim";
import type { MappingContext, SentryEvent } from "@/lib/sentry/types";

/**
 * A Sentry `log` item (the SDKs' structured logs, Sentry.logger.*):
 * `{items: [{timestamp, level, body, trace_id, severity_number,
 * attributes: {name: {value, type}}}]}`, each log one Telltale event:
 *
 * - level: fatal/error -> error, warn -> warn, info/debug/trace -> info
 *   (by `severity_number` when the level is missing or unknown);
 * - message: `body`; timestamp: `timestamp` (seconds);
 * - release, environment, user from the `sentry.release`,
 *   `sentry.environment`, `user.id`, `user.email`, `user.name` attributes;
 * - context: `attributes` (name -> value; the `sentry.*` ones the SDK adds
 *   go to `sentry`, with the message template and its parameters),
 *   `trace_id`, `span_id`, `severity_number`, `sentry.level` (the
 *   original level) and `sentry.item: "log"`.
 *
 * Logs carry no id: each gets one derived from its content and place in
 * the item, so that an SDK resending the same envelope stores nothing new
 * (the event_id idempotency), while two logs of one item never share one.
 */
export function mapSentryLogs(payload: unknown, context: MappingContext & { where?: string; payloadBytes?: number }): SentryEvent[] {
  const where = context.where ?? "The log item";
  const logs = isRecord(payload) ? payload.items : undefined;
  if (!Array.isArray(logs)) throw errors.invalidJson(`${where} is not a JSON object with an "items" array of logs.`);
  return logs.map((log, i) => mapLog(log, i, context, `${where}, log ${i}`));
}

/** How many logs a `log` item holds, read without mapping them (for the envelope's limit). */
export function countLogs(payload: unknown): number {
  return isRecord(payload) && Array.isArray(payload.items) ? payload.items.length : 0;
}

function mapLog(log: unknown, index: number, context: MappingContext & { payloadBytes?: number }, where: string): SentryEvent {
  if (!isRecord(log)) throw errors.invalidJson(`${where} is not a JSON object.`);
  // Before anything below changes the log in place.
  const eventId = createHash("sha256").update(`${index}\u0001${boundedJson(log)}`).digest("hex").slice(0, 32);
  const notes: Notes = [];
  const attributes: Record<string, unknown> = {};
  const sentry: Record<string, unknown> = { item: "log" };
  if (typeof log.level === "string") sentry.level = log.level;
  const raw = isRecord(log.attributes) ? log.attributes : {};
  for (const name of Object.keys(raw)) {
    const attribute = raw[name];
    // {value, type} as the protocol says; a bare value is taken as it is.
    const value = isRecord(attribute) && "value" in attribute ? attribute.value : attribute;
    if (name.startsWith("sentry.")) defineValue(sentry, name.slice("sentry.".length), value);
    else defineValue(attributes, name, value);
  }

  const out: Record<string, unknown> = {};
  if (Object.keys(attributes).length > 0) out.attributes = attributes;
  for (const key of ["trace_id", "span_id", "severity_number"] as const) if (log[key] !== undefined && log[key] !== null) out[key] = log[key];
  out.sentry = sentry;
  const report: StorableReport = { textFixed: 0, cut: 0 };
  makeStorable(out, 1, report);
  storableNotes(report, notes);

  const body = scalarText(log.body) ?? (log.body === undefined || log.body === null ? "" : boundedJson(log.body, 8));
  const { user } = mapUser({ id: attributes["user.id"], email: attributes["user.email"], username: attributes["user.name"] }, context.clientAddress, notes);
  const event = {
    level: logLevel(log.level, log.severity_number),
    message: boundMessage(body.trim() || "<no message>", notes),
    projectId: context.projectId,
    context: out,
    timestamp: mapTimestamp(log.timestamp),
    fingerprint: null,
    release: mapRelease(sentry.release, notes),
    environment: mapEnvironment(sentry.environment, notes),
    tags: null,
    user,
  };
  fitEvent(event, notes, context.payloadBytes);
  recordNotes(event, notes);
  return { eventId, event };
}

/** Sentry log levels (trace, debug, info, warn, error, fatal), else OpenTelemetry's severity number ranges. */
function logLevel(level: unknown, severity: unknown): EventLevel {
  switch (typeof level === "string" ? level.trim().toLowerCase() : "") {
    case "fatal":
    case "error":
      return "error";
    case "warn":
    case "warning":
      return "warn";
    case "trace":
    case "debug":
    case "info":
      return "info";
  }
  const n = typeof severity === "number" ? severity : NaN;
  if (n >= 17) return "error";
  if (n >= 13) return "warn";
  return "info";
}
