/** Stable machine-readable error codes (SPEC, "Errors"). */
export type ErrorCode =
  | "invalid_json"
  | "validation_failed"
  | "unsupported_media_type"
  | "payload_too_large"
  | "missing_api_key"
  | "invalid_api_key"
  | "project_mismatch"
  | "api_key_not_accepted"
  | "unauthenticated"
  | "forbidden"
  | "not_found"
  | "method_not_allowed"
  | "conflict"
  | "rate_limited"
  | "ai_unavailable"
  | "service_unavailable"
  | "internal";

import type { RateLimitDecision } from "@/lib/http/rate-limit";
import { plural, pluralWord } from "@/lib/text/plural";

export type FieldProblem = { path: string; message: string };

/** Problems an error answer lists at most; the detail says how many more there were. */
export const MAX_LISTED_PROBLEMS = 100;

const TITLES: Record<ErrorCode, string> = {
  invalid_json: "Invalid JSON",
  validation_failed: "Validation failed",
  unsupported_media_type: "Unsupported media type",
  payload_too_large: "Payload too large",
  missing_api_key: "Missing API key",
  invalid_api_key: "Invalid API key",
  project_mismatch: "Project mismatch",
  api_key_not_accepted: "API key not accepted",
  unauthenticated: "Unauthenticated",
  forbidden: "Forbidden",
  not_found: "Not found",
  method_not_allowed: "Method not allowed",
  conflict: "Conflict",
  rate_limited: "Too many requests",
  ai_unavailable: "AI provider unavailable",
  service_unavailable: "Service unavailable",
  internal: "Internal server error",
};

/** Every code an error answer may carry (the OpenAPI description lists them). */
export const ERROR_CODES = Object.keys(TITLES) as [ErrorCode, ...ErrorCode[]];

/**
 * A failure the caller can act on. Thrown by lib/ functions and turned into
 * problem details by lib/edge/problem.ts; the message never carries secrets.
 */
export class AppError extends Error {
  readonly status: number;
  readonly code: ErrorCode;
  readonly title: string;
  readonly errors?: FieldProblem[];
  /** Fixed headers of this kind of answer (WWW-Authenticate, Allow). */
  readonly headers?: Record<string, string>;
  /** Data the edge turns into Retry-After (and RateLimit-*) headers. */
  readonly retryAfterSeconds?: number;
  readonly rateLimit?: RateLimitDecision;

  constructor(
    status: number,
    code: ErrorCode,
    detail: string,
    options: { errors?: FieldProblem[]; headers?: Record<string, string>; retryAfterSeconds?: number; rateLimit?: RateLimitDecision } = {},
  ) {
    super(detail);
    this.name = "AppError";
    this.status = status;
    this.code = code;
    this.title = TITLES[code];
    this.errors = options.errors;
    this.headers = options.headers;
    this.retryAfterSeconds = options.retryAfterSeconds ?? options.rateLimit?.resetSeconds;
    this.rateLimit = options.rateLimit;
  }
}

export const errors = {
  invalidJson: (detail = "The request body is not valid JSON.") => new AppError(400, "invalid_json", detail),
  /** 400 listing the problems: at most MAX_LISTED_PROBLEMS, so an answer stays small whatever the request. */
  validation: (problems: FieldProblem[], detail?: string) => {
    const listed = problems.slice(0, MAX_LISTED_PROBLEMS);
    const more = problems.length - listed.length;
    const text =
      detail ??
      (more > 0
        ? `The request has ${problems.length.toLocaleString("en-US")} problems; the first ${MAX_LISTED_PROBLEMS} are listed, ${more.toLocaleString("en-US")} more are not.`
        : `The request has ${problems.length} invalid ${pluralWord(problems.length, "field")}.`);
    return new AppError(400, "validation_failed", text, { errors: listed });
  },
  unsupportedMediaType: () =>
    new AppError(415, "unsupported_media_type", "Send the body as JSON with the header Content-Type: application/json."),
  unsupportedContentEncoding: () =>
    new AppError(415, "unsupported_media_type", "Send the body uncompressed: no Content-Encoding (or Content-Encoding: identity).", {
      headers: { "Accept-Encoding": "identity" },
    }),
  payloadTooLarge: (limit: number) =>
    new AppError(413, "payload_too_large", `The request body is larger than the limit of ${limit} bytes.`),
  missingApiKey: () =>
    new AppError(401, "missing_api_key", "Send your project's API key in the header Authorization: Bearer <API_KEY>.", {
      headers: { "WWW-Authenticate": 'Bearer realm="telltale"' },
    }),
  invalidApiKey: () =>
    new AppError(401, "invalid_api_key", "The API key is not valid. It may have been rotated; copy the current key from the Projects page.", {
      headers: { "WWW-Authenticate": 'Bearer realm="telltale", error="invalid_token"' },
    }),
  projectMismatch: () =>
    new AppError(403, "project_mismatch", "This API key does not belong to the project named by projectId."),
  apiKeyNotAccepted: () =>
    new AppError(401, "api_key_not_accepted", "This endpoint accepts a signed-in session only, not an API key. Remove the Authorization header."),
  unauthenticated: () => new AppError(401, "unauthenticated", "Sign in to use this endpoint."),
  forbidden: (detail = "You do not have permission to do this.") => new AppError(403, "forbidden", detail),
  notFound: (detail = "Not found.") => new AppError(404, "not_found", detail),
  conflict: (detail: string) => new AppError(409, "conflict", detail),
  methodNotAllowed: (method: string, allowed: string[]) =>
    new AppError(405, "method_not_allowed", `${method} is not supported here; use ${allowed.join(" or ")}.`, {
      headers: { Allow: allowed.join(", ") },
    }),
  /** 429 for a refused limiter decision (or a bare wait, for limits that advertise no budget). */
  rateLimited: (limit: RateLimitDecision | { retryAfterSeconds: number }) => {
    const seconds = "resetSeconds" in limit ? limit.resetSeconds : limit.retryAfterSeconds;
    return new AppError(429, "rate_limited", `Too many requests. Retry after ${plural(seconds, "second")}.`, {
      retryAfterSeconds: seconds,
      ...("resetSeconds" in limit ? { rateLimit: limit } : {}),
    });
  },
  aiUnavailable: (detail: string) => new AppError(502, "ai_unavailable", detail),
  serviceUnavailable: (detail = "The database is unreachable. Retry shortly; nothing was stored.", retryAfterSeconds = 5) =>
    new AppError(503, "service_unavailable", detail, { retryAfterSeconds }),
};
