const HOUR_MS = 3_600_000;
const DAY_MS = 24 * HOUR_MS;

/**
 * The periods the dashboard offers (URL values `1h` … `30d`): their length,
 * how a sentence names them, and the labels of the filters. The one
 * definition; no other imports, so client components use it too.
 */
export const TIME_RANGES = {
  "1h": { ms: HOUR_MS, phrase: "the last hour", label: "Last hour", short: "1 hour" },
  "24h": { ms: DAY_MS, phrase: "the last 24 hours", label: "Last 24 hours", short: "24 hours" },
  "7d": { ms: 7 * DAY_MS, phrase: "the last 7 days", label: "Last 7 days", short: "7 days" },
  "30d": { ms: 30 * DAY_MS, phrase: "the last 30 days", label: "Last 30 days", short: "30 days" },
} as const;

export type Range = keyof typeof TIME_RANGES;
/** Shortest first. */
export const RANGES = Object.keys(TIME_RANGES) as Range[];
export const DEFAULT_RANGE: Range = "24h";
