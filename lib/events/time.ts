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

/** How far a client's own time may lie from ours and still be the event's time. */
export const MAX_CLIENT_PAST_MS = 14 * 86_400_000;
export const MAX_CLIENT_FUTURE_MS = 60_000;

/**
 * The event's time (`occurredAt`): the client's `timestamp` when it lies in
 * [receivedAt - 14 days, receivedAt + 1 minute], else `receivedAt`. A late
 * batch lands in the minutes it happened; a client with a wrong clock cannot
 * put events years away from when they arrived.
 */
export function eventTime(timestamp: Date | null, receivedAt: Date): Date {
  if (!timestamp) return receivedAt;
  const delta = timestamp.getTime() - receivedAt.getTime();
  return delta >= -MAX_CLIENT_PAST_MS && delta <= MAX_CLIENT_FUTURE_MS ? timestamp : receivedAt;
}
