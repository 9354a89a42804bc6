import { isInApp, platformOfFrame } from "@/lib/grouping/in-app";
import { eventStack } from "@/lib/grouping/key";

const MAX_FRAME_CHARS = 300;

/**
 * Where an event's error was raised in the application's own code: the
 * newest in-app frame of its outermost exception ("chargeCard
 * (src/payments/charge.ts:42)"), by the same in-app rules as grouping.
 * Null when the event has no stack or no in-app frame.
 */
export function topInAppFrame(context: Record<string, unknown> | null): string | null {
  if (!context) return null;
  const stack = eventStack(context);
  if (!stack) return null;
  for (const exception of [...stack.exceptions].reverse()) {
    const frames = exception.stacktrace?.frames ?? [];
    for (let i = frames.length - 1; i >= 0; i--) {
      const frame = frames[i]!;
      if (!isInApp(frame, stack.platform ?? platformOfFrame(frame))) continue;
      const file = frame.filename ?? frame.abs_path ?? frame.module;
      const where = file ? `${file}${frame.lineno !== undefined ? `:${frame.lineno}` : ""}` : null;
      const text = frame.function && where ? `${frame.function} (${where})` : (frame.function ?? where);
      if (text) return text.length <= MAX_FRAME_CHARS ? text : `${text.slice(0, MAX_FRAME_CHARS - 1)}…`;
    }
  }
  return null;
}
