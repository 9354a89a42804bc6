import type { ExceptionValue, StackFrame } from "@/lib/grouping/frames";
import { chain, exception, frame, isCutLine, splitLocation } from "@/lib/grouping/stack/common";

/**
 * Go panics and `debug.Stack()`, newest call first, a function line then
 * its tab-indented location:
 *   panic: runtime error: index out of range [5] with length 3
 *
 *   goroutine 1 [running]:
 *   main.(*Cart).Total(...)
 *   	/app/cart.go:12 +0x1d
 *   created by net/http.(*Server).Serve in goroutine 1
 *   	/usr/local/go/src/net/http/server.go:3285 +0x4b4
 * Only the first goroutine is read: with GOTRACEBACK=all the others are
 * bystanders. A trace without its goroutine line is read as well.
 */

const GOROUTINE = /^goroutine \d+ \[[^\]]*\]:$/;
const GO_LOCATION = /^\s+\S.*\.(?:go|s):\d+(?: \+0x[0-9a-f]+)?$/;
const PANIC = /^(panic|fatal error): ([\s\S]*?)(?: \[recovered\])?$/;

export function isGoroutineLine(trimmed: string): boolean {
  return GOROUTINE.test(trimmed);
}

/** A location line: `\t/app/cart.go:12 +0x1d`. */
export function isGoLocationLine(line: string): boolean {
  return line.charCodeAt(0) === 0x09 && GO_LOCATION.test(line);
}

export function parseGoStack(lines: string[]): ExceptionValue[] {
  let type: string | undefined;
  let value: string | undefined;
  const frames: StackFrame[] = [];
  let seenGoroutine = false;
  let pending: string | undefined; // a function line waiting for its location
  for (const line of lines) {
    if (isCutLine(line)) continue;
    const trimmed = line.trim();
    if (GOROUTINE.test(trimmed)) {
      if (seenGoroutine && frames.length > 0) break;
      seenGoroutine = true;
      pending = undefined;
      continue;
    }
    if (trimmed === "" || trimmed.startsWith("...")) continue; // "...additional frames elided..."
    if (line.charCodeAt(0) === 0x09 || line.startsWith("    ")) {
      if (pending !== undefined && GO_LOCATION.test(line)) frames.push(goFrame(pending, trimmed));
      pending = undefined;
      continue;
    }
    if (type === undefined && frames.length === 0) {
      const panic = PANIC.exec(trimmed);
      if (panic !== null) {
        type = panic[1];
        value = panic[2];
        continue;
      }
    }
    pending = functionOf(trimmed);
  }
  if (frames.length === 0) return [];
  return chain([exception(type, value, frames, true)], false);
}

/** `main.handler(0xc000012345, {0x4b2f60, 0xc000010000})` or `created by net/http.(*Server).Serve in goroutine 1`. */
function functionOf(line: string): string {
  if (line.startsWith("created by ")) {
    const name = line.slice(11);
    const inAt = name.indexOf(" in goroutine ");
    return inAt > 0 ? name.slice(0, inAt) : name;
  }
  // The arguments are the last parenthesised part; a receiver's parentheses come before it.
  if (line.endsWith(")")) {
    const open = line.lastIndexOf("(");
    if (open > 0) return line.slice(0, open);
  }
  return line;
}

function goFrame(qualified: string, location: string): StackFrame {
  // `/app/cart.go:12 +0x1d`: the program counter offset goes.
  const space = location.lastIndexOf(" +0x");
  const { path, line } = splitLocation(space > 0 ? location.slice(0, space) : location);
  // `github.com/acme/shop/cart.(*Cart).Total`: the package path is up to the first dot after the last slash.
  const slash = qualified.lastIndexOf("/");
  const dot = qualified.indexOf(".", slash + 1);
  const module = dot > 0 ? qualified.slice(0, dot) : undefined;
  const fn = dot > 0 ? qualified.slice(dot + 1) : qualified;
  return frame("go", { module, function: fn, path, line });
}
