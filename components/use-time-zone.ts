"use client";

import { createContext, useContext, useSyncExternalStore } from "react";
import type { TimeZoneMode } from "@/components/time-format";
import { TIME_ZONE_COOKIE } from "@/components/time-zone-cookie";

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
 * What the server knows of the reader's choice (the dashboard's layout reads
 * it from a cookie): "utc", an IANA zone name, or null (nothing yet: UTC).
 */
export const ServerTimeZoneContext = createContext<string | null>(null);

export type TimeZoneChoice = {
  mode: TimeZoneMode;
  /** The zone to format "local" times in; absent: the browser's own. */
  zone?: string;
};

const UTC: TimeZoneChoice = { mode: "utc" };
const LOCAL: TimeZoneChoice = { mode: "local" };
const choices = new Map<string, TimeZoneChoice>();

/**
 * The zone the reader chose for absolute times: their own (the default) or
 * UTC, kept in localStorage and mirrored in a cookie. The server (and the
 * hydration pass) writes what the cookie says, in the zone the browser last
 * reported; the browser then uses its own zone, which is the same unless the
 * reader has travelled since, so the times do not change under the reader.
 * Without the cookie (a first visit) the server writes UTC.
 */
export function useTimeZone(): TimeZoneChoice {
  const server = useContext(ServerTimeZoneContext);
  const snapshot = useSyncExternalStore(subscribeMode, readMode, () => server ?? "utc");
  if (snapshot === "utc") return UTC;
  if (snapshot === "local") return LOCAL;
  let choice = choices.get(snapshot);
  if (!choice) choices.set(snapshot, (choice = { mode: "local", zone: snapshot }));
  return choice;
}

export function useTimeZoneMode(): TimeZoneMode {
  return useTimeZone().mode;
}

export function setTimeZoneMode(mode: TimeZoneMode): void {
  try {
    window.localStorage.setItem(STORAGE_KEY, mode);
  } catch {
    // not persisted; still applied to this page below
  }
  rememberTimeZoneInCookie(mode);
  window.dispatchEvent(new Event(CHANGE_EVENT));
}

/** The choice (default: the stored one), for the server's next page: "utc", or this browser's zone now. */
export function rememberTimeZoneInCookie(mode: TimeZoneMode = readMode()): void {
  let value = "utc";
  if (mode === "local") {
    try {
      value = Intl.DateTimeFormat().resolvedOptions().timeZone || "utc";
    } catch {
      value = "utc";
    }
  }
  const secure = window.location.protocol === "https:" ? "; secure" : "";
  document.cookie = `${TIME_ZONE_COOKIE}=${value}; path=/; max-age=31536000; samesite=lax${secure}`;
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
