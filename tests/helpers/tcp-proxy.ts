/**
 * A TCP proxy for tests, put between the app and PostgreSQL (or any TCP
 * server) to act out what a network or a database can do to a client:
 *
 * - `stall()`: stop forwarding bytes in both directions, keep every
 *   connection open, and keep accepting new ones (which forward nothing
 *   either). To the client this is a frozen database: the TCP connection is
 *   up, a query is sent, and no answer comes. Bytes that arrive meanwhile are
 *   held (reading pauses, so the kernel buffers push back on the sender) and
 *   delivered in order by `resume()`.
 * - `resume()`: forward again, the held bytes first.
 * - `cut()`: destroy every open connection (both sides) at once, as a network
 *   failure or a killed database would. New connections are still accepted.
 * - `refuse(true)`: close each new connection as soon as it is accepted (a
 *   database that is down behind a load balancer); `refuse(false)` ends that.
 * - `close()`: stop listening and destroy every connection.
 *
 *   const proxy = await startTcpProxy({ host: "127.0.0.1", port: 5432 });
 *   process.env.DATABASE_URL = `postgresql://postgres@127.0.0.1:${proxy.port}/app`;
 *   proxy.stall(); ...; proxy.resume();
 *
 * The listening port never changes, so a client configured once keeps
 * working across stalls, cuts and refusals. Used by the chaos run
 * (harness/chaos/run.ts) and by integration tests of database deadlines.
 */
import net from "node:net";

export type TcpProxyTarget = { host: string; port: number };

export interface TcpProxy {
  /** The port the proxy listens on (127.0.0.1 unless `listenHost` was given). */
  readonly port: number;
  readonly host: string;
  /** Client connections currently open through the proxy. */
  readonly connections: number;
  readonly stalled: boolean;
  readonly refusing: boolean;
  stall(): void;
  resume(): void;
  /** Destroys every open connection; returns how many client connections were cut. */
  cut(): number;
  refuse(on: boolean): void;
  close(): Promise<void>;
}

export type TcpProxyOptions = TcpProxyTarget & {
  /** Port to listen on; 0 (the default) picks a free one. */
  listenPort?: number;
  listenHost?: string;
};

/**
 * One direction of a connection: reads from `from`, writes to `to`, holding
 * the bytes while the proxy is stalled and honouring backpressure otherwise.
 */
class Forwarder {
  private held: Buffer[] = [];
  private waitingForDrain = false;

  constructor(
    private readonly from: net.Socket,
    private readonly to: net.Socket,
    private readonly isStalled: () => boolean,
  ) {
    from.on("data", (chunk: Buffer) => {
      if (this.isStalled() || !this.to.writable || this.to.connecting) {
        this.held.push(chunk);
        // Stop reading while stalled: the sender's writes back up in the
        // kernel, as they would against a database that stopped reading.
        if (this.isStalled()) from.pause();
        return;
      }
      this.write(chunk);
    });
    to.on("drain", () => {
      this.waitingForDrain = false;
      if (!this.isStalled()) from.resume();
    });
  }

  private write(chunk: Buffer): void {
    if (!this.to.write(chunk)) {
      this.waitingForDrain = true;
      this.from.pause();
    }
  }

  /** Sends what was held (in order) and reads again. */
  flush(): void {
    if (this.isStalled() || this.to.destroyed || this.to.connecting) return;
    const held = this.held;
    this.held = [];
    for (const chunk of held) this.write(chunk);
    if (!this.waitingForDrain && !this.from.destroyed) this.from.resume();
  }
}

type Pair = { client: net.Socket; upstream: net.Socket; forwarders: Forwarder[] };

export async function startTcpProxy(options: TcpProxyOptions): Promise<TcpProxy> {
  const pairs = new Set<Pair>();
  let stalled = false;
  let refusing = false;
  const isStalled = () => stalled;

  const server = net.createServer((client) => {
    client.on("error", () => {});
    if (refusing) {
      client.destroy();
      return;
    }
    client.setNoDelay(true);
    const upstream = net.connect({ host: options.host, port: options.port });
    upstream.setNoDelay(true);
    upstream.on("error", () => {});
    const pair: Pair = { client, upstream, forwarders: [] };
    pairs.add(pair);
    pair.forwarders = [new Forwarder(client, upstream, isStalled), new Forwarder(upstream, client, isStalled)];
    upstream.once("connect", () => pair.forwarders[0]!.flush());
    // Either side closing closes the other: the client sees what the server did.
    const teardown = () => {
      if (!pairs.delete(pair)) return;
      client.destroy();
      upstream.destroy();
    };
    client.once("close", teardown);
    upstream.once("close", teardown);
    // A half-close is passed on once the held bytes have gone (never while stalled).
    client.once("end", () => whenFlowing(() => upstream.end()));
    upstream.once("end", () => whenFlowing(() => client.end()));
  });

  const pendingEnds: (() => void)[] = [];
  const whenFlowing = (fn: () => void) => (stalled ? pendingEnds.push(fn) : fn());

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.listenPort ?? 0, options.listenHost ?? "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address() as net.AddressInfo;

  const cut = () => {
    const n = pairs.size;
    for (const pair of [...pairs]) {
      pairs.delete(pair);
      pair.client.destroy();
      pair.upstream.destroy();
    }
    return n;
  };

  return {
    port: address.port,
    host: address.address,
    get connections() {
      return pairs.size;
    },
    get stalled() {
      return stalled;
    },
    get refusing() {
      return refusing;
    },
    stall() {
      stalled = true;
    },
    resume() {
      if (!stalled) return;
      stalled = false;
      for (const pair of pairs) for (const forwarder of pair.forwarders) forwarder.flush();
      for (const fn of pendingEnds.splice(0)) fn();
    },
    cut,
    refuse(on: boolean) {
      refusing = on;
    },
    async close() {
      refusing = true;
      cut();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
