"use client";

import { useSyncExternalStore } from "react";

const subscribe = () => () => {};

/**
 * A time in the reader's own time zone. The server does not know that zone,
 * so it renders UTC and the browser replaces it after hydration (no mismatch).
 */
export function LocalTime({ iso, format = "datetime" }: { iso: string; format?: "datetime" | "date" | "relative" }) {
  const hydrated = useSyncExternalStore(subscribe, () => true, () => false);
  const date = new Date(iso);
  let text: string;
  if (!hydrated) {
    text = iso.replace("T", " ").replace(/\.\d+Z$|Z$/, " UTC");
    if (format === "date") text = iso.slice(0, 10);
  } else if (format === "date") {
    text = date.toLocaleDateString(undefined, { year: "numeric", month: "short", day: "numeric" });
  } else if (format === "relative") {
    text = relative(date);
  } else {
    text = date.toLocaleString(undefined, {
      month: "short",
      day: "numeric",
      hour: "2-digit",
      minute: "2-digit",
      second: "2-digit",
    });
  }
  return (
    <time dateTime={iso} title={hydrated ? date.toString() : iso}>
      {text}
    </time>
  );
}

function relative(date: Date): string {
  const seconds = Math.round((date.getTime() - Date.now()) / 1000);
  const rtf = new Intl.RelativeTimeFormat(undefined, { numeric: "auto" });
  const abs = Math.abs(seconds);
  if (abs < 60) return rtf.format(seconds, "second");
  if (abs < 3600) return rtf.format(Math.round(seconds / 60), "minute");
  if (abs < 86400) return rtf.format(Math.round(seconds / 3600), "hour");
  return rtf.format(Math.round(seconds / 86400), "day");
}
