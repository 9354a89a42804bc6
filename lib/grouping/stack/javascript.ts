import type { ExceptionValue, StackFrame } from "@/lib/grouping/frames";
import { chain, errorHeader, exception, frame, isCutLine, splitLocation } from "@/lib/grouping/stack/common";

/**
 * JavaScript stacks: V8's (Node.js, Chrome, Edge, Deno, Bun)
 *   TypeError: Cannot read properties of undefined (reading 'price')
 *       at price (/app/cart.js:1:44)
 *       at async checkout (file:///app/cart.mjs:3:61)
 *       at /app/cart.js:4:57
 * and Firefox's and Safari's, one `function@url:line:column` a line.
 * Node's printout of an error with a cause (`[cause]: Error: ...`) gives the chain.
 */

// `Name: message`, `Name [CODE]: message`, or a bare `Name` that reads as an error's.
// `node:fs:573` (the source position Node prints over a crash) is no header: a colon must end the name's word.
const HEADER = /^(?:Uncaught )?([A-Za-z_$][\w$.]*)(?: \[[\w.-]+\])?(?:(:)(?: ([\s\S]*))?)?$/;

export function isV8FrameLine(trimmed: string): boolean {
  if (!trimmed.startsWith("at ")) return false;
  const rest = trimmed.startsWith("at async ") ? trimmed.slice(9) : trimmed.slice(3);
  if (rest.endsWith(")")) {
    const open = rest.indexOf(" (");
    if (open > 0) return true;
  }
  return /:\d+(?::\d+)?$/.test(rest) || rest === "<anonymous>" || rest === "native";
}

const GECKO_FUNCTION = /^(?:[\w ]*\*)?[^\s@]*$|^(?:global|module|eval) code$/;

/** `fn@url:line:col`, `@url:line:col`, or Safari's bare `url:line:col` and `[native code]` lines. */
export function isGeckoFrameLine(trimmed: string): boolean {
  const at = trimmed.indexOf("@");
  if (at >= 0) {
    if (!GECKO_FUNCTION.test(trimmed.slice(0, at))) return false;
    const location = trimmed.slice(at + 1);
    return location === "[native code]" || (/:\d+$/.test(location) && /[/\\]|^\[?\w+\]?:\d/.test(location));
  }
  return /^[a-z][\w+.-]*:\/\/\S+:\d+:\d+$/.test(trimmed);
}

type Block = { header: string[]; frames: StackFrame[] };

export function parseJavaScriptStack(lines: string[]): ExceptionValue[] {
  const blocks: Block[] = [{ header: [], frames: [] }];
  let current = blocks[0]!;
  for (const line of lines) {
    let trimmed = line.trim();
    if (trimmed === "") {
      if (current.frames.length === 0) current.header.push("");
      continue;
    }
    // Node prints an error's own properties after its last frame: `at f (x.js:1:2) {`.
    if (trimmed.endsWith(" {")) trimmed = trimmed.slice(0, -2);
    const parsed = isCutLine(line) ? undefined : parseFrameLine(trimmed);
    if (parsed) {
      current.frames.push(parsed);
      continue;
    }
    if (trimmed.startsWith("[cause]: ")) {
      current = { header: [trimmed.slice(9)], frames: [] };
      blocks.push(current);
      continue;
    }
    // Lines after the frames (`{`, `code: 'ENOENT'`, `}`) are the error's
    // printed properties, not part of its message.
    if (current.frames.length === 0) current.header.push(line);
  }
  const exceptions = blocks.map((b) => {
    const { type, value } = parseHeader(b.header);
    return exception(type, value, b.frames, true);
  });
  // Text order is the outermost error first, then its causes.
  return chain(exceptions, true);
}

function parseFrameLine(trimmed: string): StackFrame | undefined {
  if (isV8FrameLine(trimmed)) return parseV8Frame(trimmed);
  if (isGeckoFrameLine(trimmed)) return parseGeckoFrame(trimmed);
  return undefined;
}

function parseV8Frame(trimmed: string): StackFrame {
  let rest = trimmed.slice(3);
  if (rest.startsWith("async ")) rest = rest.slice(6);
  let fn = "";
  let location = rest;
  const open = rest.indexOf(" (");
  if (open > 0 && rest.endsWith(")")) {
    fn = rest.slice(0, open);
    location = rest.slice(open + 2, -1);
  }
  if (fn.startsWith("new ")) fn = fn.slice(4);
  // `eval at render (/app/x.js:5:10), <anonymous>:1:16`: where the eval was called.
  if (location.startsWith("eval at ")) {
    const inner = location.lastIndexOf("(");
    const close = location.indexOf(")", inner);
    location = inner >= 0 && close > inner ? location.slice(inner + 1, close) : "<anonymous>";
  }
  if (location === "native" || location === "<anonymous>" || location.startsWith("index ")) {
    return frame("javascript", { function: fn, path: "<anonymous>" });
  }
  const { path, line, column } = splitLocation(location);
  return frame("javascript", { function: fn, path, line, column });
}

function parseGeckoFrame(trimmed: string): StackFrame {
  const at = trimmed.indexOf("@");
  let fn = at >= 0 ? trimmed.slice(0, at) : "";
  let location = at >= 0 ? trimmed.slice(at + 1) : trimmed;
  // Firefox's async markers (`promise callback*main`) and nested names (`render/<`).
  const star = fn.lastIndexOf("*");
  if (star >= 0) fn = fn.slice(star + 1);
  if (fn === "global code" || fn === "module code" || fn === "eval code") fn = "";
  // Firefox's eval: `https://x/app.js line 2 > eval:1:5`.
  const evalAt = location.indexOf(" line ");
  if (evalAt > 0) location = location.slice(0, evalAt);
  if (location === "[native code]") return frame("javascript", { function: fn, path: "[native code]" });
  const { path, line, column } = splitLocation(location);
  return frame("javascript", { function: fn, path, line, column });
}

function parseHeader(header: string[]): { type?: string; value?: string } {
  // A bare name only when it reads as an error's.
  return errorHeader(header, HEADER, (type, hasColon) => hasColon || /(?:Error|Exception)$/.test(type));
}
