import { settings } from "@/lib/config/settings";
import { prisma, type Prisma } from "@/lib/db/client";
import { errors } from "@/lib/http/errors";
import { logger } from "@/lib/log";

type Tx = Prisma.TransactionClient;

/**
 * An interactive transaction holds one pooled connection from BEGIN to
 * COMMIT. Without a bound, a burst of them (80 project creations at once)
 * took every connection, and those left waiting past Prisma's 2 s `maxWait`
 * failed with "Unable to start a transaction in the given time", answered as
 * a database outage. Here they queue in this process, at most half the pool
 * at a time (reads keep the other half), each waiting up to the query
 * deadline (DATABASE_QUERY_TIMEOUT_MS, "pool wait included"); past it the
 * answer is 429 with Retry-After, and the log says the server was busy, not
 * the database down.
 */
const BUSY_RETRY_AFTER_SECONDS = 1;
/** Prisma's P2028 for "Unable to start a transaction in the given time" (P2028 also covers other transaction errors). */
function notStarted(error: unknown): boolean {
  const e = error as { code?: unknown; message?: unknown };
  return e.code === "P2028" && typeof e.message === "string" && e.message.includes("Unable to start a transaction");
}

type Waiter = { start: () => void; timer: NodeJS.Timeout };
const state = { running: 0, queue: [] as Waiter[] };

function capacity(): number {
  return Math.max(1, Math.floor(settings().database.poolSize / 2));
}

/** Waits for a transaction slot for up to `waitMs`; false when none came. */
function acquire(waitMs: number): Promise<boolean> {
  if (state.running < capacity() && state.queue.length === 0) {
    state.running++;
    return Promise.resolve(true);
  }
  return new Promise<boolean>((resolve) => {
    const waiter: Waiter = {
      start: () => {
        clearTimeout(waiter.timer);
        state.running++;
        resolve(true);
      },
      timer: setTimeout(() => {
        state.queue.splice(state.queue.indexOf(waiter), 1);
        resolve(false);
      }, waitMs),
    };
    state.queue.push(waiter);
  });
}

function release(): void {
  state.running--;
  while (state.running < capacity() && state.queue.length > 0) state.queue.shift()!.start();
}

/** Transactions running and waiting in this process (for logs and tests). */
export function transactionQueue(): { running: number; waiting: number; capacity: number } {
  return { running: state.running, waiting: state.queue.length, capacity: capacity() };
}

/**
 * Runs `fn` in an interactive transaction, queued behind this process's
 * others (see above). `label` names the work in the busy log line.
 */
export async function transaction<T>(label: string, fn: (tx: Tx) => Promise<T>): Promise<T> {
  const { queryTimeoutMs } = settings().database;
  const queuedAt = Date.now();
  if (!(await acquire(queryTimeoutMs))) throw busy(label, Date.now() - queuedAt, "no transaction slot in this process");
  try {
    const left = Math.max(100, queryTimeoutMs - (Date.now() - queuedAt));
    // `timeout` guards against a transaction left open; each statement has its own deadline.
    return await prisma.$transaction(fn, { maxWait: left, timeout: Math.max(10_000, 2 * queryTimeoutMs) });
  } catch (error) {
    if (notStarted(error)) throw busy(label, Date.now() - queuedAt, "no free database connection");
    throw error;
  } finally {
    release();
  }
}

function busy(label: string, waitedMs: number, reason: string) {
  const { running, waiting, capacity: slots } = transactionQueue();
  logger.warn("server busy: transaction not started, answered 429", { work: label, reason, waitedMs, running, waiting, slots });
  return errors.rateLimited({ retryAfterSeconds: BUSY_RETRY_AFTER_SECONDS });
}
