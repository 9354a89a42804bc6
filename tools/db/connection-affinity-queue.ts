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
 */
export class ConnectionAffinityQueue {
  private queue: Queued[] = [];
  private owner: number | null = null;
  private processing = false;

  constructor(private readonly db: PGlite) {}

  enqueue(handlerId: number, message: Uint8Array, onData: (data: Uint8Array) => void): Promise<number> {
    return new Promise((resolve, reject) => {
      this.queue.push({ handlerId, message, onData, resolve, reject });
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
    if (this.owner !== handlerId) return;
    try {
      if (this.db.isInTransaction()) await this.db.runExclusive(() => this.db.exec("ROLLBACK"));
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
        if (tail.length === 6 && tail[0] === READY_FOR_QUERY && tail[5] === IDLE) this.owner = null;
        item.resolve(bytes);
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
