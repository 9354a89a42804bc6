import { randomUUID } from "node:crypto";
import { v7 as uuidv7 } from "uuid";
import { prisma } from "@/lib/db/client";
import type { EventLevel, EventUser } from "@/lib/events/schema";
import { newEventRow } from "@/lib/ingest/ingest";
import { storeEventsNow } from "@/lib/ingest/writer";

export type EventSeed = {
  level?: EventLevel;
  message?: string;
  /** When the server received it (ISO 8601 or a Date). */
  at: string | Date;
  /** The client's own time, if it sent one. */
  timestamp?: string | Date;
  context?: Record<string, unknown>;
  fingerprint?: string[];
  release?: string;
  environment?: string;
  tags?: Record<string, string>;
  user?: EventUser;
  id?: string;
};

/**
 * Stores events as ingestion would (issue, per-minute counts, event time),
 * with chosen receive times: the same statement as POST /api/events, without
 * its clock.
 */
export async function seedEvents(projectId: string, seeds: EventSeed[]) {
  const key = await prisma.apiKey.findFirstOrThrow({ where: { projectId, revokedAt: null }, select: { id: true } });
  const rows = seeds.map((s) =>
    newEventRow(
      {
        level: s.level ?? "info",
        message: s.message ?? "something happened",
        projectId,
        context: s.context ?? null,
        timestamp: s.timestamp === undefined ? null : new Date(s.timestamp),
        fingerprint: s.fingerprint ?? null,
        release: s.release ?? null,
        environment: s.environment ?? null,
        tags: s.tags ?? null,
        user: s.user ?? null,
      },
      key.id,
      new Date(s.at),
      s.id ?? (s.at ? uuidv7() : randomUUID()),
    ),
  );
  await storeEventsNow(rows);
  return rows;
}
