/**
 * Stack traces in event context, split into lines a reader can scan: the
 * first line (the error) emphasised, the application's frames in full colour,
 * library and runtime frames dimmed. Covers what services usually send:
 * JavaScript (V8, Firefox), Python, Java, Ruby, Go and PHP traces.
 */

export type StackLineKind = "head" | "app" | "library" | "other";
export type StackLine = { text: string; kind: StackLineKind };

/** Context keys whose string (or array of strings) value is a stack trace. */
const STACK_KEYS = /^(?:stack|stacktrace|stack_trace|stackTrace|backtrace|traceback|exception\.stacktrace)$/i;

export function isStackKey(key: string): boolean {
  return STACK_KEYS.test(key);
}

// A frame: "at ...", "File ...", "fn@file:1:2", "from file:1" (Ruby), "#0 ..." (PHP), Go's "\tfile.go:12".
const FRAME = /^\s*(?:at\s|File\s"|from\s|#\d+\s|\S*@\S+:\d+|\S+\.(?:go|rb|php|py|js|ts|mjs|cjs|tsx|jsx|java|kt|scala|cs):\d+)/;
// Code that is not the application's: dependencies and the runtime itself.
const LIBRARY =
  /node_modules|node:internal|\(node:|\bnode:[a-z_]+|internal\/|<anonymous>|site-packages|dist-packages|\/usr\/lib\/|\/gems\/|\/vendor\/|\bjava\.(?:base|lang|util)|\bsun\.reflect|\bjdk\.internal|\/go\/pkg\/mod\/|\/usr\/local\/go\/src\/|webpack-internal:\/\/\/\(?(?:app-pages-browser\)\/)?\.\/node_modules/;

/** A trace as lines, classified. Empty lines are dropped; tabs become two spaces. */
export function stackLines(trace: string | string[]): StackLine[] {
  const raw = (Array.isArray(trace) ? trace.join("\n") : trace).replace(/\r\n?/g, "\n").split("\n");
  const lines = raw.map((line) => line.replace(/\t/g, "  ").trimEnd()).filter((line) => line.trim() !== "");
  // Python prints the error last, under "Traceback (most recent call last):".
  const pythonStyle = lines[0]?.startsWith("Traceback");
  return lines.map((text, i): StackLine => {
    if (i === 0 || (pythonStyle && i === lines.length - 1 && !FRAME.test(text))) return { text, kind: "head" };
    if (!FRAME.test(text)) return { text, kind: "other" };
    return { text, kind: LIBRARY.test(text) ? "library" : "app" };
  });
}
