"use client";

import { formatRelative, formatTime, type TimeFormat } from "@/components/time-format";
import { useNow, useTimeZone } from "@/components/use-time-zone";

type Props = {
  iso: string;
  /** An absolute format, or "relative" ("3 min ago", the exact time in the tooltip). */
  format?: TimeFormat | "relative";
  /**
   * The server's clock when it rendered (ms), for relative times: the server
   * and the hydration pass write the same text from it.
   */
  renderedAt?: number;
};

/**
 * A time, by the dashboard's one rule (components/time-format.ts): in the
 * zone the reader picked with the Local/UTC toggle, with the zone's name (the
 * server writes it as the browser will: components/use-time-zone.ts). The
 * tooltip always has the exact time in both zones.
 */
export function LocalTime({ iso, format = "datetime", renderedAt }: Props) {
  const { mode, zone } = useTimeZone();
  // Without `renderedAt`, the server writes the absolute time and the browser the relative one.
  const now = useNow(renderedAt ?? null);
  const exact = formatTime(iso, mode, "precise", zone);
  const title = mode === "utc" ? exact : `${exact} (${formatTime(iso, "utc", "precise")})`;
  const text = format !== "relative" ? formatTime(iso, mode, format, zone) : now === null ? formatTime(iso, mode, "datetime", zone) : formatRelative(iso, now);
  // The server and the browser each format with their own copy of the
  // time-zone rules; where those differ (a zone that changed its offset
  // lately), the browser's text wins without a hydration error.
  return (
    <time dateTime={iso} title={title} suppressHydrationWarning>
      {text}
    </time>
  );
}
