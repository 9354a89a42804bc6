import type { ExceptionValue, StackFrame } from "@/lib/grouping/frames";
import { chain, exception, frame, isCutLine, joinLines, lineNumber } from "@/lib/grouping/stack/common";

/**
 * PHP's uncaught-exception output and `Throwable::__toString()`:
 *   PHP Fatal error:  Uncaught InvalidArgumentException: Price must be positive in /var/www/src/Cart.php:42
 *   Stack trace:
 *   #0 /var/www/src/Cart.php(17): App\Cart->setPrice(-5)
 *   #1 /var/www/public/index.php(9): App\Cart->add(Array)
 *   #2 {main}
 *     thrown in /var/www/src/Cart.php on line 42
 * Line `#N` says where the function of line N+1 called the one it names, so
 * the frames are shifted as Sentry's PHP SDK does: the header's position
 * is the newest frame, in the function `#0` names. A previous exception is
 * printed first and the one it caused after `Next`.
 */

const TRACE_LINE = /^#(\d+) (?:(.+?)\((\d+)\)|\[internal function\]|(\{main\}))(?:: (.+))?$/;
// The message may hold " in ": the position is after the last one.
const HEADER = /^([A-Za-z_\\][\w\\]*)(?:: ([\s\S]*))? in (\S[^\n]*?):(\d+)$/;

export function isPhpFrameLine(trimmed: string): boolean {
  return trimmed.charCodeAt(0) === 0x23 && TRACE_LINE.test(trimmed);
}

type TraceLine = { path?: string; line?: number; call?: string };
type Block = { header: string[]; trace: TraceLine[]; inTrace: boolean };

export function parsePhpStack(lines: string[]): ExceptionValue[] {
  const blocks: Block[] = [{ header: [], trace: [], inTrace: false }];
  let current = blocks[0]!;
  for (const line of lines) {
    const trimmed = line.trim();
    if (trimmed === "") continue;
    if (trimmed.startsWith("Next ")) {
      current = { header: [trimmed.slice(5)], trace: [], inTrace: false };
      blocks.push(current);
      continue;
    }
    if (trimmed === "Stack trace:") {
      current.inTrace = true;
      continue;
    }
    const match = isCutLine(line) ? null : TRACE_LINE.exec(trimmed);
    if (match !== null) {
      current.inTrace = true;
      if (match[4] !== undefined) current.trace.push({ call: "{main}" });
      else current.trace.push({ path: match[2], line: lineNumber(match[3] ?? ""), call: match[5] });
      continue;
    }
    if (trimmed.startsWith("thrown in ")) continue;
    if (!current.inTrace) current.header.push(line);
  }
  const exceptions = blocks.map((b) => {
    const { type, value, path, line } = parseHeader(b.header);
    // Newest first: the throw site in the function #0 called, then #i's position in the function #(i+1) called.
    const frames: StackFrame[] = [];
    const calls = b.trace.map((t) => t.call);
    if (path !== undefined) frames.push(phpFrame(path, line, calls[0]));
    for (let i = 0; i < b.trace.length; i++) {
      const t = b.trace[i]!;
      if (t.path === undefined && t.call === "{main}") continue;
      frames.push(phpFrame(t.path, t.line, calls[i + 1]));
    }
    return exception(type, value, frames, true);
  });
  return chain(exceptions, false);
}

function phpFrame(path: string | undefined, line: number | undefined, call: string | undefined): StackFrame {
  let module: string | undefined;
  let fn = call === undefined || call === "{main}" ? undefined : call;
  if (fn !== undefined) {
    // `App\Cart->setPrice(-5)`, `App\Cart::create()`, `{closure}(Object(App\Order))`.
    const open = fn.indexOf("(");
    if (open > 0) fn = fn.slice(0, open);
    const arrow = fn.lastIndexOf("->");
    const colons = fn.lastIndexOf("::");
    const split = Math.max(arrow, colons);
    if (split > 0) {
      module = fn.slice(0, split);
      fn = fn.slice(split + 2);
    }
  }
  return frame("php", { module, function: fn, path, line });
}

function parseHeader(header: string[]): { type?: string; value?: string; path?: string; line?: number } {
  let text = joinLines(header).trim();
  // `PHP Fatal error:  Uncaught Exception: ...`
  const uncaught = text.indexOf("Uncaught ");
  if (uncaught >= 0 && uncaught < 40) text = text.slice(uncaught + 9);
  const match = HEADER.exec(text);
  if (match !== null) {
    return { type: match[1]!.replace(/^\\/, ""), value: match[2] || undefined, path: match[3], line: lineNumber(match[4]!) };
  }
  return { value: text || undefined };
}
