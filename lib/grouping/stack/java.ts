import type { ExceptionValue, StackFrame } from "@/lib/grouping/frames";
import { chain, errorHeader, exception, frame, indentOf, isCutLine, splitLocation } from "@/lib/grouping/stack/common";

/**
 * Java, Kotlin and Scala stack traces, newest call first:
 *   java.lang.IllegalStateException: Cart is empty
 *       at com.acme.shop.Cart.checkout(Cart.java:42)
 *       at java.base/java.lang.Thread.run(Thread.java:833)
 *   Caused by: java.lang.NullPointerException
 *       at com.acme.shop.Price.of(Price.java:12)
 *       ... 5 more
 * `... N more` stands for the enclosing trace's last N frames, which are
 * copied in; `Suppressed:` blocks are left out (they are other failures).
 */

// What is between the parentheses of a Java frame (never a .NET argument list).
const JAVA_FRAME_LOCATION =
  /^(?:[\w$.-]+\.(?:java|kt|kts|scala|groovy|clj|cljc|aj)(?::\d+)?|Native Method|Unknown Source(?::\d+)?|Unknown)$/;
const HEADER = /^(?:Exception in thread "[^"]*" )?([A-Za-z_$][\w$]*(?:\.[A-Za-z_$][\w$]*)*)(?:(:)(?: ([\s\S]*))?)?$/;
const PACKAGING = /\s+~?\[[^\]\s]*\]$/;
const MORE = /^\.\.\. (\d+) (?:more|common frames omitted)$/;

/** `at com.x.Y.m(Y.java:12)`, with logback's `~[app.jar:1.0]` after it. */
export function isJavaFrameLine(trimmed: string): boolean {
  if (!trimmed.startsWith("at ")) return false;
  const call = javaCall(trimmed);
  return call !== undefined && JAVA_FRAME_LOCATION.test(call.location);
}

function javaCall(trimmed: string): { name: string; location: string } | undefined {
  let rest = trimmed.slice(3);
  // Logback's packaging data: ` ~[spring-web-6.1.2.jar:6.1.2]` or ` [app.jar:?]`.
  if (rest.endsWith("]")) rest = rest.replace(PACKAGING, "");
  if (!rest.endsWith(")")) return undefined;
  const open = rest.indexOf("(");
  if (open <= 0 || rest.charCodeAt(open - 1) === 0x20) return undefined;
  return { name: rest.slice(0, open), location: rest.slice(open + 1, -1) };
}

type Block = { header: string[]; frames: StackFrame[] };

export function parseJavaStack(lines: string[]): ExceptionValue[] {
  const blocks: Block[] = [{ header: [], frames: [] }];
  let current = blocks[0]!;
  let suppressedIndent = -1;
  for (const line of lines) {
    const indent = indentOf(line);
    const trimmed = line.trim();
    if (suppressedIndent >= 0) {
      if (indent > suppressedIndent || trimmed === "") continue;
      suppressedIndent = -1;
    }
    if (trimmed === "") continue;
    if (trimmed.startsWith("at ") && !isCutLine(line)) {
      const parsed = parseFrame(trimmed);
      if (parsed) current.frames.push(parsed);
      continue;
    }
    const more = MORE.exec(trimmed);
    if (more !== null) {
      // The last N frames are the enclosing exception's last N.
      const enclosing = blocks[blocks.length - 2];
      const n = Number(more[1]);
      if (enclosing !== undefined && n > 0 && n <= enclosing.frames.length) current.frames.push(...enclosing.frames.slice(-n));
      continue;
    }
    if (trimmed.startsWith("Caused by: ")) {
      current = { header: [trimmed.slice(11)], frames: [] };
      blocks.push(current);
      continue;
    }
    if (trimmed.startsWith("Suppressed: ")) {
      suppressedIndent = indent;
      continue;
    }
    if (current.frames.length === 0) current.header.push(line);
  }
  const exceptions = blocks.map((b) => {
    const { type, value } = parseHeader(b.header);
    return exception(type, value, b.frames, true);
  });
  return chain(exceptions, true);
}

function parseFrame(trimmed: string): StackFrame | undefined {
  const call = javaCall(trimmed);
  if (call === undefined) return undefined;
  // `java.base/java.lang.Thread.run`, `app//com.acme.Main.main`: the module or class loader goes.
  const qualified = call.name.slice(call.name.lastIndexOf("/") + 1);
  const dot = qualified.lastIndexOf(".");
  const module = dot > 0 ? qualified.slice(0, dot) : undefined;
  const fn = dot > 0 ? qualified.slice(dot + 1) : qualified;
  const native = call.location === "Native Method" || call.location.startsWith("Unknown");
  const { path, line } = native ? { path: undefined, line: undefined } : splitLocation(call.location);
  return frame("java", { module, function: fn, path, line });
}

function parseHeader(header: string[]): { type?: string; value?: string } {
  // A dotted class name, or a simple one that reads as an exception's; a
  // bare one only as the last line (a log line may precede the exception).
  return errorHeader(
    header,
    HEADER,
    (type, hasColon, after) =>
      (type.includes(".") || /(?:Exception|Error|Throwable)$/.test(type)) && (hasColon || after.every((l) => l.trim() === "")),
  );
}
