import { randomUUID } from "node:crypto";
import { v7 as uuidv7 } from "uuid";
import { prisma } from "@/lib/db/client";
import type { EventLevel } from "@/lib/events/schema";
import { storeEventsNow } from "@/lib/events/store";
import { eventTime } from "@/lib/events/time";
import { issueGroupingKey } from "@/lib/grouping/key";

export type EventSeed = {
  level?: EventLevel;
  message?: string;
  /** When the server received it (ISO 8601 or a Date). */
  at: string | Date;
  /** The client's own time, if it sent one. */
  timestamp?: string | Date;
  context?: Record<string, unknown>;
  fingerprint?: string[];
  id?: string;
};

/**
 * Stores events as ingestion would (issue, per-minute counts, event time),
 * with chosen receive times: the same statement as POST /api/events, without
 * its clock.
 */
export async function seedEvents(projectId: string, seeds: EventSeed[]) {
  const key = await prisma.apiKey.findFirstOrThrow({ where: { projectId, revokedAt: null }, select: { id: true } });
  const rows = seeds.map((s) => {
    const level = s.level ?? "info";
    const message = s.message ?? "something happened";
    const receivedAt = new Date(s.at);
    const timestamp = s.timestamp === undefined ? null : new Date(s.timestamp);
    const fingerprint = s.fingerprint ?? null;
    const { hash, title } = issueGroupingKey({ level, message, fingerprint });
    return {
      id: s.id ?? (s.at ? uuidv7() : randomUUID()),
      projectId,
      level,
      message,
      context: s.context ?? null,
      timestamp,
      fingerprint,
      receivedAt,
      occurredAt: eventTime(timestamp, receivedAt),
      keyId: key.id,
      issueHash: hash,
      issueTitle: title,
    };
  });
  await storeEventsNow(rows);
  return rows;
}
