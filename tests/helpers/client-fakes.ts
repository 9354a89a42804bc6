/**
 * Fakes for the client library's unit tests: a clock whose timers run only
 * when the test advances it, and a fetch whose requests the test answers.
 */
import type { Clock } from "@/packages/client/src/types";

type Timer = { at: number; ms: number; callback: () => void; keepAlive: boolean };

/** Lets promise chains started by the client run to their next wait. */
export async function settle(rounds = 20): Promise<void> {
  for (let i = 0; i < rounds; i++) await new Promise((resolve) => setImmediate(resolve));
}

export class FakeClock implements Clock {
  time = 1_800_000_000_000;
  private readonly timers = new Map<number, Timer>();
  private nextId = 1;

  now(): number {
    return this.time;
  }
  setTimeout(callback: () => void, ms: number, keepAlive = false): unknown {
    const id = this.nextId++;
    this.timers.set(id, { at: this.time + ms, ms, callback, keepAlive });
    return id;
  }
  clearTimeout(handle: unknown): void {
    this.timers.delete(handle as number);
  }
  /** Durations of the timers now waiting, in the order they were set. */
  pendingDelays(): number[] {
    return Array.from(this.timers.values(), (t) => t.ms);
  }
  /** Moves time on by `ms`, running each timer that comes due (and what it starts) in order. */
  async advance(ms: number): Promise<void> {
    const end = this.time + ms;
    for (;;) {
      await settle();
      const due = Array.from(this.timers.entries())
        .filter(([, t]) => t.at <= end)
        .sort((a, b) => a[1].at - b[1].at || a[0] - b[0])[0];
      if (!due) break;
      this.timers.delete(due[0]);
      this.time = Math.max(this.time, due[1].at);
      due[1].callback();
    }
    this.time = end;
    await settle();
  }
}

export type FakeCall = {
  url: string;
  headers: Record<string, string>;
  events: Record<string, unknown>[];
  bodyBytes: number;
  keepalive: boolean | undefined;
  respond(status: number, headers?: Record<string, string>, body?: unknown): void;
  fail(error?: Error): void;
};

/** A fetch that records each request; the test answers them (or `auto` does). */
export class FakeFetch {
  readonly calls: FakeCall[] = [];
  auto: ((call: FakeCall) => void) | null = null;
  private readonly listeners: (() => void)[] = [];

  readonly fetch = (url: string, init: RequestInit): Promise<Response> =>
    new Promise<Response>((resolve, reject) => {
      const body = String(init.body);
      const call: FakeCall = {
        url,
        headers: Object.fromEntries(Object.entries((init.headers ?? {}) as Record<string, string>).map(([k, v]) => [k.toLowerCase(), v])),
        events: (JSON.parse(body) as { events: Record<string, unknown>[] }).events,
        bodyBytes: Buffer.byteLength(body),
        keepalive: init.keepalive,
        respond(status, headers = {}, answer = status < 300 ? { ids: [], receivedAt: new Date().toISOString() } : { code: "x" }) {
          resolve(new Response(status === 204 ? null : JSON.stringify(answer), { status, headers }));
        },
        fail(error = new TypeError("fetch failed")) {
          reject(error);
        },
      };
      init.signal?.addEventListener("abort", () => reject(new DOMException("aborted", "AbortError")));
      this.calls.push(call);
      if (this.auto) this.auto(call);
      for (const listener of this.listeners.splice(0)) listener();
    });

  /** The `n`th request (from 0), once it has been made. */
  async call(n: number): Promise<FakeCall> {
    while (this.calls.length <= n) await new Promise<void>((resolve) => this.listeners.push(resolve));
    return this.calls[n]!;
  }
}
