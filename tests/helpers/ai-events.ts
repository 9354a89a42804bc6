import { createHash } from "node:crypto";
import type { EventLevel, SelectedEvent } from "@/lib/events/recent";

/** A fixed instant the AI unit tests count from. */
export const T0 = Date.parse("2025-03-01T10:00:00.000Z");
let seq = 0;

/** A SelectedEvent as lib/ai/select-events.ts returns it, received `at` seconds after T0. */
export function selectedEvent(
  level: EventLevel,
  message: string,
  opts: { project?: string; at?: number; context?: unknown } = {},
): SelectedEvent {
  const project = opts.project ?? "api";
  const contextText = opts.context === undefined ? null : JSON.stringify(opts.context);
  seq += 1;
  return {
    id: `00000000-0000-7000-8000-${String(seq).padStart(12, "0")}`,
    projectId: `p_${project}`,
    projectName: project,
    level,
    message,
    messageLength: message.length,
    messageHash: createHash("md5").update(message).digest("hex"),
    contextText,
    contextLength: contextText?.length ?? 0,
    receivedAt: new Date(T0 + (opts.at ?? 0) * 1000),
  };
}
