/**
 * The client: a bounded queue of serialized events, sent in batches to
 * POST /api/events/batch one request at a time, each batch retried under
 * the same Idempotency-Key until the server acknowledges it or the client
 * gives up (and counts it). Nothing here throws into the application.
 */
import { buildEvent, serializeEvent, type BuildInput } from "./event.js";
import { isRetryableStatus, parseRetryAfter, retryDelay } from "./retry.js";
import { isBrowser, randomId, registerExitFlush, systemClock } from "./runtime.js";
import type { CallOptions, ClientOptions, ClientProblem, ClientStats, Clock, DropReason, EventDefaults, FetchLike, FlushOptions, TelltaleClient } from "./types.js";

/** The server's limits (SPEC "POST /api/events"). */
export const SERVER_LIMITS = { batchEvents: 1_000, batchBytes: 1_048_576, eventBytes: 262_144 } as const;
/** `{"events":[` and `]}`: 13 bytes around the events, and a comma between two. */
const ENVELOPE_BYTES = 13;
/** Browsers cap keepalive request bodies at 64 KiB (all in flight together). */
const KEEPALIVE_MAX_BYTES = 60_000;
const WARN_EVERY_MS = 60_000;

type Queued = { seq: number; json: string; bytes: number };
type Batch = { items: Queued[]; body: string; bytes: number; idempotencyKey: string };
type Waiter = { target: number; ok: boolean; resolve: (ok: boolean) => void; timer: unknown };
type Outcome =
  | { kind: "ok" }
  | { kind: "retry"; retryAfterMs: number | null; why: string; status?: number }
  | { kind: "too_large"; status: number }
  | { kind: "invalid"; indices: Set<number>; status: number; detail: unknown }
  | { kind: "rejected"; status: number; code?: string; detail: unknown };

type Settings = {
  maxBatchEvents: number;
  maxBatchBytes: number;
  maxEventBytes: number;
  flushIntervalMs: number;
  maxQueueEvents: number;
  maxQueueBytes: number;
  maxAttempts: number;
  retryDelayMs: number;
  maxRetryDelayMs: number;
  maxRetryAfterMs: number;
  requestTimeoutMs: number;
  shutdownTimeoutMs: number;
};

function positive(value: unknown, fallback: number, max = Number.MAX_SAFE_INTEGER): number {
  return typeof value === "number" && Number.isFinite(value) && value > 0 ? Math.min(Math.floor(value), max) : fallback;
}

function settingsOf(o: Partial<ClientOptions>): Settings {
  const maxBatchBytes = positive(o.maxBatchBytes, 1_000_000, SERVER_LIMITS.batchBytes);
  return {
    maxBatchEvents: positive(o.maxBatchEvents, 100, SERVER_LIMITS.batchEvents),
    maxBatchBytes,
    maxEventBytes: Math.min(positive(o.maxEventBytes, SERVER_LIMITS.eventBytes, SERVER_LIMITS.eventBytes), maxBatchBytes - ENVELOPE_BYTES),
    flushIntervalMs: positive(o.flushIntervalMs, 1_000),
    maxQueueEvents: positive(o.maxQueueEvents, 10_000),
    maxQueueBytes: positive(o.maxQueueBytes, 32 * 1024 * 1024),
    maxAttempts: positive(o.maxAttempts, 10),
    retryDelayMs: positive(o.retryDelayMs, 500),
    maxRetryDelayMs: positive(o.maxRetryDelayMs, 30_000),
    maxRetryAfterMs: positive(o.maxRetryAfterMs, 60_000),
    requestTimeoutMs: positive(o.requestTimeoutMs, 15_000),
    shutdownTimeoutMs: positive(o.shutdownTimeoutMs, 5_000),
  };
}

/** `https://host` (or a path of your own) -> its `/api/events/batch`; a URL already naming the route is kept. */
export function batchEndpoint(url: unknown): string | null {
  if (typeof url !== "string" || !url.trim()) return null;
  const base = url.trim().replace(/\/+$/, "");
  const endpoint = /\/api\/events\/batch$/.test(base) ? base : /\/api\/events$/.test(base) ? `${base}/batch` : `${base}/api/events/batch`;
  if (endpoint.startsWith("/")) return isBrowser() ? endpoint : null;
  try {
    const parsed = new URL(endpoint);
    return parsed.protocol === "http:" || parsed.protocol === "https:" ? endpoint : null;
  } catch {
    return null;
  }
}

class Client implements TelltaleClient {
  private readonly s: Settings;
  private readonly endpoint: string | null;
  private readonly projectId: string;
  private readonly apiKey: string | undefined;
  private readonly extraHeaders: Record<string, string>;
  private readonly defaults: EventDefaults;
  private readonly fetchImpl: FetchLike | undefined;
  private readonly clock: Clock;
  private readonly random: () => number;
  private readonly onError: (problem: ClientProblem) => void;
  private readonly instanceId = randomId();
  private batchCounter = 0;
  /** Lowered when the server answers 413 (its limit is set lower than ours). */
  private batchBytesCap: number;

  private queue: Queued[] = [];
  private queueBytes = 0;
  private inFlight: Batch | null = null;
  private running = false;
  private seq = 0;
  /** Events up to this sequence number go out without waiting for a full batch. */
  private dueSeq = 0;
  private batchTimer: unknown = null;
  private readonly waiters = new Set<Waiter>();
  private abortRequest: (() => void) | null = null;
  private wakeRetry: (() => void) | null = null;
  private closed = false;
  /** Set by abandon(): the batch in flight is dropped for this reason unless its answer is a success. */
  private abandonInFlight: "closed" | "exit_timeout" | null = null;
  private unregisterExit: () => void = () => {};
  private lastWarnAt = -Infinity;

  private readonly counts = { sent: 0, truncated: 0, retries: 0 };
  private readonly dropped: Record<DropReason, number> = { queue_full: 0, too_large: 0, rejected: 0, retries_exhausted: 0, closed: 0, exit_timeout: 0, not_configured: 0 };

  constructor(options: ClientOptions) {
    const o: Partial<ClientOptions> = options && typeof options === "object" ? options : {};
    this.s = settingsOf(o);
    this.batchBytesCap = this.s.maxBatchBytes;
    this.projectId = typeof o.projectId === "string" ? o.projectId : "";
    this.apiKey = typeof o.apiKey === "string" && o.apiKey ? o.apiKey : undefined;
    this.endpoint = this.projectId ? batchEndpoint(o.url) : null;
    this.extraHeaders = o.headers && typeof o.headers === "object" ? { ...o.headers } : {};
    this.defaults = { release: o.release, environment: o.environment, tags: o.tags, user: o.user };
    this.fetchImpl = typeof o.fetch === "function" ? o.fetch : typeof globalThis.fetch === "function" ? globalThis.fetch.bind(globalThis) : undefined;
    this.clock = o.clock ?? systemClock;
    this.random = typeof o.random === "function" ? o.random : Math.random;
    this.onError = typeof o.onError === "function" ? o.onError : (problem) => this.warnOnConsole(problem);
    if (!this.endpoint || !this.fetchImpl) {
      this.report({
        reason: "not_configured",
        events: 0,
        message: !this.fetchImpl ? "no fetch in this runtime: pass `fetch`" : !this.projectId ? "`projectId` is missing" : `\`url\` is not an http(s) URL: ${String(o.url)}`,
      });
    } else if (o.flushOnExit !== false) {
      this.unregisterExit = registerExitFlush(this);
    }
  }

  error(message: unknown, context?: unknown, options?: CallOptions): void {
    this.capture({ level: "error", message, context, options });
  }
  warn(message: unknown, context?: unknown, options?: CallOptions): void {
    this.capture({ level: "warn", message, context, options });
  }
  info(message: unknown, context?: unknown, options?: CallOptions): void {
    this.capture({ level: "info", message, context, options });
  }
  log(level: string, message: unknown, context?: unknown, options?: CallOptions): void {
    this.capture({ level: typeof level === "string" ? level : "info", message, context, options });
  }
  captureException(error: unknown, context?: unknown, options?: CallOptions): void {
    this.capture({ level: "error", message: error, context, options, exception: true });
  }

  stats(): ClientStats {
    return { pending: this.pendingCount(), ...this.counts, dropped: { ...this.dropped } };
  }

  pendingCount(): number {
    return this.queue.length + (this.inFlight?.items.length ?? 0);
  }

  flush(options: FlushOptions = {}): Promise<boolean> {
    try {
      return this.waitFor(this.seq, options.timeoutMs);
    } catch (error) {
      this.internal(error);
      return Promise.resolve(false);
    }
  }

  async close(options: FlushOptions = {}): Promise<boolean> {
    try {
      if (this.closed) return this.pendingCount() === 0;
      // Events logged while closing are still sent: wait for everything.
      const ok = await this.waitFor(Infinity, options.timeoutMs ?? this.s.shutdownTimeoutMs);
      this.closed = true;
      this.unregisterExit();
      this.abandon("closed");
      return ok;
    } catch (error) {
      this.internal(error);
      return false;
    }
  }

  async flushForExit(): Promise<unknown> {
    const ok = await this.waitFor(Infinity, this.s.shutdownTimeoutMs);
    if (!ok) this.abandon("exit_timeout");
    return ok;
  }

  private capture(input: BuildInput): void {
    try {
      if (this.closed) return this.drop(1, "closed", "the client is closed");
      if (!this.endpoint || !this.fetchImpl) return this.drop(1, "not_configured", "the client is not configured (see the first warning)");
      let event;
      try {
        event = buildEvent(input, this.projectId, this.defaults, this.clock.now());
      } catch (error) {
        // Input that defeats every guard (a revoked Proxy as the message):
        // the event still goes out, saying what could not be read.
        event = buildEvent({ level: String(input.level), message: "(unreadable message)", context: { telltale_unreadable: error instanceof Error ? error.message : "unknown" } }, this.projectId, {}, this.clock.now());
      }
      const serialized = serializeEvent(event, this.s.maxEventBytes);
      if (!serialized) return this.drop(1, "too_large", `an event over ${this.s.maxEventBytes} bytes even without its context`);
      if (serialized.truncated) {
        this.counts.truncated++;
        this.report({ reason: "truncated", events: 1, message: `an event was cut to fit ${this.s.maxEventBytes} bytes` });
      }
      if (this.queue.length >= this.s.maxQueueEvents || this.queueBytes + serialized.bytes > this.s.maxQueueBytes) {
        return this.drop(1, "queue_full", `the queue is full (${this.queue.length} events, ${this.queueBytes} bytes)`);
      }
      this.queue.push({ seq: ++this.seq, json: serialized.json, bytes: serialized.bytes });
      this.queueBytes += serialized.bytes;
      this.schedule();
    } catch (error) {
      this.internal(error);
    }
  }

  /** Resolves when no event up to `target` is pending; `false` if one was dropped or time ran out. */
  private waitFor(target: number, timeoutMs: number | undefined): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      const waiter: Waiter = { target, ok: true, resolve, timer: null };
      this.waiters.add(waiter);
      if (timeoutMs !== undefined && Number.isFinite(timeoutMs)) {
        waiter.timer = this.clock.setTimeout(() => this.finish(waiter, false), Math.max(0, timeoutMs), true);
      }
      this.dueSeq = Math.max(this.dueSeq, Math.min(target, this.seq));
      this.settleWaiters();
      this.schedule();
    });
  }

  private finish(waiter: Waiter, ok: boolean): void {
    if (!this.waiters.delete(waiter)) return;
    if (waiter.timer !== null) this.clock.clearTimeout(waiter.timer);
    waiter.resolve(ok);
  }

  private lowestPendingSeq(): number {
    return this.inFlight?.items[0]?.seq ?? this.queue[0]?.seq ?? Infinity;
  }

  private settleWaiters(): void {
    const lowest = this.lowestPendingSeq();
    for (const waiter of this.waiters) if (lowest > waiter.target || lowest === Infinity) this.finish(waiter, waiter.ok);
  }

  private schedule(): void {
    // Waiting for everything (close, exit) makes new events due at once.
    for (const waiter of this.waiters) if (waiter.target === Infinity) this.dueSeq = this.seq;
    if (this.running) return;
    if (this.readyToSend()) {
      void this.run();
    } else if (this.queue.length > 0 && this.batchTimer === null) {
      this.batchTimer = this.clock.setTimeout(() => {
        this.batchTimer = null;
        this.dueSeq = Math.max(this.dueSeq, this.seq);
        this.schedule();
      }, this.s.flushIntervalMs);
    }
  }

  private readyToSend(): boolean {
    if (this.queue.length === 0) return false;
    if (this.queue[0]!.seq <= this.dueSeq) return true;
    return this.queue.length >= this.s.maxBatchEvents || ENVELOPE_BYTES + this.queueBytes + this.queue.length >= this.batchBytesCap;
  }

  private async run(): Promise<void> {
    this.running = true;
    try {
      while (!this.closed && this.readyToSend()) {
        if (this.batchTimer !== null) {
          this.clock.clearTimeout(this.batchTimer);
          this.batchTimer = null;
        }
        await this.deliver(this.takeBatch());
        this.settleWaiters();
      }
    } catch (error) {
      this.internal(error);
    } finally {
      this.running = false;
      this.settleWaiters();
      if (!this.closed && this.queue.length > 0) this.schedule();
    }
  }

  private takeBatch(): Batch {
    let bytes = ENVELOPE_BYTES - 1;
    let count = 0;
    while (count < this.queue.length && count < this.s.maxBatchEvents) {
      const next = this.queue[count]!.bytes + 1;
      if (count > 0 && bytes + next > this.batchBytesCap) break;
      bytes += next;
      count++;
    }
    const items = this.queue.splice(0, count);
    for (const item of items) this.queueBytes -= item.bytes;
    return { items, bytes, body: `{"events":[${items.map((i) => i.json).join(",")}]}`, idempotencyKey: `${this.instanceId}-${++this.batchCounter}` };
  }

  /** Sends one batch until it is acknowledged, split, or given up. */
  private async deliver(batch: Batch): Promise<void> {
    this.inFlight = batch;
    try {
      for (let attempt = 1; ; attempt++) {
        const outcome = await this.post(batch);
        if (outcome.kind === "ok") {
          this.counts.sent += batch.items.length;
          return;
        }
        if (this.abandonInFlight) return this.dropItems(batch.items, this.abandonInFlight, { message: "still unacknowledged when the shutdown timeout ran out" });
        if (outcome.kind === "retry") {
          if (attempt >= this.s.maxAttempts) {
            return this.dropItems(batch.items, "retries_exhausted", { status: outcome.status, message: `no acknowledgement after ${attempt} attempts (last: ${outcome.why})` });
          }
          this.counts.retries++;
          await this.sleep(retryDelay(attempt, outcome.retryAfterMs, { baseMs: this.s.retryDelayMs, maxMs: this.s.maxRetryDelayMs, maxRetryAfterMs: this.s.maxRetryAfterMs, random: this.random }));
          if (this.abandonInFlight) return this.dropItems(batch.items, this.abandonInFlight, { message: "still unacknowledged when the shutdown timeout ran out" });
          continue;
        }
        if (outcome.kind === "too_large") {
          // The server's limit is lower than ours: smaller batches from now
          // on, these events first (a new batch, so a new Idempotency-Key).
          if (batch.items.length === 1) return this.dropItems(batch.items, "too_large", { status: outcome.status, message: "the server refused one event as too large (413)" });
          this.batchBytesCap = Math.max(1_024, Math.floor(batch.bytes / 2));
          return this.requeue(batch.items);
        }
        if (outcome.kind === "invalid") {
          // All or nothing on the server: drop the events it named, send the rest anew.
          const bad = batch.items.filter((_, i) => outcome.indices.has(i));
          this.dropItems(bad, "rejected", { status: outcome.status, code: "validation_failed", detail: outcome.detail, message: "the server refused these events as invalid" });
          return this.requeue(batch.items.filter((_, i) => !outcome.indices.has(i)));
        }
        return this.dropItems(batch.items, "rejected", { status: outcome.status, code: outcome.code, detail: outcome.detail, message: `the server refused the batch (${outcome.status}${outcome.code ? ` ${outcome.code}` : ""})` });
      }
    } finally {
      this.inFlight = null;
      this.abandonInFlight = null;
    }
  }

  private requeue(items: Queued[]): void {
    if (items.length === 0) return;
    this.queue.unshift(...items);
    for (const item of items) this.queueBytes += item.bytes;
    this.dueSeq = Math.max(this.dueSeq, items[items.length - 1]!.seq);
  }

  private async post(batch: Batch): Promise<Outcome> {
    const controller = new AbortController();
    this.abortRequest = () => controller.abort();
    const timer = this.clock.setTimeout(() => controller.abort(), this.s.requestTimeoutMs);
    try {
      const headers: Record<string, string> = { ...this.extraHeaders, "content-type": "application/json", "idempotency-key": batch.idempotencyKey };
      if (this.apiKey) headers.authorization = `Bearer ${this.apiKey}`;
      const init: RequestInit = { method: "POST", headers, body: batch.body, signal: controller.signal, redirect: "manual" };
      if (isBrowser() && batch.bytes <= KEEPALIVE_MAX_BYTES) init.keepalive = true;
      const response = await this.fetchImpl!(this.endpoint!, init);
      const status = response.status;
      let text = "";
      try {
        text = await response.text();
      } catch {
        // The status is the answer; a body cut short changes nothing.
      }
      if (status >= 200 && status < 300) return { kind: "ok" };
      if (isRetryableStatus(status)) return { kind: "retry", status, retryAfterMs: parseRetryAfter(response.headers.get("retry-after"), this.clock.now()), why: `HTTP ${status}` };
      if (status === 413) return { kind: "too_large", status };
      const problem = parseProblem(text);
      if (status === 400 && problem?.code === "validation_failed") {
        const indices = invalidEventIndices(problem.errors, batch.items.length);
        if (indices) return { kind: "invalid", status, indices, detail: problem };
      }
      return { kind: "rejected", status, code: problem?.code, detail: problem ?? (text.slice(0, 500) || undefined) };
    } catch (error) {
      // Network error, refused connection, timeout or a lost answer: the
      // same Idempotency-Key makes the retry safe if the server had committed.
      return { kind: "retry", retryAfterMs: null, why: error instanceof Error ? `${error.name}: ${error.message}` : "network error" };
    } finally {
      this.clock.clearTimeout(timer);
      this.abortRequest = null;
    }
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = (): void => {
        this.clock.clearTimeout(timer);
        this.wakeRetry = null;
        resolve();
      };
      const timer = this.clock.setTimeout(done, ms, this.waiters.size > 0);
      this.wakeRetry = done;
    });
  }

  /** Drops everything pending (shutdown gave up waiting); a request in flight is aborted and dropped by deliver(). */
  private abandon(reason: "closed" | "exit_timeout"): void {
    const queued = this.queue.splice(0);
    this.queueBytes = 0;
    if (queued.length > 0) this.dropItems(queued, reason, { message: "still pending when the shutdown timeout ran out" });
    if (this.inFlight) {
      this.abandonInFlight = reason;
      this.abortRequest?.();
      this.wakeRetry?.();
    }
    if (this.batchTimer !== null) {
      this.clock.clearTimeout(this.batchTimer);
      this.batchTimer = null;
    }
    this.settleWaiters();
  }

  private dropItems(items: Queued[], reason: DropReason, info: Omit<ClientProblem, "reason" | "events">): void {
    if (items.length === 0) return;
    const lowest = items[0]!.seq;
    for (const waiter of this.waiters) if (waiter.target >= lowest) waiter.ok = false;
    this.dropped[reason] += items.length;
    this.report({ ...info, reason, events: items.length });
  }

  private drop(events: number, reason: DropReason, message: string): void {
    this.dropped[reason] += events;
    this.report({ reason, events, message });
  }

  private internal(error: unknown): void {
    this.report({ reason: "internal", events: 0, message: `a bug in @telltale/client: ${error instanceof Error ? error.stack ?? error.message : String(error)}` });
  }

  private report(problem: ClientProblem): void {
    try {
      this.onError(problem);
    } catch {
      // The application's hook failed; logging must go on.
    }
  }

  private warnOnConsole(problem: ClientProblem): void {
    const now = this.clock.now();
    if (now - this.lastWarnAt < WARN_EVERY_MS) return;
    this.lastWarnAt = now;
    const total = Object.values(this.dropped).reduce((a, b) => a + b, 0);
    try {
      globalThis.console?.warn?.(`[telltale] ${problem.message}${problem.events ? ` (${problem.events} event${problem.events === 1 ? "" : "s"}, ${problem.reason})` : ""}; ${total} dropped so far. Pass onError to handle these yourself.`);
    } catch {
      // no console
    }
  }
}

type Problem = { code?: string; errors?: unknown };

function parseProblem(text: string): Problem | undefined {
  try {
    const value = JSON.parse(text) as unknown;
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Problem) : undefined;
  } catch {
    return undefined;
  }
}

/** Indices of the events a 400 names (`events.3.level`), or null when not every problem names one or the list may be cut. */
function invalidEventIndices(errors: unknown, count: number): Set<number> | null {
  // The server lists at most 100 problems: a full list may hide more events.
  if (!Array.isArray(errors) || errors.length === 0 || errors.length >= 100) return null;
  const indices = new Set<number>();
  for (const problem of errors) {
    const path = (problem as { path?: unknown })?.path;
    const match = typeof path === "string" ? /^events\.(\d+)(?:\.|$)/.exec(path) : null;
    if (!match || Number(match[1]) >= count) return null;
    indices.add(Number(match[1]));
  }
  return indices;
}

/** A Telltale client. Never throws: bad options give a client that drops (and reports) everything. */
export function createClient(options: ClientOptions): TelltaleClient {
  try {
    return new Client(options);
  } catch {
    return new Client({ url: "", projectId: "", onError: options?.onError });
  }
}
