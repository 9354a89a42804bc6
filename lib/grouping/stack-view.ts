import { STACK_LIMITS, type StackFrame, type StackPlatform } from "@/lib/grouping/frames";
import { isInApp, platformFromSentry, platformOfFrame } from "@/lib/grouping/in-app";
import { eventStack } from "@/lib/grouping/key";

/**
 * An event's stack as a reader scans it (the issue page): the exception
 * raised first, then its causes; in each, the newest call first. Sentry
 * frames keep their source lines; native stack strings (context.stack and
 * the like) are parsed by the same parsers as grouping uses.
 */

export type FrameView = {
  function: string | null;
  /** The file, else the module (Java, Go, .NET frames name one or the other). */
  file: string | null;
  lineno: number | null;
  colno: number | null;
  inApp: boolean;
  /** Source lines around the frame's line, when the SDK sent them. */
  preContext: string[];
  contextLine: string | null;
  postContext: string[];
};

export type ExceptionView = { type: string | null; value: string | null; frames: FrameView[] };

/** The exception raised first, then what caused it, and so on. */
export type StackView = { exceptions: ExceptionView[] };

const MAX_CONTEXT_LINES = 10;
const MAX_SOURCE_LINE_CHARS = 500;

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

const text = (value: unknown, max: number = STACK_LIMITS.maxValueChars): string | null => (typeof value === "string" && value !== "" ? value.slice(0, max) : null);
const lineNumber = (value: unknown): number | null => (typeof value === "number" && Number.isInteger(value) && value >= 0 ? value : null);

function sourceLines(value: unknown, fromEnd: boolean): string[] {
  if (!Array.isArray(value)) return [];
  const lines = value.filter((l): l is string => typeof l === "string").map((l) => l.slice(0, MAX_SOURCE_LINE_CHARS));
  return fromEnd ? lines.slice(-MAX_CONTEXT_LINES) : lines.slice(0, MAX_CONTEXT_LINES);
}

function frameView(frame: StackFrame, platform: StackPlatform | undefined, raw?: Record<string, unknown>): FrameView {
  return {
    function: text(frame.function),
    file: text(frame.filename || frame.abs_path || frame.module),
    lineno: lineNumber(frame.lineno),
    colno: lineNumber(frame.colno),
    inApp: isInApp(frame, platform ?? platformOfFrame(frame)),
    preContext: sourceLines(raw?.pre_context, true),
    contextLine: raw ? text(raw.context_line, MAX_SOURCE_LINE_CHARS) : null,
    postContext: sourceLines(raw?.post_context, false),
  };
}

/** A Sentry `exception.values` list (innermost cause first), read from untrusted JSON. */
function sentryStack(values: unknown[], platform: StackPlatform | undefined): StackView {
  const exceptions: ExceptionView[] = [];
  for (const value of values.slice(-STACK_LIMITS.maxExceptions).reverse()) {
    if (!isObject(value)) continue;
    const rawFrames = isObject(value.stacktrace) && Array.isArray(value.stacktrace.frames) ? value.stacktrace.frames : [];
    const frames: FrameView[] = [];
    for (const raw of rawFrames.slice(-STACK_LIMITS.maxFramesPerException).reverse()) {
      if (!isObject(raw)) continue;
      const frame: StackFrame = {};
      for (const key of ["function", "module", "filename", "abs_path"] as const) if (typeof raw[key] === "string") frame[key] = raw[key];
      if (typeof raw.lineno === "number") frame.lineno = raw.lineno;
      if (typeof raw.colno === "number") frame.colno = raw.colno;
      if (typeof raw.in_app === "boolean") frame.in_app = raw.in_app;
      frames.push(frameView(frame, platform, raw));
    }
    exceptions.push({ type: text(value.type), value: text(value.value), frames });
  }
  return { exceptions };
}

/** The event's stack for display, or null when it has none with a frame. */
export function eventStackView(context: Record<string, unknown> | null): StackView | null {
  if (!context) return null;
  const sentry = context.exception;
  if (isObject(sentry) && Array.isArray(sentry.values)) {
    const view = sentryStack(sentry.values, platformFromSentry(context.platform));
    if (view.exceptions.some((e) => e.frames.length > 0)) return view;
  }
  const parsed = eventStack(context);
  if (!parsed) return null;
  return {
    exceptions: [...parsed.exceptions].reverse().map((e) => ({
      type: text(e.type),
      value: text(e.value),
      frames: [...(e.stacktrace?.frames ?? [])].reverse().map((f) => frameView(f, parsed.platform)),
    })),
  };
}
