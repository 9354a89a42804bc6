import {
  MAX_DEPTH,
  MAX_ENVIRONMENT_CHARS,
  MAX_MESSAGE_CHARS,
  MAX_RELEASE_CHARS,
  MAX_TAG_VALUE_CHARS,
  MAX_USER_FIELD_CHARS,
  type EventUser,
  type ValidEvent,
} from "@/lib/events/schema";
import { supportedTime } from "@/lib/events/time";
import { MAX_QUOTED_REJECTIONS, MAX_RECORD_ATTRIBUTES, MAX_RECORD_CONTEXT_CHARS } from "@/lib/otlp/limits";
import { setKey, type OtlpAttributes, type OtlpLogRecord, type OtlpLogsRequest, type OtlpScope, type OtlpValue } from "@/lib/otlp/model";
import { pluralWord } from "@/lib/text/plural";

/** One log record as a Telltale event, release, environment, tags and user filled from OpenTelemetry's conventions. */
export type OtlpEvent = ValidEvent;

/** What a request gave: the events to store, and what `partialSuccess` says about the rest. */
export type OtlpLogsResult = { events: OtlpEvent[]; rejected: number; errorMessage: string };

/** Each record of the request as an event; a record that cannot be one is counted with its reason. */
export function mapLogsRequest(request: OtlpLogsRequest, projectId: string): OtlpLogsResult {
  const events: OtlpEvent[] = [];
  const reasons: string[] = [];
  let rejected = 0;
  request.resourceLogs.forEach((resourceLogs, r) => {
    const resource = resourcePart(resourceLogs.resource);
    resourceLogs.scopeLogs.forEach((scopeLogs, s) => {
      const scope = scopePart(scopeLogs.scope);
      scopeLogs.records.forEach((record, i) => {
        const mapped = "unreadable" in record ? { problem: record.unreadable } : mapLogRecord(record, resource, scope, projectId);
        if ("event" in mapped) {
          events.push(mapped.event);
          return;
        }
        rejected++;
        if (reasons.length < MAX_QUOTED_REJECTIONS) reasons.push(`resourceLogs[${r}].scopeLogs[${s}].logRecords[${i}]: ${mapped.problem}`);
      });
    });
  });
  return { events, rejected, errorMessage: rejectionMessage(rejected, events.length + rejected, reasons) };
}

function rejectionMessage(rejected: number, total: number, reasons: string[]): string {
  if (rejected === 0) return "";
  const more = rejected - reasons.length;
  // Each reason is a sentence ending with a period.
  return `${rejected} of ${total} ${pluralWord(total, "log record")} rejected; the others were stored. ${reasons.join(" ")}${more > 0 ? ` (${more} more not listed.)` : ""}`;
}

// ---- The parts shared by the records of one resource and one scope (mapped and checked once) ----

type Checked = { problem: string | null; size: number };

type ResourcePart = Checked & {
  attributes: OtlpAttributes | null;
  environment: string | null;
  release: string | null;
  service: string | null;
  host: string | null;
};

function resourcePart(attributes: OtlpAttributes): ResourcePart {
  const empty = Object.keys(attributes).length === 0;
  return {
    ...(empty ? { problem: null, size: 0 } : checkValue(attributes, 2)),
    attributes: empty ? null : attributes,
    // deployment.environment.name is the current convention, deployment.environment the older one.
    environment: text(attributes["deployment.environment.name"], MAX_ENVIRONMENT_CHARS) ?? text(attributes["deployment.environment"], MAX_ENVIRONMENT_CHARS),
    release: text(attributes["service.version"], MAX_RELEASE_CHARS),
    service: text(attributes["service.name"], MAX_TAG_VALUE_CHARS),
    host: text(attributes["host.name"], MAX_TAG_VALUE_CHARS),
  };
}

type ScopePart = Checked & { context: Record<string, unknown> | null; tag: string | null };

function scopePart(scope: OtlpScope): ScopePart {
  const context: Record<string, unknown> = {};
  if (scope.name) context.name = scope.name;
  if (scope.version) context.version = scope.version;
  if (Object.keys(scope.attributes).length > 0) context.attributes = scope.attributes;
  if (Object.keys(context).length === 0) return { problem: null, size: 0, context: null, tag: null };
  return { ...checkValue(context, 2), context, tag: text(scope.name, MAX_TAG_VALUE_CHARS) };
}

/** A string attribute usable as a field of at most `max` characters, else null. */
function text(value: OtlpValue | undefined, max: number): string | null {
  return typeof value === "string" && value.length > 0 && value.length <= max && textProblem(value) === null ? value : null;
}

// ---- One record ----

/** Severity by OpenTelemetry's SeverityNumber ranges: 17+ ERROR/FATAL, 13-16 WARN. */
export function levelOf(severityNumber: number, severityText: string, hasException: boolean): ValidEvent["level"] {
  if (severityNumber >= 1 && severityNumber <= 24) return severityNumber >= 17 ? "error" : severityNumber >= 13 ? "warn" : "info";
  // Unspecified (or out of range): the text, as logging libraries name their levels.
  const name = severityText.trim().toLowerCase().replace(/\d+$/, "");
  if (ERROR_NAMES.has(name)) return "error";
  if (name === "warn" || name === "warning") return "warn";
  if (name === "" && hasException) return "error";
  return "info";
}

const ERROR_NAMES = new Set(["error", "err", "fatal", "critical", "crit", "alert", "emerg", "emergency", "panic", "severe"]);

/** An AnyValue as message text: a string as it is, anything else as JSON. */
function asText(value: OtlpValue | undefined): string {
  if (value === undefined || value === null) return "";
  return typeof value === "string" ? value : JSON.stringify(value);
}

function isObject(value: OtlpValue | undefined): value is { [key: string]: OtlpValue } {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function mapLogRecord(record: OtlpLogRecord, resource: ResourcePart, scope: ScopePart, projectId: string): { event: OtlpEvent } | { problem: string } {
  if (resource.problem) return { problem: `its resource: ${resource.problem}` };
  if (scope.problem) return { problem: `its scope: ${scope.problem}` };
  if (record.attributeCount > MAX_RECORD_ATTRIBUTES) return { problem: `it has ${record.attributeCount} attributes; at most ${MAX_RECORD_ATTRIBUTES} are accepted.` };
  const attributes = record.attributes;

  // exception.* (OpenTelemetry's semantic conventions) give the message and
  // the stack; pino's transport sends an `err` object with `stack` instead.
  const exceptionType = asText(attributes["exception.type"]);
  const exceptionMessage = asText(attributes["exception.message"]);
  const hasException = exceptionType !== "" || exceptionMessage !== "";
  const exceptionStack = attributes["exception.stacktrace"];
  const errObject = attributes["err"] ?? attributes["error"];
  const stacktrace =
    typeof exceptionStack === "string" ? exceptionStack : isObject(errObject) && typeof errObject.stack === "string" ? errObject.stack : "";

  const body = asText(record.body);
  const message = hasException
    ? exceptionType && exceptionMessage
      ? `${exceptionType}: ${exceptionMessage}`
      : exceptionType || exceptionMessage
    : body || record.eventName || record.severityText || "<no message>";
  if (message.length > MAX_MESSAGE_CHARS && Array.from(message).length > MAX_MESSAGE_CHARS) {
    return { problem: `its message is longer than ${MAX_MESSAGE_CHARS.toLocaleString("en-US")} characters.` };
  }

  const context: Record<string, unknown> = {};
  let checked: Checked = { problem: textProblem(message) ?? textProblem(record.severityText) ?? textProblem(record.eventName), size: resource.size + scope.size };
  if (record.attributeCount > 0) {
    // The stack moves to `stacktrace` (read by grouping) rather than being stored twice.
    let kept = attributes;
    if (typeof exceptionStack === "string") {
      kept = {};
      for (const key of Object.keys(attributes)) if (key !== "exception.stacktrace") setKey(kept, key, attributes[key]!);
    }
    if (Object.keys(kept).length > 0) {
      context.attributes = kept;
      checked = add(checked, () => checkValue(kept, 2));
    }
  }
  if (resource.attributes) context.resource = resource.attributes;
  if (scope.context) context.scope = scope.context;
  const otel: Record<string, unknown> = {};
  if (record.severityNumber !== 0) otel.severityNumber = record.severityNumber;
  if (record.severityText) otel.severityText = record.severityText;
  if (record.eventName) otel.eventName = record.eventName;
  if (record.traceId) otel.traceId = record.traceId;
  if (record.spanId) otel.spanId = record.spanId;
  if (record.flags !== 0) otel.flags = record.flags;
  const timestamp = nanosToDate(record.timeUnixNano) ?? nanosToDate(record.observedTimeUnixNano);
  if (record.timeUnixNano !== 0n) {
    const observed = nanosToDate(record.observedTimeUnixNano);
    if (observed) otel.observedTime = observed.toISOString();
  }
  if (record.droppedAttributesCount > 0) otel.droppedAttributesCount = record.droppedAttributesCount;
  context.otel = otel;
  if (record.body !== undefined && record.body !== null && body !== message) {
    context.body = record.body;
    checked = add(checked, () => checkValue(record.body, 2));
  }
  if (stacktrace) {
    context.stacktrace = stacktrace;
    checked = add(checked, () => checkValue(stacktrace, 2));
  }
  if (checked.problem) return { problem: checked.problem };
  if (checked.size > MAX_RECORD_CONTEXT_CHARS) return { problem: TOO_BIG };

  const tags: Record<string, string> = {};
  if (resource.service) tags.service = resource.service;
  if (scope.tag) tags.scope = scope.tag;
  if (resource.host) tags.host = resource.host;
  const severityText = text(record.severityText, MAX_TAG_VALUE_CHARS);
  if (severityText) tags.severity = severityText;

  return {
    event: {
      level: levelOf(record.severityNumber, record.severityText, hasException),
      message,
      projectId,
      context,
      timestamp,
      fingerprint: null,
      release: resource.release,
      environment:
        resource.environment ??
        text(attributes["deployment.environment.name"], MAX_ENVIRONMENT_CHARS) ??
        text(attributes["deployment.environment"], MAX_ENVIRONMENT_CHARS),
      tags: Object.keys(tags).length > 0 ? tags : null,
      user: userOf(attributes, resource.attributes ?? {}),
    },
  };
}

/** `user.*` attributes (OpenTelemetry's user semantic conventions; `enduser.id` is their older name). */
function userOf(attributes: OtlpAttributes, resource: OtlpAttributes): EventUser | null {
  const pick = (key: string) => text(attributes[key], MAX_USER_FIELD_CHARS) ?? text(resource[key], MAX_USER_FIELD_CHARS) ?? undefined;
  const user: EventUser = {};
  const id = pick("user.id") ?? pick("enduser.id");
  const email = pick("user.email");
  const username = pick("user.name");
  if (id) user.id = id;
  if (email) user.email = email;
  if (username) user.username = username;
  return Object.keys(user).length > 0 ? user : null;
}

/** A time in unix nanoseconds as a Date, when set (not 0) and within the years the database stores. */
function nanosToDate(nanos: bigint): Date | null {
  if (nanos <= 0n) return null;
  return supportedTime(Number(nanos / 1_000_000n));
}

// ---- What the event contract refuses in a context ----

const TOO_BIG = `it is larger than ${MAX_RECORD_CONTEXT_CHARS / 1024 / 1024} MiB once mapped.`;

/** Adds a part's check to what was found so far, skipping it once a problem is known. */
function add(so: Checked, check: () => Checked): Checked {
  if (so.problem || so.size > MAX_RECORD_CONTEXT_CHARS) return so;
  const part = check();
  return { problem: part.problem, size: so.size + part.size };
}

/**
 * Checks a context value at `level` (the context itself is level 1): the NUL
 * character and lone surrogates (PostgreSQL stores neither), nesting past
 * MAX_DEPTH levels, and its size (characters of its JSON, about), stopping
 * at the first problem or once past MAX_RECORD_CONTEXT_CHARS.
 */
function checkValue(root: unknown, rootLevel: number): Checked {
  let size = 0;
  const visit = (value: unknown, level: number): string | null => {
    if (typeof value === "string") {
      size += value.length + 3;
      return textProblem(value);
    }
    if (value === null || typeof value !== "object") {
      size += 8;
      return null;
    }
    if (level > MAX_DEPTH) return `its attributes nest deeper than ${MAX_DEPTH} levels.`;
    if (size > MAX_RECORD_CONTEXT_CHARS) return TOO_BIG;
    if (Array.isArray(value)) {
      for (const item of value) {
        const problem = visit(item, level + 1);
        if (problem) return problem;
      }
      return null;
    }
    for (const key of Object.keys(value)) {
      size += key.length + 4;
      const keyProblem = textProblem(key);
      if (keyProblem) return keyProblem.replace("it contains", "an attribute name contains");
      const problem = visit((value as Record<string, unknown>)[key], level + 1);
      if (problem) return problem;
    }
    return null;
  };
  const problem = visit(root, rootLevel);
  return { problem: problem ?? (size > MAX_RECORD_CONTEXT_CHARS ? TOO_BIG : null), size };
}

function textProblem(value: string): string | null {
  if (value.includes("\u0000")) return "it contains the NUL character (U+0000), which cannot be stored.";
  if (!value.isWellFormed()) return "it contains a lone UTF-16 surrogate (\\ud800 to \\udfff), which is not text.";
  return null;
}
