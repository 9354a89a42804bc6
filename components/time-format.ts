/**
 * How the dashboard writes times. One rule everywhere: absolute times are
 * shown in the zone the reader chose (their own, or UTC), always with the
 * zone's name beside them; relative times ("3 min ago") carry the exact time
 * in their tooltip. Pure functions, so the server and the browser (and the
 * unit tests) produce the same text from the same inputs.
 */

export type TimeZoneMode = "local" | "utc";
export type TimeFormat = "datetime" | "date" | "time" | "precise";

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

/**
 * "just now", "45 s ago", "3 min ago", "2 h ago", "5 d ago", "3 mo ago";
 * "in 7 d" for the future. Past times are rounded down, so "59 min ago"
 * never reads "1 h ago" before the hour is complete; future ones to the
 * nearest unit, so a 7-day expiry set a moment ago reads "in 7 d".
 */
export function formatRelative(time: string | number | Date, now: number): string {
  const ms = typeof time === "number" ? time : typeof time === "string" ? Date.parse(time) : time.getTime();
  if (Number.isNaN(ms)) return "";
  const diff = now - ms;
  const abs = Math.abs(diff);
  if (abs < 10_000) return "just now";
  const count = (unit: number) => (diff >= 0 ? Math.floor(abs / unit) : Math.round(abs / unit));
  let amount: string;
  if (abs < MINUTE) amount = `${count(1000)} s`;
  else if (abs < HOUR) amount = `${count(MINUTE)} min`;
  else if (abs < DAY) amount = `${count(HOUR)} h`;
  else if (abs < 60 * DAY) amount = `${count(DAY)} d`;
  else if (abs < 730 * DAY) amount = `${count(30 * DAY)} mo`;
  else amount = `${count(365 * DAY)} y`;
  return diff >= 0 ? `${amount} ago` : `in ${amount}`;
}

// A fixed locale: the text is the same on the server and in every browser
// (no hydration surprise), and 24-hour times need no AM/PM.
const LOCALE = "en-US";
const OPTIONS: Record<TimeFormat, Intl.DateTimeFormatOptions> = {
  datetime: { month: "short", day: "numeric", hour: "2-digit", minute: "2-digit", second: "2-digit", hourCycle: "h23" },
  date: { year: "numeric", month: "short", day: "numeric" },
  time: { hour: "2-digit", minute: "2-digit", hourCycle: "h23" },
  precise: {
    year: "numeric",
    month: "short",
    day: "numeric",
    hour: "2-digit",
    minute: "2-digit",
    second: "2-digit",
    fractionalSecondDigits: 3,
    hourCycle: "h23",
  },
};

const formatters = new Map<string, Intl.DateTimeFormat>();
function formatter(format: TimeFormat, timeZone: string | undefined, zoneName: boolean): Intl.DateTimeFormat {
  const key = `${format}|${timeZone ?? ""}|${zoneName}`;
  let f = formatters.get(key);
  if (!f) {
    f = new Intl.DateTimeFormat(LOCALE, { ...OPTIONS[format], timeZone, ...(zoneName ? { timeZoneName: "short" } : {}) });
    formatters.set(key, f);
  }
  return f;
}

/**
 * An absolute time in UTC or the reader's zone. Formats with a time of day
 * end with the zone ("May 1, 14:03:22 UTC", "May 1, 16:03:22 GMT+2"), so a
 * time is never read in the wrong zone; `date` has none.
 */
export function formatTime(time: string | number | Date, mode: TimeZoneMode, format: TimeFormat = "datetime", timeZone?: string): string {
  const date = time instanceof Date ? time : new Date(time);
  if (Number.isNaN(date.getTime())) return "";
  const zone = mode === "utc" ? "UTC" : timeZone;
  return formatter(format, zone, format !== "date").format(date).replace(" at ", ", ");
}

/** The name of the reader's zone for labels ("Europe/Paris"), or "UTC"; `timeZone`: the one the server was told. */
export function zoneName(mode: TimeZoneMode, timeZone?: string): string {
  if (mode === "utc") return "UTC";
  if (timeZone) return timeZone;
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || "local time";
  } catch {
    return "local time";
  }
}
