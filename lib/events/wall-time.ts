/**
 * Wall-clock times typed in a time zone (the events page's custom range):
 * to the instant they name there, with that date's own offset, so a range in
 * July typed in November lands on the right hour across a daylight-saving
 * change.
 */

/** `name` when this runtime knows it as an IANA zone ("Europe/Paris", "UTC"), else null. */
export function knownTimeZone(name: string): string | null {
  if (!name || name.length > 64 || !/^[A-Za-z][A-Za-z0-9_+\-/]*$/.test(name)) return null;
  try {
    new Intl.DateTimeFormat("en-US", { timeZone: name });
    return name;
  } catch {
    return null;
  }
}

const formatters = new Map<string, Intl.DateTimeFormat>();

function formatterFor(zone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(zone);
  if (!formatter) {
    formatter = new Intl.DateTimeFormat("en-US", {
      timeZone: zone,
      hourCycle: "h23",
      era: "short",
      year: "numeric",
      month: "numeric",
      day: "numeric",
      hour: "numeric",
      minute: "numeric",
      second: "numeric",
    });
    formatters.set(zone, formatter);
  }
  return formatter;
}

/** Unix ms of a wall-clock date as if it were UTC (years 1-9999; Date.UTC would read 0-99 as 1900-1999). */
function wallAsUtc(year: number, month: number, day: number, hour: number, minute: number, second: number): number {
  const date = new Date(0);
  date.setUTCFullYear(year, month - 1, day);
  date.setUTCHours(hour, minute, second, 0);
  return date.getTime();
}

/** The zone's offset from UTC at instant `ms`, in ms (east positive: Paris in summer +7,200,000). */
export function zoneOffsetMs(ms: number, zone: string): number {
  const parts: Record<string, string> = {};
  for (const { type, value } of formatterFor(zone).formatToParts(new Date(ms))) parts[type] = value;
  const year = parts.era === "BC" || parts.era === "B" ? 1 - Number(parts.year) : Number(parts.year);
  const wall = wallAsUtc(year, Number(parts.month), Number(parts.day), Number(parts.hour), Number(parts.minute), Number(parts.second));
  return wall - (ms - (((ms % 1000) + 1000) % 1000));
}

const DAY_MS = 86_400_000;

/**
 * `YYYY-MM-DDTHH:mm[:ss]` read in `zone` -> unix ms, as a browser reads a
 * datetime-local value: a time that occurs twice (clocks going back) is the
 * first of the two; one that does not occur (clocks going forward) is moved
 * forward by the gap (02:30 -> 03:30). NaN for text that is not such a time.
 */
export function wallTimeToUtc(value: string, zone: string): number {
  const m = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2}))?$/.exec(value);
  if (!m) return NaN;
  const [year, month, day, hour, minute, second] = m.slice(1).map((v) => Number(v ?? 0)) as [number, number, number, number, number, number];
  if (month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 59) return NaN;
  const wall = wallAsUtc(year, month, day, hour, minute, second);
  // The written date must exist (no 31 February).
  if (new Date(wall).getUTCDate() !== day) return NaN;
  // A zone changes its offset at most once within a day or so: the offsets
  // a day before and after are the only two candidates.
  const before = zoneOffsetMs(wall - DAY_MS, zone);
  const after = zoneOffsetMs(wall + DAY_MS, zone);
  const candidates = [wall - before, wall - after].filter((t) => zoneOffsetMs(t, zone) === wall - t);
  if (candidates.length > 0) return Math.min(...candidates);
  // In the gap: with the offset from before the change, which lands after it.
  return wall - before;
}
