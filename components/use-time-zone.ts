"use client";

import { useSyncExternalStore } from "react";
import type { TimeZoneMode } from "@/components/time-format";

const STORAGE_KEY = "telltale:time-zone";
const CHANGE_EVENT = "telltale:time-zone-change";

function readMode(): TimeZoneMode {
  try {
    return window.localStorage.getItem(STORAGE_KEY) === "utc" ? "utc" : "local";
  } catch {
    return "local"; // storage blocked: the default
  }
}

function subscribeMode(onChange: () => void): () => void {
  // Same tab (the toggle) and other tabs (the storage event) alike.
  const onStorage = (event: StorageEvent) => {
    if (event.key === STORAGE_KEY) onChange();
  };
  window.addEventListener(CHANGE_EVENT, onChange);
  window.addEventListener("storage", onStorage);
  return () => {
    window.removeEventListener(CHANGE_EVENT, onChange);
    window.removeEventListener("storage", onStorage);
  };
}

/**
 * The zone the reader chose for absolute times: their own (the default) or
 * UTC, kept in localStorage. The server does not know the reader's zone, so
 * it (and the hydration pass) renders UTC; the browser then switches to the
 * stored choice, without a hydration mismatch.
 */
export function useTimeZoneMode(): TimeZoneMode {
  return useSyncExternalStore(subscribeMode, readMode, () => "utc");
}

export function setTimeZoneMode(mode: TimeZoneMode): void {
  try {
    window.localStorage.setItem(STORAGE_KEY, mode);
  } catch {
    // not persisted; still applied to this page below
  }
  window.dispatchEvent(new Event(CHANGE_EVENT));
}

// One clock for every relative time on the page, ticking while any is shown.
const TICK_MS = 30_000;
let now = 0;
let timer: ReturnType<typeof setInterval> | undefined;
const listeners = new Set<() => void>();

function subscribeNow(onChange: () => void): () => void {
  listeners.add(onChange);
  if (!timer) {
    timer = setInterval(() => {
      now = Date.now();
      listeners.forEach((listener) => listener());
    }, TICK_MS);
  }
  return () => {
    listeners.delete(onChange);
    if (listeners.size === 0) {
      clearInterval(timer);
      timer = undefined;
    }
  };
}

function readNow(): number {
  // Cached between calls (React compares snapshots); refreshed when the clock
  // was stopped for a while (no relative time on the page until now).
  if (now === 0 || (!timer && Date.now() - now > TICK_MS)) now = Date.now();
  return now;
}

/**
 * The current time for relative times ("3 min ago"): `renderedAt` (the
 * server's clock when it rendered the page) on the server and while
 * hydrating, so both write the same text; the browser's clock after that.
 */
export function useNow(renderedAt: number | null): number | null {
  // null, not NaN, for "no server time": React compares server snapshots with
  // !==, and NaN !== NaN (a dev warning about an uncached snapshot, each render).
  return useSyncExternalStore<number | null>(subscribeNow, readNow, () => renderedAt);
}

const noSubscription = () => () => {};

/** False on the server and while hydrating, true after: for what only the browser knows. */
export function useHydrated(): boolean {
  return useSyncExternalStore(noSubscription, () => true, () => false);
}
