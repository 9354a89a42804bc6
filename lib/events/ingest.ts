import { v7 as uuidv7 } from "uuid";
import { fromSettings, settings } from "@/lib/config/settings";
import { prisma } from "@/lib/db/client";
import { errors, type FieldProblem } from "@/lib/http/errors";
import { zodProblems } from "@/lib/http/input";
import { createRateLimit } from "@/lib/http/rate-limit";
import type { AuthenticatedKey } from "@/lib/keys/service";
import { eventWriter, insertNewEvents, type NewEvent } from "@/lib/events/store";
import { eventBatchSchema, MAX_BATCH_EVENTS, validateEvent, type ValidEvent } from "@/lib/events/schema";
import { logger } from "@/lib/log";

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

/** Body limits of the two ingestion endpoints. */
export const ingestBodyLimit = {
  single: () => settings().ingest.maxBodyBytes,
  batch: () => settings().ingest.maxBatchBodyBytes,
};

/** Body of POST /api/events -> one valid event, or 400 listing every problem. */
export function parseEventBody(body: unknown): ValidEvent {
  const { event, problems } = validateEvent(body);
  if (!event) throw errors.validation(problems);
  return event;
}

/** Body of POST /api/events/batch -> valid events (all or nothing). */
export function parseEventBatchBody(body: unknown): ValidEvent[] {
  const envelope = eventBatchSchema.safeParse(body);
  const problems: FieldProblem[] = envelope.success ? [] : zodProblems(envelope.error.issues);
  const items = (body as { events?: unknown } | null)?.events;
  const events: ValidEvent[] = [];
  // Events are checked even when the envelope has a problem (an unknown
  // top-level field, too many events), so one answer lists everything; past
  // the limit only the first 1,000 are looked at.
  (Array.isArray(items) ? items.slice(0, MAX_BATCH_EVENTS) : []).forEach((item, i) => {
    const result = validateEvent(item, `events.${i}.`);
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
  return store(key, rows, body, options.idempotencyKey ? `event:${options.idempotencyKey}` : undefined);
}

/** Stores a batch for the key's project in one statement: all or nothing. */
export async function ingestEventBatch(
  key: AuthenticatedKey,
  events: ValidEvent[],
  options: { idempotencyKey?: string } = {},
): Promise<IngestResult<BatchAnswer>> {
  const rows = toRows(key, events);
  const body: BatchAnswer = { ids: rows.map((r) => r.id), receivedAt: rows[0]!.receivedAt.toISOString() };
  return store(key, rows, body, options.idempotencyKey ? `batch:${options.idempotencyKey}` : undefined);
}

function toRows(key: AuthenticatedKey, events: ValidEvent[]): NewEvent[] {
  // The key decides the project; naming another one is refused without
  // saying whether that project exists.
  if (events.some((e) => e.projectId !== key.projectId)) throw errors.projectMismatch();
  const receivedAt = new Date();
  return events.map((e) => ({ ...e, id: uuidv7(), receivedAt, keyId: key.keyId }));
}

async function store<T extends object>(
  key: AuthenticatedKey,
  rows: NewEvent[],
  body: T,
  idempotencyKey: string | undefined,
): Promise<IngestResult<T>> {
  if (!idempotencyKey) {
    await eventWriter().write(rows);
    return { body, replayed: false };
  }
  return storeIdempotent(key.projectId, idempotencyKey, rows, body);
}

/**
 * Claims the idempotency key and inserts the rows in one transaction. A
 * concurrent retry waits on the claim's row lock and then replays the first
 * answer; a key older than 24 hours is claimed afresh.
 */
async function storeIdempotent<T extends object>(projectId: string, key: string, rows: NewEvent[], body: T): Promise<IngestResult<T>> {
  const result = await prisma.$transaction(async (tx) => {
    const claimed = await tx.$queryRaw<{ claimed: number }[]>`
      INSERT INTO idempotency_keys (project_id, key, response, created_at)
      VALUES (${projectId}, ${key}, ${JSON.stringify(body)}::jsonb, now())
      ON CONFLICT (project_id, key) DO UPDATE
        SET response = EXCLUDED.response, created_at = EXCLUDED.created_at
        WHERE idempotency_keys.created_at < now() - interval '24 hours'
      RETURNING 1 AS claimed`;
    if (claimed.length === 0) {
      const [first] = await tx.$queryRaw<{ response: T }[]>`
        SELECT response FROM idempotency_keys WHERE project_id = ${projectId} AND key = ${key}`;
      return { body: first!.response, replayed: true };
    }
    const refused = await insertNewEvents(rows, tx);
    if (refused.size > 0) throw errors.invalidApiKey(); // rolls the claim back too
    return { body, replayed: false };
  });
  if (!result.replayed && Math.random() < 0.01) void purgeExpiredIdempotencyKeys();
  return result;
}

/** Deletes idempotency records past their 24 hours (opportunistic, bounded). */
export async function purgeExpiredIdempotencyKeys(): Promise<number> {
  try {
    return await prisma.$executeRaw`
      DELETE FROM idempotency_keys WHERE ctid IN (
        SELECT ctid FROM idempotency_keys WHERE created_at < now() - interval '24 hours' LIMIT 1000)`;
  } catch (error) {
    logger.warn("idempotency purge failed", { error: String(error) });
    return 0;
  }
}
