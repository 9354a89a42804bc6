import type { PGlite } from "@electric-sql/pglite";

type Queued = {
  handlerId: number;
  message: Uint8Array;
  onData: (data: Uint8Array) => void;
  resolve: (bytes: number) => void;
  reject: (error: Error) => void;
};

// ReadyForQuery: 'Z', int32 length 5, transaction status ('I' idle, 'T' in a
// transaction, 'E' in a failed one).
const READY_FOR_QUERY = 0x5a;
const IDLE = 0x49;

/**
 * The query queue of @electric-sql/pglite-socket, replaced: PGlite has ONE
 * session, and the library schedules client messages one at a time, keeping a
 * connection's turn only inside an explicit transaction. Two connections
 * using the extended protocol (Parse/Bind/Execute/Sync, what `pg` and Prisma
 * send) then interleave, and one binds against the other's unnamed statement:
 * errors, or silently wrong rows (electric-sql/pglite#1046, open).
 *
 * Here a connection keeps the session from its first message until PGlite
 * answers ReadyForQuery with status idle: a whole extended-protocol batch,
 * a whole transaction, a whole COPY. Other connections wait their turn. A
 * connection that goes away mid-turn has its transaction rolled back.
 * Same interface as the library's queue (the socket handlers call it).
 *
 * One session also means that a client idle inside a transaction stops every
 * other one. As PostgreSQL's idle_in_transaction_session_timeout does, a
 * connection that holds the turn without sending anything for
 * `idleInTransactionMs` while others wait is terminated (`terminate`: its
 * transaction rolled back, its socket closed).
 */
export class ConnectionAffinityQueue {
  private queue: Queued[] = [];
  private owner: number | null = null;
  /** The connection whose message PGlite is running now. */
  private running: number | null = null;
  /** Connections that went away while their message ran. */
  private gone = new Set<number>();
  private processing = false;
  private ownerActiveAt = 0;
  /** The start of the owner's last message (statements are parameterized: no values), for the warning. */
  private lastStatement = "";
  private watchdog: NodeJS.Timeout | null = null;

  constructor(
    private readonly db: PGlite,
    private readonly options: { idleInTransactionMs?: number; terminate?: (handlerId: number) => void } = {},
  ) {}

  /** Stops the idle-in-transaction watchdog (server stop). */
  close(): void {
    if (this.watchdog) clearInterval(this.watchdog);
    this.watchdog = null;
  }

  private watch(): void {
    const { idleInTransactionMs, terminate } = this.options;
    if (this.watchdog || !idleInTransactionMs || !terminate) return;
    this.watchdog = setInterval(() => {
      const owner = this.owner;
      if (owner === null || this.processing || !this.queue.some((q) => q.handlerId !== owner)) return;
      if (Date.now() - this.ownerActiveAt < idleInTransactionMs) return;
      console.warn(
        `embedded database: closed connection #${owner}, idle in a transaction for over ${idleInTransactionMs} ms while ${this.queue.length} statement(s) of other connections waited; its last statement: ${this.lastStatement}`,
      );
      this.ownerActiveAt = Date.now();
      // Its socket, if still there, is closed (which releases it); else release it here.
      terminate(owner);
      void this.release(owner);
    }, Math.min(1000, idleInTransactionMs));
    this.watchdog.unref();
  }

  enqueue(handlerId: number, message: Uint8Array, onData: (data: Uint8Array) => void): Promise<number> {
    return new Promise((resolve, reject) => {
      this.queue.push({ handlerId, message, onData, resolve, reject });
      this.watch();
      void this.process();
    });
  }

  getQueueLength(): number {
    return this.queue.length;
  }

  clearQueueForHandler(handlerId: number): void {
    this.queue = this.queue.filter((q) => {
      if (q.handlerId !== handlerId) return true;
      q.reject(new Error("Handler disconnected"));
      return false;
    });
  }

  async clearTransactionIfNeeded(handlerId: number): Promise<void> {
    // Its message is running right now: released when that ends (process()).
    if (this.running === handlerId) {
      this.gone.add(handlerId);
      return;
    }
    await this.release(handlerId);
  }

  /** Rolls back what a departed connection left open and gives the turn on. */
  private async release(handlerId: number): Promise<void> {
    if (this.owner !== handlerId) return;
    try {
      // Not inside runExclusive: exec takes PGlite's own locks, and would wait for itself forever.
      if (this.db.isInTransaction()) await this.db.exec("ROLLBACK");
    } finally {
      this.owner = null;
      void this.process();
    }
  }

  private next(): Queued | undefined {
    const index = this.owner === null ? 0 : this.queue.findIndex((q) => q.handlerId === this.owner);
    if (index < 0 || index >= this.queue.length) return undefined;
    return this.queue.splice(index, 1)[0];
  }

  private async process(): Promise<void> {
    if (this.processing) return;
    this.processing = true;
    try {
      for (let item = this.next(); item; item = this.next()) {
        this.owner = item.handlerId;
        this.running = item.handlerId;
        this.lastStatement = Buffer.from(item.message.subarray(0, 120)).toString("latin1").replace(/[^\x20-\x7e]+/g, " ").trim();
        this.ownerActiveAt = Date.now();
        let bytes = 0;
        let tail: Uint8Array = new Uint8Array(0);
        try {
          await this.db.runExclusive(() =>
            this.db.execProtocolRawStream(item.message, {
              onRawData: (data: Uint8Array) => {
                bytes += data.length;
                tail = lastBytes(tail, data, 6);
                item.onData(data);
              },
            }),
          );
        } catch (error) {
          item.reject(error instanceof Error ? error : new Error(String(error)));
        }
        this.running = null;
        if (tail.length === 6 && tail[0] === READY_FOR_QUERY && tail[5] === IDLE) this.owner = null;
        this.ownerActiveAt = Date.now();
        item.resolve(bytes);
        // Its connection went away meanwhile: nothing more will come from it.
        if (this.gone.delete(item.handlerId) && this.owner === item.handlerId) {
          if (this.db.isInTransaction()) await this.db.exec("ROLLBACK").catch(() => {});
          this.owner = null;
        }
      }
    } finally {
      this.processing = false;
    }
  }
}

function lastBytes(previous: Uint8Array, data: Uint8Array, n: number): Uint8Array {
  if (data.length >= n) return data.slice(data.length - n);
  const joined = new Uint8Array(previous.length + data.length);
  joined.set(previous);
  joined.set(data, previous.length);
  return joined.slice(Math.max(0, joined.length - n));
}
