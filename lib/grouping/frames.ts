/**
 * Stack frames and exceptions in Sentry's shape, so that a Sentry event's
 * frames are stored as sent and a parsed native stack looks the same.
 * Frames are listed oldest call first; a chain of exceptions innermost cause
 * first, outermost last (Sentry's order).
 */

export type StackFrame = {
  function?: string;
  module?: string;
  filename?: string;
  abs_path?: string;
  lineno?: number;
  colno?: number;
  in_app?: boolean;
  pre_context?: string[];
  context_line?: string;
  post_context?: string[];
};

export type ExceptionValue = {
  type?: string;
  value?: string;
  module?: string;
  stacktrace?: { frames: StackFrame[] };
  mechanism?: { type?: string; handled?: boolean; synthetic?: boolean };
};

/** The runtimes whose native stack strings are understood. */
export const STACK_PLATFORMS = ["javascript", "python", "java", "go", "ruby", "php", "dotnet"] as const;
export type StackPlatform = (typeof STACK_PLATFORMS)[number];

/** A native stack string, parsed: the exception chain in Sentry's order. */
export type ParsedStack = { platform: StackPlatform; exceptions: ExceptionValue[] };

/**
 * Bounds on the work done for one event. A stack string is read only in
 * its first (or, for Python, whose newest frames come last, its last)
 * MAX_STACK_CHARS characters; a longer line is not a frame.
 */
export const STACK_LIMITS = {
  maxStackChars: 64 * 1024,
  maxLineChars: 2048,
  maxFramesPerException: 200,
  maxExceptions: 10,
  maxValueChars: 1000,
} as const;
