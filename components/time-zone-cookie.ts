/**
 * The reader's time-zone choice as a cookie, so the server writes times the
 * way the browser will show them (no switch from UTC after hydration): "utc",
 * or the IANA name of the zone the browser last reported ("Europe/Paris").
 * Written by the browser (components/use-time-zone.ts), read by the
 * dashboard's layout.
 */
import { knownTimeZone } from "@/lib/events/wall-time";

export const TIME_ZONE_COOKIE = "telltale-tz";

/** A cookie value -> "utc", a zone this runtime knows, or null (no choice known: the server writes UTC). */
export function parseTimeZoneCookie(value: string | undefined): string | null {
  if (!value) return null;
  if (value === "utc") return "utc";
  return knownTimeZone(value);
}
