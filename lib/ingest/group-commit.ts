import { isDatabaseUnavailable } from "@/lib/db/errors";

/**
 * Group commit: concurrent requests share one database statement (one round
 * trip, one commit). A request's promise settles only after the statement
 * that holds it has committed, so its caller acknowledges nothing that is not
 * durable. Requests are never split across statements, so each stays
 * all-or-nothing. What a statement does is the caller's (`commit`); when to
 * start one is this module's policy (`mayStartStatement`).
 */

/** What the scheduler knows when it decides whether to start a statement. */
export type WriterState = {
  /** Requests waiting, and their rows. */
  queued: number;
  queuedRows: number;
  /** Statements in flight, and how many may be. */
  inFlight: number;
  maxInFlight: number;
  /** Milliseconds since the newest statement in flight started. */
  newestStatementMs: number;
  /** Milliseconds since the last request joined the queue. */
  sinceLastArrivalMs: number;
};

// Rows per statement: large enough to amortise a round trip and a commit,
// small enough that one statement's JSON stays a few MiB.
export const MAX_ROWS_PER_STATEMENT = 2_000;
// Queued rows that start a statement beside one in flight.
const PARALLEL_STATEMENT_ROWS = MAX_ROWS_PER_STATEMENT / 4;
// A statement in flight this long starts another beside it for the requests
// waiting: a flush of single events takes a few milliseconds.
const STALLED_STATEMENT_MS = 50;
// No request arrived for this long while some wait behind a statement in
// flight: the process has nothing else to do, so they start their own.
const QUIET_ARRIVALS_MS = 2;

/**
 * One statement at a time, each taking every request that arrived while the
 * previous one committed: statements side by side each pay their own round
 * trip, plan and commit for fewer rows. Another starts alongside, up to the
 * limit, when the backlog would fill much of a statement (large batches),
 * when the newest statement in flight has stalled (a row lock, a
 * checkpoint), or when no request has arrived for a moment, so the process
 * never sits idle with requests it could be storing
 * ([measurements](../../docs/performance.md#group-commit-one-statement-at-a-time)).
 */
export function mayStartStatement(s: WriterState): boolean {
  if (s.queued === 0 || s.inFlight >= s.maxInFlight) return false;
  return s.inFlight === 0 || s.queuedRows >= PARALLEL_STATEMENT_ROWS || s.newestStatementMs >= STALLED_STATEMENT_MS || s.sinceLastArrivalMs >= QUIET_ARRIVALS_MS;
}

/**
 * Requests waiting behind statements in flight: in how many milliseconds
 * time alone could let the next one start (null: only a statement ending can).
 */
export function msUntilStatementMayStart(s: WriterState): number | null {
  if (s.queued === 0 || s.inFlight === 0 || s.inFlight >= s.maxInFlight) return null;
  return Math.max(1, Math.min(STALLED_STATEMENT_MS - s.newestStatementMs, QUIET_ARRIVALS_MS - s.sinceLastArrivalMs));
}

/** One request's outcome from a statement: its value, or the error it alone gets. */
export type Settlement<O> = { value: O } | { error: unknown };

export type GroupCommitOptions<T, O> = {
  /** Stores the requests in one statement and commit; one settlement per request, in order. */
  commit: (requests: T[]) => Promise<Settlement<O>[]>;
  /** Rows a request adds to a statement. */
  rows: (request: T) => number;
  /** A key that two requests in flight at once must not share (an idempotency claim), or null. */
  claim: (request: T) => string | null;
  /** Statements that may be in flight at once. */
  maxInFlight: () => number;
};

type Pending<T, O> = { request: T; rows: number; claim: string | null; resolve: (value: O) => void; reject: (error: unknown) => void };

export class GroupCommit<T, O> {
  private queue: Pending<T, O>[] = [];
  private queuedRows = 0;
  private scheduled = false;
  /** When the last request joined the queue: performance.now(). */
  private lastArrival = 0;
  /** When each statement in flight (by its requests) started: performance.now(). */
  private inFlightSince = new Map<Pending<T, O>[], number>();
  /** Claims that statements in flight hold: a request with one of them waits for it to end. */
  private inFlightClaims = new Set<string>();
  private stallTimer: NodeJS.Timeout | null = null;

  constructor(private readonly options: GroupCommitOptions<T, O>) {}

  /** Resolves after the statement holding `request` has committed. */
  submit(request: T): Promise<O> {
    return new Promise<O>((resolve, reject) => {
      const rows = this.options.rows(request);
      this.queue.push({ request, rows, claim: this.options.claim(request), resolve, reject });
      this.queuedRows += rows;
      this.lastArrival = performance.now();
      this.schedule();
    });
  }

  private state(): WriterState {
    let newest = -Infinity;
    for (const since of this.inFlightSince.values()) newest = Math.max(newest, since);
    const now = performance.now();
    return {
      queued: this.queue.length,
      queuedRows: this.queuedRows,
      inFlight: this.inFlightSince.size,
      maxInFlight: this.options.maxInFlight(),
      newestStatementMs: now - newest,
      sinceLastArrivalMs: now - this.lastArrival,
    };
  }

  private schedule(): void {
    if (this.scheduled) return;
    if (!mayStartStatement(this.state())) {
      this.watchForStall();
      return;
    }
    this.scheduled = true;
    // Let the requests that arrive in this turn of the event loop join.
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    while (mayStartStatement(this.state())) {
      const batch = this.takeBatch();
      // Every request waiting retries a claim a statement in flight holds:
      // they go when it ends (its completion schedules again).
      if (batch.length === 0) return;
      this.start(batch);
    }
    this.watchForStall();
  }

  private start(batch: Pending<T, O>[]): void {
    const claims = batch.flatMap((p) => (p.claim ? [p.claim] : []));
    this.inFlightSince.set(batch, performance.now());
    for (const claim of claims) this.inFlightClaims.add(claim);
    void this.commit(batch).finally(() => {
      this.inFlightSince.delete(batch);
      for (const claim of claims) this.inFlightClaims.delete(claim);
      this.schedule();
    });
  }

  /** Requests wait behind statements in flight: look again when time alone could let them start. */
  private watchForStall(): void {
    if (this.stallTimer) return;
    const wait = msUntilStatementMayStart(this.state());
    // null: the next statement to end schedules again.
    if (wait === null) return;
    this.stallTimer = setTimeout(() => {
      this.stallTimer = null;
      this.schedule();
    }, wait);
    this.stallTimer.unref();
  }

  /**
   * The next requests, in arrival order, up to MAX_ROWS_PER_STATEMENT rows.
   * Two requests with the same claim never share a statement, nor run side
   * by side: the second waits for the first to end.
   */
  private takeBatch(): Pending<T, O>[] {
    const batch: Pending<T, O>[] = [];
    const claims = new Set<string>();
    let rows = 0;
    const rest: Pending<T, O>[] = [];
    let full = false;
    for (const p of this.queue) {
      full ||= batch.length > 0 && rows + p.rows > MAX_ROWS_PER_STATEMENT;
      if (full || (p.claim && (claims.has(p.claim) || this.inFlightClaims.has(p.claim)))) {
        rest.push(p);
        continue;
      }
      if (p.claim) claims.add(p.claim);
      rows += p.rows;
      batch.push(p);
    }
    this.queue = rest;
    this.queuedRows -= rows;
    return batch;
  }

  private async commit(batch: Pending<T, O>[]): Promise<void> {
    let settlements: Settlement<O>[];
    try {
      settlements = await this.options.commit(batch.map((p) => p.request));
    } catch (error) {
      if (batch.length === 1 || isDatabaseUnavailable(error)) {
        for (const p of batch) p.reject(error);
        return;
      }
      // One request's rows failed the statement (e.g. its project was deleted
      // in the same instant): each half again, and so on, so the others land
      // in a few statements rather than one each.
      const middle = batch.length >> 1;
      await Promise.all([this.commit(batch.slice(0, middle)), this.commit(batch.slice(middle))]);
      return;
    }
    batch.forEach((p, i) => {
      const settlement = settlements[i]!;
      if ("error" in settlement) p.reject(settlement.error);
      else p.resolve(settlement.value);
    });
  }
}
