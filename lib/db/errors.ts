/**
 * True when an error means "the database cannot be reached right now"
 * (refused, reset, timed out, shutting down, too slow to finish a statement
 * within its deadline), as opposed to a bad query. Such errors become 503
 * service_unavailable; the pool reconnects by itself.
 */
const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EHOSTUNREACH",
  "57014", // query_canceled: the statement passed its deadline (statement_timeout), rolled back
  "57P01", // admin_shutdown
  "57P02", // crash_shutdown
  "57P03", // cannot_connect_now
  "08000",
  "08001",
  "08003",
  "08004",
  "08006",
  "53300", // too_many_connections
  "P1001", // Prisma: can't reach database server
  "P1002",
  "P1017", // Prisma: server closed the connection
  "P2024", // Prisma: timed out fetching a connection from the pool
]);

const MESSAGE_PATTERN =
  /(connection terminated|connection timeout|timeout exceeded when trying to connect|Query read timeout|Client was closed and is not queryable|ECONNREFUSED|ECONNRESET|Client has encountered a connection error|DatabaseNotReachable|the database system is (shutting down|starting up|in recovery mode|not yet accepting connections)|Code: `57P0[123]`|terminating connection due to administrator command|Connection terminated unexpectedly|Can't reach database server|Unable to start a transaction in the given time)/i;

export function isDatabaseUnavailable(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== "object" || depth > 4) return false;
  const e = error as { code?: unknown; message?: unknown; cause?: unknown; kind?: unknown; originalCode?: unknown; meta?: { code?: unknown } };
  for (const code of [e.code, e.originalCode, e.meta?.code]) if (typeof code === "string" && NETWORK_CODES.has(code)) return true;
  if (e.kind === "DatabaseNotReachable" || e.kind === "ConnectionClosed" || e.kind === "SocketTimeout") return true;
  if (typeof e.message === "string" && MESSAGE_PATTERN.test(e.message)) return true;
  if (Array.isArray((error as { errors?: unknown }).errors)) {
    // AggregateError from a dual-stack connect attempt.
    if (((error as { errors: unknown[] }).errors).some((inner) => isDatabaseUnavailable(inner, depth + 1))) return true;
  }
  return isDatabaseUnavailable(e.cause, depth + 1);
}

/** PostgreSQL 23503: a row points at a parent that no longer exists. */
export function isForeignKeyViolation(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== "object" || depth > 4) return false;
  const e = error as { code?: unknown; message?: unknown; cause?: unknown; kind?: unknown; originalCode?: unknown };
  if (e.code === "23503" || e.originalCode === "23503" || e.code === "P2003" || e.kind === "ForeignKeyConstraintViolation") return true;
  if (typeof e.message === "string" && /violates foreign key constraint/i.test(e.message)) return true;
  return isForeignKeyViolation(e.cause, depth + 1);
}

/** PostgreSQL 40P01 (deadlock detected) or 40001 (serialization failure): the same work may simply be tried again. */
export function isRetryableConflict(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== "object" || depth > 4) return false;
  const e = error as { code?: unknown; originalCode?: unknown; cause?: unknown };
  if (e.code === "40P01" || e.code === "40001" || e.originalCode === "40P01" || e.originalCode === "40001") return true;
  return isRetryableConflict(e.cause, depth + 1);
}

/**
 * Runs `step`, again after a deadlock or serialization failure (up to
 * `retries` more times): for short autocommit steps that another
 * transaction (a project's deletion, a fold) may deadlock with.
 */
export async function retryingConflicts<T>(step: () => Promise<T>, retries = 3): Promise<T> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await step();
    } catch (error) {
      if (attempt >= retries || !isRetryableConflict(error)) throw error;
    }
  }
}

/** A statement that ran past its deadline, cancelled by the server (57014, statement_timeout) or given up by the client (isClientDeadline). */
export function isPastDeadline(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== "object" || depth > 4) return false;
  const e = error as { code?: unknown; originalCode?: unknown; cause?: unknown };
  if (e.code === "57014" || e.originalCode === "57014" || isClientDeadline(error)) return true;
  return isPastDeadline(e.cause, depth + 1);
}

/**
 * The client stopped waiting for an answer (its deadline, lib/db/client.ts) while the
 * statement may still have reached the database: its outcome is unknown,
 * unlike a refused connection or a statement the server cancelled.
 */
export function isClientDeadline(error: unknown, depth = 0): boolean {
  if (!error || typeof error !== "object" || depth > 4) return false;
  const e = error as { message?: unknown; cause?: unknown };
  if (e.message === "Query read timeout") return true;
  return isClientDeadline(e.cause, depth + 1);
}
