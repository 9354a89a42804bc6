import type { ExceptionValue, StackFrame } from "@/lib/grouping/frames";
import { chain, exception, frame, isCutLine, joinLines, lineNumber } from "@/lib/grouping/stack/common";

/**
 * .NET's `Exception.ToString()`, newest call first:
 *   System.InvalidOperationException: Order failed
 *    ---> System.FormatException: Bad price
 *      at Shop.Price.Parse(String text) in /src/Shop/Price.cs:line 12
 *      --- End of inner exception stack trace ---
 *      at Shop.Orders.Create() in /src/Shop/Orders.cs:line 30
 * The headers come first, outermost to innermost; the frames of the
 * innermost exception come first, each `End of inner exception` marker
 * starting those of the next one out.
 */

const HEADER = /^([A-Za-z_][\w`+.]*)(?::(?: ([\s\S]*))?)?$/;
const LOCATION = /^(.+):line (\d+)$/;

/** `at N.C.M(args)` and `at N.C.M(args) in path:line 12`; never Java's `(File.java:12)`. */
export function isDotnetFrameLine(trimmed: string): boolean {
  if (!trimmed.startsWith("at ")) return false;
  const inAt = trimmed.lastIndexOf(" in ");
  const call = inAt > 0 && LOCATION.test(trimmed.slice(inAt + 4)) ? trimmed.slice(3, inAt) : trimmed.slice(3);
  const open = call.indexOf("(");
  return open > 0 && call.endsWith(")") && call.charCodeAt(open - 1) !== 0x20;
}

export function parseDotnetStack(lines: string[]): ExceptionValue[] {
  const header: string[] = [];
  const blocks: StackFrame[][] = [[]];
  for (const line of lines) {
    const trimmed = line.trim();
    if (trimmed === "") continue;
    if (trimmed.startsWith("at ") && !isCutLine(line) && isDotnetFrameLine(trimmed)) {
      blocks[blocks.length - 1]!.push(parseFrame(trimmed));
      continue;
    }
    if (trimmed.startsWith("--- End of inner exception stack trace")) {
      blocks.push([]);
      continue;
    }
    // "--- End of stack trace from previous location ---" (but " ---> Inner: ..." is a header line).
    if (trimmed.startsWith("--- ")) continue;
    if (blocks.length === 1 && blocks[0]!.length === 0) header.push(line);
  }
  // Outermost first, as printed; `Unhandled exception. ` before it when the runtime printed it.
  const text = joinLines(header).replace(/^Unhandled exception\.\s*/, "");
  const parts = text.split(/\s*---> /);
  const headers = parts.map(parseHeader).reverse(); // innermost first
  const count = Math.max(headers.length, blocks.length);
  const exceptions: ExceptionValue[] = [];
  for (let i = 0; i < count; i++) {
    const h = headers[i] ?? {};
    exceptions.push(exception(h.type, h.value, blocks[i] ?? [], true));
  }
  return chain(exceptions, false);
}

function parseFrame(trimmed: string): StackFrame {
  let call = trimmed.slice(3);
  let path: string | undefined;
  let line: number | undefined;
  const inAt = call.lastIndexOf(" in ");
  if (inAt > 0) {
    const location = LOCATION.exec(call.slice(inAt + 4));
    if (location !== null) {
      path = location[1];
      line = lineNumber(location[2]!);
      call = call.slice(0, inAt);
    }
  }
  const qualified = call.slice(0, call.indexOf("("));
  // `Shop.Order..ctor`: the constructor's name starts with a dot.
  const ctor = qualified.endsWith("..ctor") ? 6 : qualified.endsWith("..cctor") ? 7 : 0;
  const dot = ctor > 0 ? qualified.length - ctor : qualified.lastIndexOf(".");
  const module = dot > 0 ? qualified.slice(0, dot) : undefined;
  const fn = dot > 0 ? qualified.slice(dot + 1) : qualified;
  return frame("dotnet", { module, function: fn, path, line });
}

function parseHeader(part: string): { type?: string; value?: string } {
  const trimmed = part.trim();
  const newline = trimmed.indexOf("\n");
  const first = newline < 0 ? trimmed : trimmed.slice(0, newline);
  const match = HEADER.exec(first);
  if (match === null || (!match[1]!.includes(".") && !/(?:Exception|Error)$/.test(match[1]!))) return { value: trimmed || undefined };
  const value = ((match[2] ?? "") + (newline < 0 ? "" : trimmed.slice(newline))).trim();
  return { type: match[1], value: value || undefined };
}
