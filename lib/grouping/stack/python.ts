import type { ExceptionValue, StackFrame } from "@/lib/grouping/frames";
import { chain, exception, frame, indentOf, isCutLine, lineNumber } from "@/lib/grouping/stack/common";

/**
 * Python tracebacks, oldest call first:
 *   Traceback (most recent call last):
 *     File "/app/orders.py", line 7, in create_order
 *       return OrderService().total(json.loads(payload))
 *   KeyError: 'price'
 * with chained exceptions ("During handling of the above exception, ...",
 * "The above exception was the direct cause of ...") in the order Python
 * prints them, which is Sentry's: the cause first.
 */

const FRAME = /^File "(.*)", line (\d+)(?:, in (.+))?$/;
const EXCEPTION_LINE = /^([A-Za-z_][\w.]*)(?::(?: ([\s\S]*))?)?$/;
const CHAIN_SEPARATORS = [
  "During handling of the above exception, another exception occurred:",
  "The above exception was the direct cause of the following exception:",
];

export function isPythonFrameLine(trimmed: string): boolean {
  return trimmed.startsWith('File "') && FRAME.test(trimmed);
}

type Block = { frames: StackFrame[]; type?: string; value: string[] };

export function parsePythonTraceback(lines: string[]): ExceptionValue[] {
  const blocks: Block[] = [];
  let current: Block | undefined;
  // "frames": reading frames; "message": after the exception line; "between": after a chain separator.
  let state: "frames" | "message" | "between" = "between";
  let sourceFor: StackFrame | undefined;
  for (const line of lines) {
    const trimmed = line.trim();
    if (trimmed.startsWith("Traceback (most recent call last)")) {
      current = { frames: [], value: [] };
      blocks.push(current);
      state = "frames";
      sourceFor = undefined;
      continue;
    }
    if (CHAIN_SEPARATORS.includes(trimmed)) {
      state = "between";
      continue;
    }
    const frameMatch = trimmed.startsWith('File "') && !isCutLine(line) ? FRAME.exec(trimmed) : null;
    if (frameMatch !== null && (state !== "message" || indentOf(line) > 0)) {
      // A window cut from a long traceback may start among the frames.
      if (current === undefined || state !== "frames") {
        current = { frames: [], value: [] };
        blocks.push(current);
        state = "frames";
      }
      const f = frame("python", { path: frameMatch[1], line: lineNumber(frameMatch[2]!), function: frameMatch[3] });
      current.frames.push(f);
      sourceFor = f;
      continue;
    }
    if (current === undefined) continue;
    if (state === "frames") {
      if (trimmed === "") continue;
      if (indentOf(line) > 0) {
        // The source line under a frame, then its ^^^ and ~~~ markers.
        if (sourceFor !== undefined && sourceFor.context_line === undefined && !/^[\^~\s]+$/.test(trimmed) && !trimmed.startsWith("[Previous line repeated")) {
          sourceFor.context_line = trimmed;
        }
        continue;
      }
      const match = EXCEPTION_LINE.exec(trimmed);
      if (match !== null) {
        current.type = match[1];
        if (match[2]) current.value.push(match[2]);
      } else {
        current.value.push(trimmed);
      }
      state = "message";
      continue;
    }
    if (state === "message" && current.value.length < 20) current.value.push(line);
  }
  const exceptions = blocks
    .filter((b) => b.frames.length > 0 || b.type !== undefined)
    .map((b) => exception(b.type, b.value.join("\n").trim(), b.frames, false));
  return chain(exceptions, false);
}
