import type { EventLevel, GroupKey, SelectedEvent } from "@/lib/events/recent";

/**
 * Repeated events (same project, level and message) folded into one line;
 * contextText and contextLength are those of the most recent occurrence.
 */
export type EventGroup = Omit<SelectedEvent, "id" | "receivedAt"> & {
  key: string;
  count: number;
  firstSeen: Date;
  lastSeen: Date;
  /** Not seen just before the examined window (see findPreviouslySeenGroups). */
  isNew: boolean;
};

export const LEVEL_RANK: Record<EventLevel, number> = { error: 0, warn: 1, info: 2 };

export function groupKey(g: GroupKey): string {
  return `${g.projectId}\u0000${g.level}\u0000${g.messageHash}`;
}

/**
 * Groups events by (project, level, message) and orders the groups by
 * priority: worst level first, then most frequent, then most recent.
 * `isNew` starts false; the caller marks the new groups.
 */
export function groupEvents(events: SelectedEvent[]): EventGroup[] {
  const groups = new Map<string, EventGroup>();
  for (const event of events) {
    const key = groupKey(event);
    const existing = groups.get(key);
    if (!existing) {
      const { id: _id, receivedAt, ...fields } = event;
      groups.set(key, { ...fields, key, count: 1, firstSeen: receivedAt, lastSeen: receivedAt, isNew: false });
      continue;
    }
    existing.count += 1;
    if (event.receivedAt < existing.firstSeen) existing.firstSeen = event.receivedAt;
    if (event.receivedAt > existing.lastSeen) {
      existing.lastSeen = event.receivedAt;
      existing.contextText = event.contextText;
      existing.contextLength = event.contextLength;
    }
  }
  return [...groups.values()].sort(byPriority);
}

function byPriority(a: EventGroup, b: EventGroup): number {
  return (
    LEVEL_RANK[a.level] - LEVEL_RANK[b.level] ||
    b.count - a.count ||
    b.lastSeen.getTime() - a.lastSeen.getTime() ||
    (a.key < b.key ? -1 : a.key > b.key ? 1 : 0)
  );
}

/** Cuts text to `max` characters (never inside a surrogate pair) and says how much was left out. */
export function truncate(text: string, max: number, fullLength = text.length): string {
  if (fullLength <= max && text.length <= max) return text;
  let cut = Math.min(max, text.length);
  const code = text.charCodeAt(cut - 1);
  if (code >= 0xd800 && code <= 0xdbff) cut -= 1;
  return `${text.slice(0, cut)}… [${fullLength - cut} more characters]`;
}

/** 2025-01-31 14:05:09 UTC */
export function formatUtc(date: Date): string {
  return `${date.toISOString().slice(0, 19).replace("T", " ")} UTC`;
}
