/**
 * How long each credential lives. No database import: proxy.ts reads it too.
 *
 * A database session expires SESSION_MAX_AGE_SECONDS after its last
 * extension, and is extended (one UPDATE) when used more than
 * SESSION_UPDATE_AGE_SECONDS after the previous one, as Auth.js's defaults.
 */
export const SESSION_MAX_AGE_SECONDS = 30 * 24 * 3600;
export const SESSION_UPDATE_AGE_SECONDS = 24 * 3600;

/** A sign-in link works once, for this long. */
export const SIGN_IN_LINK_LIFETIME_SECONDS = 15 * 60;
export const SIGN_IN_LINK_LIFETIME_TEXT = "15 minutes";

/** An invitation link works once, for this long. */
export const INVITATION_LIFETIME_MS = 7 * 24 * 3600 * 1000;

/**
 * The new expiry of a session that expires at `expires`, or null while its
 * last extension is less than SESSION_UPDATE_AGE_SECONDS old.
 */
export function extendedSessionExpiry(expires: Date, now = Date.now()): Date | null {
  const extendedAt = expires.getTime() - SESSION_MAX_AGE_SECONDS * 1000;
  if (now - extendedAt < SESSION_UPDATE_AGE_SECONDS * 1000) return null;
  return new Date(now + SESSION_MAX_AGE_SECONDS * 1000);
}
