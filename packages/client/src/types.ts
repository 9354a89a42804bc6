/** The three levels Telltale stores. */
export type Level = "error" | "warn" | "info";

/** Who was affected (Telltale counts distinct users per issue). */
export type EventUser = {
  id?: string;
  email?: string;
  username?: string;
  ip_address?: string;
};

/**
 * One event as `POST /api/events` and `/api/events/batch` take it: the
 * server's `eventInputSchema` (a test in the Telltale repository checks the
 * two agree, so a server field change breaks the build, not your logs).
 */
export type EventInput = {
  level: Level;
  /** 1 to 10,000 characters. */
  message: string;
  projectId: string;
  /** Any JSON object (nesting up to 32 levels). */
  context?: Record<string, unknown>;
  /** When it happened: an ISO 8601 string with a time zone, or unix time. */
  timestamp?: string | number;
  /** 1 to 8 strings of 1 to 200 characters: events with the same fingerprint form one issue. */
  fingerprint?: string[];
  /** 1 to 200 characters. */
  release?: string;
  /** 1 to 64 characters. */
  environment?: string;
  /** At most 50 keys of 1 to 32 characters, values of 1 to 200 characters. */
  tags?: Record<string, string>;
  user?: EventUser;
};

/** Fields a client sets for every event and a call may override (tags are merged, call's first). */
export type EventDefaults = {
  release?: string;
  environment?: string;
  tags?: Record<string, string | number | boolean>;
  user?: EventUser;
};

/** Options of one call (`client.error(message, context, options)`). */
export type CallOptions = EventDefaults & {
  fingerprint?: string[];
  /** When it happened (default: now). */
  timestamp?: Date | string | number;
};

/** Why events were dropped, as counted in `stats().dropped`. */
export type DropReason =
  /** The queue was full (`maxQueueEvents` / `maxQueueBytes`). */
  | "queue_full"
  /** Over `maxEventBytes` even after truncation. */
  | "too_large"
  /** The server refused them with a 4xx that a retry cannot fix (bad key, invalid event, ...). */
  | "rejected"
  /** Every retry failed (server down, overloaded or unreachable for too long). */
  | "retries_exhausted"
  /** Logged after `close()`, or still pending when `close()` gave up waiting. */
  | "closed"
  /** Still pending when the process exited and the exit flush gave up waiting. */
  | "exit_timeout"
  /** The client is not configured (no url or no projectId). */
  | "not_configured";

/** What `onError` receives: never thrown, only reported. */
export type ClientProblem = {
  reason: DropReason | "truncated" | "internal";
  message: string;
  /** Events this problem concerns. */
  events: number;
  /** HTTP status, when a server answer caused it. */
  status?: number;
  /** The problem details `code` from the server (`invalid_api_key`, `validation_failed`, ...). */
  code?: string;
  /** The server's problem details body, when it sent one. */
  detail?: unknown;
};

export type ClientStats = {
  /** Events waiting in the queue or in a request not yet answered. */
  pending: number;
  /** Events the server acknowledged (stored). */
  sent: number;
  /** Events cut to fit the size limit (and sent). */
  truncated: number;
  /** Requests retried. */
  retries: number;
  dropped: Record<DropReason, number>;
};

/** Time, as the client sees it: injected in tests. */
export interface Clock {
  now(): number;
  /** `keepAlive`: whether this timer may keep a Node.js process running (the default clock unrefs the others). */
  setTimeout(callback: () => void, ms: number, keepAlive?: boolean): unknown;
  clearTimeout(handle: unknown): void;
}

export type FetchLike = (input: string, init: RequestInit) => Promise<Response>;

export type ClientOptions = EventDefaults & {
  /** The Telltale server (`https://telltale.example.com`), or a path on your own server that forwards `/api/events/batch`. */
  url: string;
  /** The project's secret API key (`tlt_...`). Server-side only: never ship it to a browser. */
  apiKey?: string;
  projectId: string;
  /** Events per request (default 100, at most 1,000: the server's limit). */
  maxBatchEvents?: number;
  /** Bytes per request (default 1,000,000; the server takes up to 1 MiB). */
  maxBatchBytes?: number;
  /** Bytes per event: bigger ones are truncated, then dropped (default 262,144: the server's 256 KiB). */
  maxEventBytes?: number;
  /** How long an event may wait for a full batch (default 1,000 ms). */
  flushIntervalMs?: number;
  /** Events the queue holds; more are dropped and counted (default 10,000). */
  maxQueueEvents?: number;
  /** Bytes the queue holds (default 32 MiB). */
  maxQueueBytes?: number;
  /** Attempts per request, the first included (default 10: about two minutes with the default delays). */
  maxAttempts?: number;
  /** First retry delay (default 500 ms), doubled each attempt up to `maxRetryDelayMs` (default 30,000 ms), with jitter. */
  retryDelayMs?: number;
  maxRetryDelayMs?: number;
  /** The longest `Retry-After` honoured (default 60,000 ms). */
  maxRetryAfterMs?: number;
  /** One request's deadline (default 15,000 ms); then it is retried with the same Idempotency-Key. */
  requestTimeoutMs?: number;
  /** Flush on process exit (Node.js `beforeExit` and SIGINT/SIGTERM; a page's `pagehide` / hidden tab). Default true. */
  flushOnExit?: boolean;
  /** How long `close()` and the exit flush wait for the server (default 5,000 ms); what is still pending then is dropped and counted. */
  shutdownTimeoutMs?: number;
  /** Called for every dropped or truncated event batch; default: a console warning at most once a minute. */
  onError?: (problem: ClientProblem) => void;
  /** For tests and unusual runtimes. */
  fetch?: FetchLike;
  clock?: Clock;
  /** Jitter source in [0, 1) (default Math.random). */
  random?: () => number;
  /** Extra request headers (for a proxy of your own). */
  headers?: Record<string, string>;
};

export type FlushOptions = {
  /** Resolve `false` after this long even if events are still pending (they stay queued). */
  timeoutMs?: number;
};

export interface TelltaleClient {
  error(message: unknown, context?: unknown, options?: CallOptions): void;
  warn(message: unknown, context?: unknown, options?: CallOptions): void;
  info(message: unknown, context?: unknown, options?: CallOptions): void;
  /** Any level name: `fatal`/`critical` -> error, `warning` -> warn, `debug`/`trace`/others -> info (the original kept in `context.level`). */
  log(level: string, message: unknown, context?: unknown, options?: CallOptions): void;
  /** Message `Type: message`; context gets `stack`, the `cause` chain and an AggregateError's `errors`. */
  captureException(error: unknown, context?: unknown, options?: CallOptions): void;
  /** Resolves when every event queued so far is acknowledged (`true`) or given up / timed out (`false`). Never rejects. */
  flush(options?: FlushOptions): Promise<boolean>;
  /** Sends what is pending (waiting up to `shutdownTimeoutMs`), then stops: what is left and later events are dropped and counted. Never rejects. */
  close(options?: FlushOptions): Promise<boolean>;
  stats(): ClientStats;
}
