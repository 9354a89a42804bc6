import { z } from "zod";
import type { FieldProblem } from "@/lib/http/errors";
import { MAX_ID_CHARS, zodProblems } from "@/lib/http/input";
import { EVENT_LEVELS, type EventLevel } from "@/lib/events/levels";
import { MAX_TIME_MS, supportedTime, unixTimestampToMs } from "@/lib/events/time";

export { EVENT_LEVELS, type EventLevel } from "@/lib/events/levels";

export const MAX_MESSAGE_CHARS = 10_000;
/** Levels a context may nest (the context object is level 1). */
export const MAX_DEPTH = 32;
export const TOO_DEEP = `Nesting is deeper than ${MAX_DEPTH} levels.`;
/** Containers a body may nest (its root counted): one event, or {"events": [event, ...]}. */
export const MAX_EVENT_BODY_DEPTH = MAX_DEPTH + 1;
export const MAX_BATCH_BODY_DEPTH = MAX_DEPTH + 3;
export const MAX_BATCH_EVENTS = 1_000;
export const MAX_FINGERPRINT_PARTS = 8;
export const MAX_FINGERPRINT_PART_CHARS = 200;
export const MAX_RELEASE_CHARS = 200;
export const MAX_ENVIRONMENT_CHARS = 64;
export const MAX_TAGS = 50;
export const MAX_TAG_KEY_CHARS = 32;
export const MAX_TAG_VALUE_CHARS = 200;
export const MAX_USER_FIELD_CHARS = 200;
const inTimestampRange = (ms: number) => supportedTime(ms) !== null;

const messageSchema = z
  .string({ error: (i) => (i.input === undefined ? "Required." : "Must be a string.") })
  .min(1, "Must not be empty.")
  .refine((s) => s.length <= MAX_MESSAGE_CHARS || Array.from(s).length <= MAX_MESSAGE_CHARS, {
    message: `Must be at most ${MAX_MESSAGE_CHARS} characters.`,
  })
  // The refinement counts code points, as JSON Schema's maxLength does (the OpenAPI description says so).
  .meta({ maxLength: MAX_MESSAGE_CHARS });

const timestampSchema = z.union(
  [
    z.iso
      .datetime({ offset: true, error: "Must be an ISO 8601 date-time with a time zone, e.g. 2026-01-31T12:00:00Z." })
      .refine((s) => inTimestampRange(Date.parse(s)), "Must be between the years 0001 and 9999."),
    // Unix time: from 10^12 up milliseconds, below that seconds (fractions allowed), as `since`.
    z
      .number()
      .min(0, "A unix timestamp must not be negative.")
      .transform(unixTimestampToMs)
      .refine((ms) => ms <= MAX_TIME_MS, "Must not be after the end of the year 9999."),
  ],
  { error: "Must be an ISO 8601 date-time string (with a time zone) or a unix timestamp (seconds, or milliseconds from 10^12 up)." },
);

const fingerprintSchema = z
  .array(
    z
      .string({ error: "Each part must be a string." })
      .min(1, "Each part must not be empty.")
      .max(MAX_FINGERPRINT_PART_CHARS, `Each part has at most ${MAX_FINGERPRINT_PART_CHARS} characters.`),
    { error: "Must be an array of strings." },
  )
  .min(1, "Must have at least one part.")
  .max(MAX_FINGERPRINT_PARTS, `Must have at most ${MAX_FINGERPRINT_PARTS} parts.`);

const boundedString = (max: number) =>
  z
    .string({ error: "Must be a string." })
    .min(1, "Must not be empty.")
    .max(max, `Must be at most ${max} characters.`);

const tagsSchema = z
  .record(
    z.string().min(1, "Tag names must not be empty.").max(MAX_TAG_KEY_CHARS, `Tag names have at most ${MAX_TAG_KEY_CHARS} characters.`),
    z
      .string({ error: "Tag values must be strings." })
      .min(1, "Tag values must not be empty.")
      .max(MAX_TAG_VALUE_CHARS, `Tag values have at most ${MAX_TAG_VALUE_CHARS} characters.`),
    {
      // A bad name is an invalid_key issue of the record itself: say what names may be.
      error: (i) =>
        i.code === "invalid_key" ? `Tag names have 1 to ${MAX_TAG_KEY_CHARS} characters.` : 'Must be an object of string values, e.g. {"region": "eu-west-1"}.',
    },
  )
  .refine((tags) => Object.keys(tags).length <= MAX_TAGS, `Must have at most ${MAX_TAGS} tags.`);

const userSchema = z.strictObject(
  {
    id: boundedString(MAX_USER_FIELD_CHARS).optional(),
    email: boundedString(MAX_USER_FIELD_CHARS).optional(),
    username: boundedString(MAX_USER_FIELD_CHARS).optional(),
    ip_address: boundedString(MAX_USER_FIELD_CHARS).optional(),
  },
  { error: (i) => (i.code === "unrecognized_keys" ? undefined : "Must be an object {id?, email?, username?, ip_address?} of strings.") },
);

/** One event as a client sends it (SPEC part A, plus the `timestamp` extension). */
export const eventInputSchema = z.strictObject(
  {
    level: z.enum(EVENT_LEVELS, {
      error: (i) => (i.input === undefined ? "Required." : `Must be one of ${EVENT_LEVELS.join(", ")}.`),
    }),
    message: messageSchema,
    projectId: z
      .string({ error: (i) => (i.input === undefined ? "Required." : "Must be a string.") })
      .min(1, "Must not be empty.")
      .max(MAX_ID_CHARS, `Must be at most ${MAX_ID_CHARS} characters.`),
    context: z
      .record(z.string(), z.unknown(), { error: "Must be a JSON object (omit the field when there is no context)." })
      .optional(),
    timestamp: timestampSchema.optional(),
    fingerprint: fingerprintSchema.optional(),
    release: boundedString(MAX_RELEASE_CHARS).optional(),
    environment: boundedString(MAX_ENVIRONMENT_CHARS).optional(),
    tags: tagsSchema.optional(),
    user: userSchema.optional(),
  },
  { error: (i) => (i.code === "unrecognized_keys" ? undefined : "Must be a JSON object (one event).") },
);

export const eventBatchSchema = z.strictObject(
  {
    events: z
      .array(z.unknown(), { error: (i) => (i.input === undefined ? "Required." : "Must be an array of events.") })
      .min(1, "Must contain at least one event.")
      .max(MAX_BATCH_EVENTS, `Must contain at most ${MAX_BATCH_EVENTS} events.`),
  },
  { error: (i) => (i.code === "unrecognized_keys" ? undefined : 'Must be {"events": [...]}, a JSON array of events, or NDJSON (one event per line).') },
);

/** Who was affected (Sentry's `user`): at least one field. */
export type EventUser = { id?: string; email?: string; username?: string; ip_address?: string };

/** An accepted event, ready to store. */
export type ValidEvent = {
  level: EventLevel;
  message: string;
  projectId: string;
  context: Record<string, unknown> | null;
  /** When it happened, as the client said (stored as sent, even when not believed). */
  timestamp: Date | null;
  /** Client grouping key: replaces the message template (SPEC "Issues"). */
  fingerprint: string[] | null;
  release: string | null;
  environment: string | null;
  tags: Record<string, string> | null;
  user: EventUser | null;
};

/**
 * Validates one event and returns every problem found (not just the first),
 * with paths under `prefix` (e.g. `events.3.`). `textChecked`: the caller
 * parsed the event from JSON text that had no `\u` escape (so no NUL
 * character or lone surrogate) and nested at most MAX_EVENT_BODY_DEPTH deep
 * from the event (lib/http/read-json.ts `plain`): the raw walk would find
 * nothing.
 */
export function validateEvent(input: unknown, prefix = "", { textChecked = false }: { textChecked?: boolean } = {}): { event?: ValidEvent; problems: FieldProblem[] } {
  const problems: FieldProblem[] = [];
  // NUL characters and nesting are checked on the raw value: PostgreSQL text
  // and JSONB cannot store U+0000, and deep nesting is an abuse vector. The
  // event object itself is level 0: a context may nest MAX_DEPTH levels.
  // Paths are built only when something is wrong: building one per field
  // of every event showed in the CPU profile, and the walk itself was a third
  // of validating an SDK event: skipped when the text vouches
  // (docs/performance.md#figures-behind-the-code).
  if (!textChecked && hasRawProblem(input, -1)) walk(input, -1, prefix.replace(/\.$/, ""), problems);
  if (problems.length === 0) {
    const event = plainValidEvent(input);
    if (event) return { problems, event };
  }
  const parsed = eventInputSchema.safeParse(input);
  if (!parsed.success) problems.push(...zodProblems(parsed.error.issues, { prefix: prefix.replace(/\.$/, "") }));
  if (problems.length > 0 || !parsed.success) return { problems: dedupe(problems) };
  const { level, message, projectId, timestamp, fingerprint, release, environment, tags, user } = parsed.data;
  // The parsed JSON's own object, not zod's copy: a copy made by assignment
  // would turn a `"__proto__"` key into a prototype and silently drop it.
  const rawContext = (input as { context?: Record<string, unknown> }).context;
  return {
    problems,
    event: {
      level,
      message,
      projectId,
      context: rawContext ?? null,
      timestamp: timestamp === undefined ? null : new Date(timestamp),
      fingerprint: fingerprint ?? null,
      release: release ?? null,
      environment: environment ?? null,
      // An empty object or user says nothing: stored as absent.
      tags: tags && Object.keys(tags).length > 0 ? tags : null,
      user: user && Object.keys(user).length > 0 ? user : null,
    },
  };
}

const EVENT_FIELDS = new Set(["level", "message", "projectId", "context", "timestamp", "fingerprint", "release", "environment", "tags", "user"]);
const USER_FIELDS = ["id", "email", "username", "ip_address"] as const;
const LEVELS: ReadonlySet<unknown> = new Set(EVENT_LEVELS);
const isoTimestampSchema = timestampSchema.options[0];

/**
 * An object as JSON.parse makes it, and as zod's record and object take it:
 * not an array, Object's prototype, and no own `__proto__` key (which zod
 * drops from a record or reports as unknown).
 */
function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value) && Object.getPrototypeOf(value) === Object.prototype && !Object.hasOwn(value, "__proto__");
}

const boundedText = (value: unknown, max: number): value is string => typeof value === "string" && value.length >= 1 && value.length <= max;

/**
 * The event eventInputSchema would give, built without zod for an event
 * every field of which is plainly valid; null as soon as anything is not
 * (or is unusual: an undefined field, a message past MAX_MESSAGE_CHARS
 * UTF-16 units), and zod then decides and names the problems. zod's parse
 * of an SDK-sized event (copying the tags and the user, running each check
 * through its machinery) was the largest piece of validating it; a property
 * test checks that both give the same event for every input.
 */
function plainValidEvent(input: unknown): ValidEvent | null {
  if (!isPlainRecord(input)) return null;
  for (const key of Object.keys(input)) if (!EVENT_FIELDS.has(key) || input[key] === undefined) return null;
  const { level, message, projectId, context, timestamp, fingerprint, release, environment, tags, user } = input;
  if (!LEVELS.has(level) || !boundedText(message, MAX_MESSAGE_CHARS) || !boundedText(projectId, MAX_ID_CHARS)) return null;
  if (context !== undefined && !isPlainRecord(context)) return null;
  let time: Date | null = null;
  if (typeof timestamp === "string") {
    if (!isoTimestampSchema.safeParse(timestamp).success) return null;
    time = new Date(timestamp);
  } else if (typeof timestamp === "number") {
    if (!Number.isFinite(timestamp) || timestamp < 0 || unixTimestampToMs(timestamp) > MAX_TIME_MS) return null;
    time = new Date(unixTimestampToMs(timestamp));
  } else if (timestamp !== undefined) return null;
  let parts: string[] | null = null;
  if (fingerprint !== undefined) {
    if (!Array.isArray(fingerprint) || fingerprint.length < 1 || fingerprint.length > MAX_FINGERPRINT_PARTS) return null;
    for (const part of fingerprint) if (!boundedText(part, MAX_FINGERPRINT_PART_CHARS)) return null;
    parts = fingerprint.slice() as string[];
  }
  if (release !== undefined && !boundedText(release, MAX_RELEASE_CHARS)) return null;
  if (environment !== undefined && !boundedText(environment, MAX_ENVIRONMENT_CHARS)) return null;
  let tagsOut: Record<string, string> | null = null;
  if (tags !== undefined) {
    if (!isPlainRecord(tags)) return null;
    const keys = Object.keys(tags);
    if (keys.length > MAX_TAGS) return null;
    const copy: Record<string, string> = {};
    for (const key of keys) {
      if (key.length < 1 || key.length > MAX_TAG_KEY_CHARS || !boundedText(tags[key], MAX_TAG_VALUE_CHARS)) return null;
      copy[key] = tags[key];
    }
    if (keys.length > 0) tagsOut = copy;
  }
  let userOut: EventUser | null = null;
  if (user !== undefined) {
    if (!isPlainRecord(user)) return null;
    let known = 0;
    const copy: EventUser = {};
    // zod's object puts the fields in the schema's order.
    for (const field of USER_FIELDS) {
      if (!Object.hasOwn(user, field)) continue;
      if (!boundedText(user[field], MAX_USER_FIELD_CHARS)) return null;
      copy[field] = user[field];
      known++;
    }
    if (known !== Object.keys(user).length) return null;
    if (known > 0) userOut = copy;
  }
  return {
    level: level as EventLevel,
    message: message as string,
    projectId: projectId as string,
    context: context ?? null,
    timestamp: time,
    fingerprint: parts,
    release: release ?? null,
    environment: environment ?? null,
    tags: tagsOut,
    user: userOut,
  } as ValidEvent;
}

/** Whether walk() would find a problem, without building a path or allocating. */
function hasRawProblem(value: unknown, depth: number): boolean {
  if (typeof value === "string") return value.includes("\u0000") || !value.isWellFormed();
  if (value === null || typeof value !== "object") return false;
  if (depth + 1 > MAX_DEPTH) return true;
  if (Array.isArray(value)) {
    for (const item of value) if (hasRawProblem(item, depth + 1)) return true;
    return false;
  }
  for (const key of Object.keys(value)) {
    if (key.includes("\u0000") || !key.isWellFormed()) return true;
    if (hasRawProblem((value as Record<string, unknown>)[key], depth + 1)) return true;
  }
  return false;
}

function walk(value: unknown, depth: number, path: string, problems: FieldProblem[]): void {
  if (typeof value === "string") {
    if (value.includes("\u0000")) problems.push({ path, message: "Must not contain the NUL character (U+0000)." });
    // A lone UTF-16 surrogate (`"\ud800"`) is valid JSON but not text:
    // PostgreSQL refuses it in JSONB and would silently mangle it in text.
    if (!value.isWellFormed()) problems.push({ path, message: "Must be valid Unicode (no lone surrogate escapes such as \\ud800)." });
    return;
  }
  if (value === null || typeof value !== "object") return;
  if (depth + 1 > MAX_DEPTH) {
    problems.push({ path, message: TOO_DEEP });
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((item, i) => walk(item, depth + 1, path ? `${path}.${i}` : String(i), problems));
    return;
  }
  for (const [key, item] of Object.entries(value)) {
    const childPath = path ? `${path}.${key}` : key;
    if (key.includes("\u0000")) problems.push({ path: childPath.replace(/\u0000/g, "\\u0000"), message: "Field names must not contain the NUL character (U+0000)." });
    if (!key.isWellFormed()) problems.push({ path: childPath.toWellFormed(), message: "Field names must be valid Unicode (no lone surrogate escapes)." });
    walk(item, depth + 1, childPath.replace(/\u0000/g, "\\u0000"), problems);
  }
}

function dedupe(problems: FieldProblem[]): FieldProblem[] {
  const seen = new Set<string>();
  return problems.filter((p) => {
    const k = `${p.path}\u0001${p.message}`;
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}
