/**
 * What a Sentry SDK reads from a 429: `Retry-After` (seconds) and
 * `X-Sentry-Rate-Limits`, a comma-separated list of
 * `<seconds>:<categories>:<scope>[:<reason code>]` where categories are
 * `;`-separated data categories (empty: all of them) and scope is
 * `organization`, `project` or `key`. The SDKs then hold back the named
 * categories for that long instead of retrying at once.
 */
export type SentryRateLimit = {
  retryAfterSeconds: number;
  /** Data categories limited ("error", "log_item", "transaction", ...); empty or absent: all. */
  categories?: string[];
  scope?: "organization" | "project" | "key";
  /** A short snake_case reason, shown in the SDK's debug log. */
  reasonCode?: string;
};

/** Whole seconds, at least 1: a limit of 0 seconds would be no limit to the SDK. */
const wholeSeconds = (seconds: number) => Math.max(1, Math.ceil(Number.isFinite(seconds) ? seconds : 1));

/** `X-Sentry-Rate-Limits` and `Retry-After` for a 429 on the Sentry routes. */
export function sentryRateLimitHeaders(...limits: SentryRateLimit[]): Record<string, string> {
  const groups = limits.map(({ retryAfterSeconds, categories = [], scope = "key", reasonCode }) => {
    const group = `${wholeSeconds(retryAfterSeconds)}:${categories.filter((c) => /^[a-z_]+$/.test(c)).join(";")}:${scope}`;
    return reasonCode && /^[a-z0-9_]+$/.test(reasonCode) ? `${group}:${reasonCode}` : group;
  });
  const longest = Math.max(...limits.map((l) => wholeSeconds(l.retryAfterSeconds)));
  return { "Retry-After": String(longest), "X-Sentry-Rate-Limits": groups.join(", ") };
}

/** The body of a Sentry route's success: `{"id": "<event_id>"}` (null when the envelope had no event). */
export function sentryAnswer(eventId: string | null): { id: string | null } {
  return { id: eventId };
}
