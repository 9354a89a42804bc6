/**
 * Environment hooks, each guarded: the core imports nothing from Node.js so
 * it runs on Node.js 18+, Bun, Deno, edge runtimes and in browsers.
 */
import type { Clock } from "./types.js";

type Timer = { unref?: () => void };

/** Real time; timers that need not keep a Node.js (or Deno) process alive are unref'd. */
export const systemClock: Clock = {
  now: () => Date.now(),
  setTimeout(callback, ms, keepAlive = false) {
    const handle = setTimeout(callback, ms) as unknown;
    if (!keepAlive) {
      try {
        if (typeof (handle as Timer)?.unref === "function") (handle as Timer).unref!();
        else {
          const deno = (globalThis as { Deno?: { unrefTimer?: (id: number) => void } }).Deno;
          if (typeof handle === "number" && typeof deno?.unrefTimer === "function") deno.unrefTimer(handle);
        }
      } catch {
        // A runtime without unref: the timer keeps the process up a little longer, no more.
      }
    }
    return handle;
  },
  clearTimeout(handle) {
    clearTimeout(handle as ReturnType<typeof setTimeout>);
  },
};

/** What the exit hooks need from a client. */
export interface ExitFlushable {
  pendingCount(): number;
  /** Flushes within the client's shutdown timeout; what is left then is dropped and counted. */
  flushForExit(): Promise<unknown>;
}

type NodeLikeProcess = {
  pid: number;
  on(event: string, listener: (...args: unknown[]) => void): unknown;
  off?(event: string, listener: (...args: unknown[]) => void): unknown;
  removeListener(event: string, listener: (...args: unknown[]) => void): unknown;
  listenerCount(event: string): number;
  kill(pid: number, signal: string): unknown;
};

type BrowserLikeGlobal = {
  addEventListener(type: string, listener: () => void): void;
  removeEventListener(type: string, listener: () => void): void;
  document?: { visibilityState?: string; addEventListener(type: string, listener: () => void): void; removeEventListener(type: string, listener: () => void): void };
};

const clients = new Set<ExitFlushable>();
let uninstall: (() => void) | null = null;
let exiting: Promise<unknown> | null = null;
const SIGNALS = ["SIGINT", "SIGTERM"] as const;

function flushAll(): Promise<unknown> {
  exiting ??= Promise.all(Array.from(clients, (client) => client.flushForExit().catch(() => undefined))).finally(() => {
    exiting = null;
  });
  return exiting;
}

function nodeProcess(): NodeLikeProcess | undefined {
  const candidate = (globalThis as { process?: Partial<NodeLikeProcess> }).process;
  if (!candidate || typeof candidate.on !== "function" || typeof candidate.removeListener !== "function" || typeof candidate.listenerCount !== "function") return undefined;
  return candidate as NodeLikeProcess;
}

function installNode(proc: NodeLikeProcess): () => void {
  // beforeExit: the event loop ran dry (pending batches wait on unref'd
  // timers). The flush's own request and a kept-alive timer hold the process
  // until it is done or the clients' shutdown timeouts drop what is left.
  const onBeforeExit = () => {
    if (exiting || !Array.from(clients).some((c) => c.pendingCount() > 0)) return;
    void flushAll();
  };
  const onSignal = (signal: unknown) => {
    const name = String(signal);
    // Another listener means the application handles this signal (and its
    // exit) itself; alone, ours restores the default after flushing.
    const alone = proc.listenerCount(name) === 1;
    void flushAll().finally(() => {
      if (!alone) return;
      uninstall?.();
      uninstall = null;
      try {
        proc.kill(proc.pid, name);
      } catch {
        // Nothing more to do: the process is on its way out.
      }
    });
  };
  proc.on("beforeExit", onBeforeExit);
  for (const signal of SIGNALS) proc.on(signal, onSignal);
  return () => {
    proc.removeListener("beforeExit", onBeforeExit);
    for (const signal of SIGNALS) proc.removeListener(signal, onSignal);
  };
}

function installBrowser(win: BrowserLikeGlobal): () => void {
  // A page being hidden or left may never come back: send now (the client
  // uses fetch keepalive for small bodies so the request outlives the page).
  const onHide = () => void flushAll();
  const onVisibility = () => {
    if (win.document?.visibilityState === "hidden") onHide();
  };
  win.addEventListener("pagehide", onHide);
  win.document?.addEventListener("visibilitychange", onVisibility);
  return () => {
    win.removeEventListener("pagehide", onHide);
    win.document?.removeEventListener("visibilitychange", onVisibility);
  };
}

/** Flush `client` when the process or page goes away; returns the unregister function. */
export function registerExitFlush(client: ExitFlushable): () => void {
  try {
    clients.add(client);
    if (!uninstall) {
      const proc = nodeProcess();
      const win = globalThis as unknown as Partial<BrowserLikeGlobal>;
      if (proc) uninstall = installNode(proc);
      else if (typeof win.addEventListener === "function" && typeof win.removeEventListener === "function" && win.document) uninstall = installBrowser(win as BrowserLikeGlobal);
    }
  } catch {
    // No hooks in this runtime: flush() and close() still work.
  }
  return () => {
    clients.delete(client);
    if (clients.size === 0 && uninstall) {
      try {
        uninstall();
      } catch {
        // ignore
      }
      uninstall = null;
    }
  };
}

/** Whether fetch here is a browser's (keepalive lets a small request outlive the page). */
export function isBrowser(): boolean {
  const g = globalThis as { window?: unknown; document?: unknown };
  return typeof g.window !== "undefined" && typeof g.document !== "undefined";
}

/** A unique id for this client's Idempotency-Keys. */
export function randomId(): string {
  const crypto = (globalThis as { crypto?: { randomUUID?: () => string } }).crypto;
  try {
    if (typeof crypto?.randomUUID === "function") return crypto.randomUUID();
  } catch {
    // fall through
  }
  // Node.js 18 without the global crypto: ids only need to be unique, not secret.
  let id = "";
  for (let i = 0; i < 32; i++) id += Math.floor(Math.random() * 16).toString(16);
  return id;
}
