/**
 * Times the database can store and compare: years 0001 to 9999. PostgreSQL
 * has no year 0 (22008), and beyond 9999 JavaScript writes "+010000-…",
 * which it does not read either. Shared by event validation, the events
 * query and the summary endpoint.
 */
export const MIN_TIME_MS = Date.parse("0001-01-01T00:00:00.000Z");
export const MAX_TIME_MS = Date.parse("9999-12-31T23:59:59.999Z");

/** `ms` (unix milliseconds) as a Date when it lies in years 0001 to 9999, else null. */
export function supportedTime(ms: number): Date | null {
  return Number.isFinite(ms) && ms >= MIN_TIME_MS && ms <= MAX_TIME_MS ? new Date(ms) : null;
}

/** Unix timestamps from 10^12 up are milliseconds, smaller ones seconds (SPEC, `since`). */
export const UNIX_MILLISECONDS_FROM = 1e12;

export function unixTimestampToMs(n: number): number {
  return n >= UNIX_MILLISECONDS_FROM ? n : n * 1000;
}
