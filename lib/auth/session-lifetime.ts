/**
 * How long a database session lives, as Auth.js's defaults: it expires
 * SESSION_MAX_AGE_SECONDS after the last extension, and is extended (one
 * UPDATE) when it is used more than SESSION_UPDATE_AGE_SECONDS after the
 * previous one. No database import: proxy.ts reads it too.
 */
export const SESSION_MAX_AGE_SECONDS = 30 * 24 * 3600;
export const SESSION_UPDATE_AGE_SECONDS = 24 * 3600;

/**
 * The new expiry of a session that expires at `expires`, or null while its
 * last extension is less than SESSION_UPDATE_AGE_SECONDS old.
 */
export function extendedSessionExpiry(expires: Date, now = Date.now()): Date | null {
  const extendedAt = expires.getTime() - SESSION_MAX_AGE_SECONDS * 1000;
  if (now - extendedAt < SESSION_UPDATE_AGE_SECONDS * 1000) return null;
  return new Date(now + SESSION_MAX_AGE_SECONDS * 1000);
}
