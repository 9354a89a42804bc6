import { newEventId } from "@/lib/events/ids";
import { fromSettings, settings } from "@/lib/config/settings";
import { AppError, errors, type FieldProblem } from "@/lib/http/errors";
import { zodProblems } from "@/lib/http/input";
import { isJsonContentType, isNdjsonContentType, readJsonBody, readNdjsonBody, type JsonBody } from "@/lib/http/read-json";
import { createRateLimit } from "@/lib/http/rate-limit";
import type { AuthenticatedKey } from "@/lib/keys/service";
import { writeEvents, type NewEvent } from "@/lib/ingest/writer";
import { eventTagPairs } from "@/lib/events/event-tags";
import { eventTime } from "@/lib/events/time";
import { groupingKey } from "@/lib/grouping/key";
import { eventBatchSchema, MAX_BATCH_BODY_DEPTH, MAX_BATCH_EVENTS, MAX_EVENT_BODY_DEPTH, TOO_DEEP, validateEvent, type ValidEvent } from "@/lib/events/schema";

export type IngestResult<T> = { body: T; replayed: boolean };
export type SingleAnswer = { id: string; receivedAt: string };
export type BatchAnswer = { ids: string[]; receivedAt: string };

/**
 * Per-key limit: INGEST_RATE_LIMIT requests/s (default 1,000; 0 = off), with
 * bursts up to twice that (the extra allowance refills over 10 s). A batch
 * request counts as one request.
 */
export const ingestRateLimit = fromSettings((s) =>
  createRateLimit({ name: "ingest", perWindow: s.ingest.ratePerSecond, windowSeconds: 1, burst: s.ingest.ratePerSecond, burstWindowSeconds: 10 }),
);

/** How the two ingestion endpoints read their bodies: size limits, and nesting (a context may nest 32 levels). */
export const ingestBody = {
  single: (request: Request) =>
    readJsonBody(request, settings().ingest.maxBodyBytes, { maxDepth: MAX_EVENT_BODY_DEPTH, tooDeep: TOO_DEEP, maxDecodedBytes: settings().ingest.maxDecodedBodyBytes }),
  /** `{"events": [...]}`, a bare array of events, or NDJSON (one event per line). */
  batch: (request: Request) => {
    const type = request.headers.get("content-type");
    if (!isJsonContentType(type) && !isNdjsonContentType(type)) {
      throw new AppError(415, "unsupported_media_type", "Send the batch as JSON (Content-Type: application/json) or NDJSON (Content-Type: application/x-ndjson).");
    }
    const read = isNdjsonContentType(type) ? readNdjsonBody : readJsonBody;
    return read(request, settings().ingest.maxBatchBodyBytes, { maxDepth: MAX_BATCH_BODY_DEPTH, tooDeep: TOO_DEEP, maxDecodedBytes: settings().ingest.maxBatchDecodedBodyBytes });
  },
};

/** Body of POST /api/events -> one valid event, or 400 listing every problem (reading the body's first). */
export function parseEventBody(body: JsonBody): ValidEvent {
  if (body.problems.length > 0) throw errors.validation([...body.problems, ...validateEvent(body.value).problems]);
  const { event, problems } = validateEvent(body.value, "", { textChecked: (body.plain?.maxDepth ?? Infinity) <= MAX_EVENT_BODY_DEPTH });
  if (!event) throw errors.validation(problems);
  return event;
}

/**
 * Body of POST /api/events/batch -> valid events (all or nothing). A bare
 * array (or NDJSON's lines) is read as `{"events": [...]}`, so problems are
 * named the same way whatever the form (`events.3.level`).
 */
export function parseEventBatchBody(body: JsonBody): ValidEvent[] {
  // {"events": [...]} read within MAX_BATCH_BODY_DEPTH puts each event at
  // most MAX_EVENT_BODY_DEPTH deep; a bare array (or NDJSON) one level less deep.
  const textChecked = !Array.isArray(body.value) && (body.plain?.maxDepth ?? Infinity) <= MAX_BATCH_BODY_DEPTH;
  if (Array.isArray(body.value)) body = { value: { events: body.value }, problems: body.problems.map((p) => ({ path: `events.${p.path}`, message: p.message })) };
  const envelope = eventBatchSchema.safeParse(body.value);
  const problems: FieldProblem[] = [...body.problems, ...(envelope.success ? [] : zodProblems(envelope.error.issues))];
  const items = (body.value as { events?: unknown } | null)?.events;
  const events: ValidEvent[] = [];
  // Events are checked even when the envelope has a problem (an unknown
  // top-level field, too many events), so one answer lists everything; past
  // the limit only the first 1,000 are looked at.
  (Array.isArray(items) ? items.slice(0, MAX_BATCH_EVENTS) : []).forEach((item, i) => {
    const result = validateEvent(item, `events.${i}.`, { textChecked });
    if (result.event) events.push(result.event);
    else problems.push(...result.problems);
  });
  if (problems.length > 0) throw errors.validation(problems);
  return events;
}

/** Stores one event for the key's project; resolves after the commit. */
export async function ingestEvent(
  key: AuthenticatedKey,
  event: ValidEvent,
  options: { idempotencyKey?: string } = {},
): Promise<IngestResult<SingleAnswer>> {
  const rows = toRows(key, [event]);
  const body: SingleAnswer = { id: rows[0]!.id, receivedAt: rows[0]!.receivedAt.toISOString() };
  return store(rows, body, options.idempotencyKey ? `event:${options.idempotencyKey}` : undefined);
}

/** Stores a batch for the key's project in one statement: all or nothing. */
export async function ingestEventBatch(
  key: AuthenticatedKey,
  events: ValidEvent[],
  options: { idempotencyKey?: string } = {},
): Promise<IngestResult<BatchAnswer>> {
  const rows = toRows(key, events);
  const body: BatchAnswer = { ids: rows.map((r) => r.id), receivedAt: rows[0]!.receivedAt.toISOString() };
  return store(rows, body, options.idempotencyKey ? `batch:${options.idempotencyKey}` : undefined);
}

function toRows(key: AuthenticatedKey, events: ValidEvent[]): NewEvent[] {
  // The key decides the project; naming another one is refused without
  // saying whether that project exists.
  if (events.some((e) => e.projectId !== key.projectId)) throw errors.projectMismatch();
  const receivedAt = new Date();
  return events.map((e) => newEventRow(e, key.keyId, receivedAt));
}

/** An accepted event as the ingest statement stores it: its id, times, issue key and tags. */
export function newEventRow(e: ValidEvent, keyId: string, receivedAt: Date, id = newEventId()): NewEvent {
  const { hash, title, fallbackHash, previousHash } = groupingKey(e);
  // Field by field, not `{ ...e, id, ... }`: on Node 20 a spread followed by
  // more properties leaves V8's fast path
  // ([measured](../../docs/performance.md)).
  return {
    level: e.level,
    message: e.message,
    projectId: e.projectId,
    context: e.context,
    timestamp: e.timestamp,
    release: e.release,
    environment: e.environment,
    tags: e.tags,
    user: e.user,
    id,
    receivedAt,
    occurredAt: eventTime(e.timestamp, receivedAt),
    keyId,
    issueHash: hash,
    fallbackHash,
    previousHash,
    issueTitle: title,
    tagPairs: eventTagPairs(e),
  };
}

/**
 * Through group commit. With an Idempotency-Key, the key is claimed in the
 * same statement that stores the rows: a retry (even a concurrent one) gets
 * the first answer and stores nothing; a key older than 24 hours is claimed afresh.
 */
async function store<T extends object>(rows: NewEvent[], body: T, idempotencyKey: string | undefined): Promise<IngestResult<T>> {
  const outcome = await writeEvents({ rows, ...(idempotencyKey ? { idempotency: { key: idempotencyKey, response: body } } : {}) });
  if (outcome.replayed) return { body: outcome.response as T, replayed: true };
  return { body, replayed: false };
}

/**
 * Stores events another protocol made (a Sentry envelope, an OTLP request)
 * for the key's project in one statement, all or nothing. With `claim`, a
 * retry of the same request within 24 hours gets `answer` again and stores
 * nothing (the Sentry routes claim the envelope's event_id).
 */
export async function ingestMappedEvents<T extends object>(key: AuthenticatedKey, events: ValidEvent[], answer: T, claim?: string): Promise<IngestResult<T>> {
  return store(toRows(key, events), answer, claim);
}
