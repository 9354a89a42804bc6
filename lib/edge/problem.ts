import { AppError, errors, type ErrorCode, type FieldProblem } from "@/lib/http/errors";
import { isClientDeadline, isDatabaseUnavailable } from "@/lib/db/errors";
import { rateLimitHeaders } from "@/lib/http/rate-limit";
import { logger } from "@/lib/log";

export const PROBLEM_CONTENT_TYPE = "application/problem+json";

export type ProblemBody = {
  type: string;
  title: string;
  status: number;
  detail: string;
  code: ErrorCode;
  errors?: FieldProblem[];
  requestId?: string;
};

/** The status, headers and JSON text of an error answer (RFC 9457 problem details). */
export function problemParts(error: AppError, requestId?: string): { status: number; headers: Record<string, string>; body: string } {
  const body: ProblemBody = {
    type: `urn:telltale:error:${error.code}`,
    title: error.title,
    status: error.status,
    detail: error.message,
    code: error.code,
    ...(error.errors ? { errors: error.errors } : {}),
    ...(requestId ? { requestId } : {}),
  };
  return {
    status: error.status,
    headers: {
      "Content-Type": PROBLEM_CONTENT_TYPE,
      "Cache-Control": "no-store",
      ...(error.headers ?? {}),
      ...rateLimitHeaders(error.rateLimit),
      ...(error.retryAfterSeconds !== undefined ? { "Retry-After": String(error.retryAfterSeconds) } : {}),
    },
    body: JSON.stringify(body),
  };
}

/** The one place that builds an error response. */
export function problemResponse(error: AppError, requestId?: string): Response {
  const { status, headers, body } = problemParts(error, requestId);
  return new Response(body, { status, headers });
}

const DEADLINE_PASSED =
  "The database did not answer in time. Retry shortly; a write may still have been stored, so send an Idempotency-Key to make the retry safe.";

/**
 * Maps anything thrown by a handler to a response: typed errors as they are,
 * an unreachable database as 503, anything else as a 500 whose request id is
 * also in the server log (with the stack, which never reaches the client).
 */
export function errorToResponse(error: unknown, requestId: string): Response {
  if (error instanceof AppError) return problemResponse(error);
  if (isDatabaseUnavailable(error)) {
    logger.warn("database unavailable", { requestId, error: describe(error) });
    // A frozen database may still run a statement it received before the
    // client stopped waiting: the answer must not promise that nothing was stored.
    return problemResponse(isClientDeadline(error) ? errors.serviceUnavailable(DEADLINE_PASSED) : errors.serviceUnavailable());
  }
  logger.error("unhandled error", { requestId, error: describe(error), stack: error instanceof Error ? error.stack : undefined });
  return problemResponse(new AppError(500, "internal", `An unexpected error occurred. Quote request id ${requestId} when reporting it.`), requestId);
}

function describe(error: unknown): string {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}
