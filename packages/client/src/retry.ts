/**
 * Retry timing. Hand-written rather than p-retry: the delay must come from the
 * server's Retry-After when it sends one (p-retry has no hook to set the next
 * delay), the clock must be injectable for tests, and p-retry 7+ requires
 * Node.js 20 or 22 where this package promises 18.
 */

/** Answers worth retrying: the server may take the same request later. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 425 || status === 429 || status >= 500;
}

/** Retry-After in milliseconds (delta-seconds or an HTTP date), or null when absent or unreadable. */
export function parseRetryAfter(header: string | null, now: number): number | null {
  if (header === null) return null;
  const value = header.trim();
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  if (Number.isNaN(date)) return null;
  return Math.max(0, date - now);
}

export type BackoffOptions = { baseMs: number; maxMs: number; maxRetryAfterMs: number; random: () => number };

/**
 * Delay before attempt `attempt + 1` (after `attempt` failures, from 1):
 * the server's Retry-After (never less), plus up to 10% so many clients told
 * the same do not return at once; else exponential backoff with equal jitter
 * (half fixed, half random), capped.
 */
export function retryDelay(attempt: number, retryAfterMs: number | null, o: BackoffOptions): number {
  if (retryAfterMs !== null) {
    const wait = Math.min(retryAfterMs, o.maxRetryAfterMs);
    return Math.round(wait + o.random() * Math.min(wait * 0.1, 1_000));
  }
  const cap = Math.min(o.maxMs, o.baseMs * 2 ** Math.min(attempt - 1, 30));
  return Math.round(cap / 2 + o.random() * (cap / 2));
}
