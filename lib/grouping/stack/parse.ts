import { STACK_LIMITS, type ExceptionValue, type ParsedStack, type StackPlatform } from "@/lib/grouping/frames";
import { hasFrames, isCutLine, stackLines } from "@/lib/grouping/stack/common";
import { isDotnetFrameLine, parseDotnetStack } from "@/lib/grouping/stack/dotnet";
import { isGoLocationLine, isGoroutineLine, parseGoStack } from "@/lib/grouping/stack/go";
import { isJavaFrameLine, parseJavaStack } from "@/lib/grouping/stack/java";
import { isGeckoFrameLine, isV8FrameLine, parseJavaScriptStack } from "@/lib/grouping/stack/javascript";
import { isPhpFrameLine, parsePhpStack } from "@/lib/grouping/stack/php";
import { isPythonFrameLine, parsePythonTraceback } from "@/lib/grouping/stack/python";
import { isRubyFrameLine, parseRubyBacktrace } from "@/lib/grouping/stack/ruby";

const PARSERS: Record<StackPlatform, (lines: string[]) => ExceptionValue[]> = {
  javascript: parseJavaScriptStack,
  python: parsePythonTraceback,
  java: parseJavaStack,
  go: parseGoStack,
  ruby: parseRubyBacktrace,
  php: parsePhpStack,
  dotnet: parseDotnetStack,
};

/**
 * A native stack string (an Error's `stack`, a Python traceback, a Java,
 * Go, Ruby, PHP or .NET trace) as Sentry-shaped exceptions, innermost cause
 * first, frames oldest call first; null when the text holds no frame in a
 * format it knows. Never throws; the work is bounded by STACK_LIMITS
 * whatever the text's length.
 */
export function parseStack(text: string): ParsedStack | null {
  if (typeof text !== "string" || text.length === 0) return null;
  const lines = stackLines(text);
  const platform = detectPlatform(lines);
  if (platform === undefined) return null;
  // Python prints the newest frames and the exception last.
  const read = platform === "python" && text.length > STACK_LIMITS.maxStackChars ? stackLines(text, true) : lines;
  const exceptions = PARSERS[platform](read);
  return hasFrames(exceptions) ? { platform, exceptions } : null;
}

/** The format of the first line that reads as a frame. */
export function detectPlatform(lines: string[]): StackPlatform | undefined {
  for (const line of lines) {
    if (isCutLine(line)) continue;
    const trimmed = line.trim();
    if (trimmed.length < 4) continue;
    switch (trimmed.charCodeAt(0)) {
      case 0x61: // a
        if (trimmed.startsWith("at ")) {
          if (isJavaFrameLine(trimmed)) return "java";
          if (isV8FrameLine(trimmed)) return "javascript";
          if (isDotnetFrameLine(trimmed)) return "dotnet";
        }
        break;
      case 0x46: // F
        if (isPythonFrameLine(trimmed)) return "python";
        break;
      case 0x23: // #
        if (isPhpFrameLine(trimmed)) return "php";
        break;
      case 0x67: // g
        if (isGoroutineLine(trimmed)) return "go";
        break;
    }
    if (isGoLocationLine(line)) return "go";
    if (isRubyFrameLine(trimmed)) return "ruby";
    if (isGeckoFrameLine(trimmed)) return "javascript";
  }
  return undefined;
}
