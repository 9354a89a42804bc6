import { randomUUID } from "node:crypto";

/**
 * Sentry event ids: 32 hexadecimal digits, also accepted as a UUID with
 * dashes (some SDKs write them so); both normalize to 32 lowercase digits.
 * Anything else is not an event id (null).
 */
export function normalizeEventId(value: unknown): string | null {
  if (typeof value !== "string") return null;
  const text = value.trim();
  if (/^[0-9a-fA-F]{32}$/.test(text)) return text.toLowerCase();
  if (/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/.test(text)) return text.replaceAll("-", "").toLowerCase();
  return null;
}

/** A fresh event id in Sentry's form, for an event that came without one. */
export function newSentryEventId(): string {
  return randomUUID().replaceAll("-", "");
}
