import { STACK_LIMITS, type ExceptionValue, type StackFrame, type StackPlatform } from "@/lib/grouping/frames";
import { isInApp } from "@/lib/grouping/in-app";

const { maxStackChars, maxLineChars, maxValueChars, maxFramesPerException, maxExceptions } = STACK_LIMITS;

/**
 * The lines of a stack string's window: its first (or last) maxStackChars
 * characters, cut at a line end. A line over maxLineChars is cut and then
 * one character longer than the limit, so that parsers can tell it is no
 * frame (isCutLine) while its start still tells a header's exception type.
 */
export function stackLines(text: string, fromEnd = false): string[] {
  let window = text;
  const max = maxStackChars;
  if (text.length > max) {
    if (fromEnd) {
      window = text.slice(text.length - max);
      const newline = window.indexOf("\n");
      if (newline >= 0) window = window.slice(newline + 1);
    } else {
      window = text.slice(0, max);
      const newline = window.lastIndexOf("\n");
      if (newline > 0) window = window.slice(0, newline);
    }
  }
  const lines = window.split("\n");
  for (let i = 0; i < lines.length; i++) {
    let line = lines[i]!;
    if (line.length > maxLineChars) line = `${line.slice(0, maxLineChars)}…`;
    if (line.charCodeAt(line.length - 1) === 0x0d) line = line.slice(0, -1);
    lines[i] = line;
  }
  return lines;
}

export function isCutLine(line: string): boolean {
  return line.length > maxLineChars;
}

/** Leading spaces and tabs. */
export function indentOf(line: string): number {
  let i = 0;
  while (i < line.length && (line.charCodeAt(i) === 0x20 || line.charCodeAt(i) === 0x09)) i++;
  return i;
}

/** A line or column number: digits only, at most 9 of them. */
export function lineNumber(text: string): number | undefined {
  if (text.length === 0 || text.length > 9) return undefined;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x30 || code > 0x39) return undefined;
  }
  return Number(text);
}

/** `path:12:5`, `path:12` or `path`: the trailing numbers taken off from the end. */
export function splitLocation(location: string): { path: string; line?: number; column?: number } {
  const last = trailingNumber(location);
  if (last === undefined) return { path: location };
  const before = location.slice(0, last.start - 1);
  const previous = trailingNumber(before);
  if (previous === undefined) return { path: before, line: last.value };
  return { path: before.slice(0, previous.start - 1), line: previous.value, column: last.value };
}

function trailingNumber(text: string): { value: number; start: number } | undefined {
  let start = text.length;
  while (start > 0 && start > text.length - 10) {
    const code = text.charCodeAt(start - 1);
    if (code < 0x30 || code > 0x39) break;
    start--;
  }
  if (start === text.length || start < 2 || text.charCodeAt(start - 1) !== 0x3a) return undefined;
  const value = lineNumber(text.slice(start));
  return value === undefined ? undefined : { value, start };
}

/** A frame with only the fields that have a value, and its in-app flag. */
export function frame(
  platform: StackPlatform,
  fields: { function?: string; module?: string; path?: string; line?: number; column?: number },
): StackFrame {
  const out: StackFrame = {};
  if (fields.function) out.function = fields.function;
  if (fields.module) out.module = fields.module;
  if (fields.path) {
    out.filename = fields.path;
    out.abs_path = fields.path;
  }
  if (fields.line !== undefined) out.lineno = fields.line;
  if (fields.column !== undefined) out.colno = fields.column;
  out.in_app = isInApp(out, platform);
  return out;
}

/** An exception with only the fields that have a value; frames given newest first are reversed. */
export function exception(
  type: string | undefined,
  value: string | undefined,
  frames: StackFrame[],
  newestFirst: boolean,
): ExceptionValue {
  const out: ExceptionValue = {};
  if (type) out.type = type;
  if (value) out.value = value.length > maxValueChars ? value.slice(0, maxValueChars) : value;
  const max = maxFramesPerException;
  // The newest frames are kept: they say where it failed.
  const kept = newestFirst ? frames.slice(0, max).reverse() : frames.length > max ? frames.slice(-max) : frames;
  if (kept.length > 0) out.stacktrace = { frames: kept };
  return out;
}

/** The exceptions in Sentry's order (innermost cause first), at most maxExceptions (the outermost kept). */
export function chain(exceptions: ExceptionValue[], textOrderIsOutermostFirst: boolean): ExceptionValue[] {
  const ordered = textOrderIsOutermostFirst ? exceptions.reverse() : exceptions;
  return ordered.length > maxExceptions ? ordered.slice(-maxExceptions) : ordered;
}

export function hasFrames(exceptions: ExceptionValue[]): boolean {
  return exceptions.some((e) => (e.stacktrace?.frames.length ?? 0) > 0);
}

/** Header lines joined, blank lines at the ends dropped. */
export function joinLines(lines: string[]): string {
  let start = 0;
  let end = lines.length;
  while (start < end && lines[start]!.trim() === "") start++;
  while (end > start && lines[end - 1]!.trim() === "") end--;
  return lines.slice(start, end).join("\n");
}

/**
 * The exception's type and message from the lines before its frames: the
 * first line that `pattern` (groups: the type, a colon, the message's first
 * line) matches and `accepts`, with the lines after it as the rest of the
 * message. Without such a line, the lines are the message.
 */
export function errorHeader(
  header: string[],
  pattern: RegExp,
  accepts: (type: string, hasColon: boolean, linesAfter: string[]) => boolean,
): { type?: string; value?: string } {
  for (let i = 0; i < header.length; i++) {
    const match = pattern.exec(header[i]!.trim());
    if (match === null) continue;
    const [, type, colon, first] = match;
    const after = header.slice(i + 1);
    if (!accepts(type!, colon !== undefined, after)) continue;
    const value = joinLines([first ?? "", ...after]).trim();
    return { type, value: value || undefined };
  }
  const text = joinLines(header).trim();
  return { value: text || undefined };
}
