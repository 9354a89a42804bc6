import type { ValidEvent } from "@/lib/events/schema";

/**
 * The event model shared by the native, Sentry and OTLP routes this turn
 * (the contract between engineers): the native `ValidEvent` plus release,
 * environment, tags and user. Written as an intersection so that it stays
 * the same type once lib/events/schema.ts declares the four fields itself.
 */
export type EventUser = { id?: string; email?: string; username?: string; ip_address?: string };

export type MappedEvent = ValidEvent & {
  release: string | null;
  environment: string | null;
  tags: Record<string, string> | null;
  user: EventUser | null;
};

/** One event made from a Sentry payload, with the id the SDK gave it (32 lowercase hex). */
export type SentryEvent = { eventId: string; event: MappedEvent };

/** What the route passes in: the project the key resolved to, and the client's address for `{{auto}}`. */
export type MappingContext = {
  projectId: string;
  /** The client's address (lib/http/client-address.ts); "unknown" or absent leaves `{{auto}}` unresolved. */
  clientAddress?: string | null;
};

/** A stored event, serialized, at most (SPEC: "1 MiB per event"); bigger ones are trimmed. */
export const MAX_EVENT_BYTES = 1024 * 1024;
/** Breadcrumbs kept per event, the most recent (SPEC). */
export const MAX_BREADCRUMBS = 100;
