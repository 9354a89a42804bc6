import { sha256Hex } from "@/lib/crypto/hash";
import type { EventLevel } from "@/lib/events/schema";
import { frameKeyParts, normalizeFile } from "@/lib/grouping/frame-key";
import { STACK_LIMITS, type ExceptionValue, type StackFrame, type StackPlatform } from "@/lib/grouping/frames";
import { isInApp, platformFromSentry, platformOfFrame } from "@/lib/grouping/in-app";
import { parseStack } from "@/lib/grouping/stack/parse";
import { MAX_TEMPLATE_CHARS, messageTemplate } from "@/lib/grouping/template";

/**
 * The key that puts an event into an issue, and the issue's title.
 *
 * The rules are tried in GROUPING_RULES' order; the first that applies
 * decides. The hashed text starts with the rule's version and kind, so a
 * change of a rule gives new keys rather than colliding with old ones, and
 * no rule's key can hash like another's. Rules that did not change keep
 * version 1: their keys are the ones events got before version 2, so their
 * issues go on as they were. An event keyed by a version 2 rule also gets
 * `fallbackHash`, the key version 1 gave it, so that ingestion can put it
 * into the issue that key already has (an upgrade never splits an issue).
 * Likewise `previousHash`: the key the event got before anonymous in-app
 * functions added their source line, for the issues made before that.
 */

export type GroupingRuleName = "fingerprint" | "fingerprint-variables" | "in-app-frames" | "all-frames" | "message-template";

export type GroupingRule = { name: GroupingRuleName; version: 1 | 2; description: string; example: string };

export const GROUPING_RULES: readonly GroupingRule[] = [
  {
    name: "fingerprint",
    version: 1,
    description: "The event's `fingerprint`, when it holds no `{{ ... }}` variable, is the key: nothing else counts.",
    example: '["payments", "card-declined"]',
  },
  {
    name: "fingerprint-variables",
    version: 2,
    description: "A `fingerprint` with variables: `{{ default }}` stands for the key the rules below would give, and the others for a part of the event.",
    example: '["{{ default }}", "{{ transaction }}"]',
  },
  {
    name: "in-app-frames",
    version: 2,
    description:
      "An exception with a stack: the level, then each exception of the chain's type and its in-app frames (module or file name, and function; for an anonymous function, its source line when the SDK sent it).",
    example: "TypeError at cart.ts price, checkout.ts submit",
  },
  {
    name: "all-frames",
    version: 2,
    description: "The same with every frame, when no frame of the stack is in app.",
    example: "Error at express/router.js handle, node:internal/timers listOnTimeout",
  },
  {
    name: "message-template",
    version: 1,
    description: "The level and the message's template (the message with its variable parts masked).",
    example: "error, User <num> not found",
  },
];

export type GroupingInput = {
  level: EventLevel;
  message: string;
  fingerprint?: string[] | null;
  context?: Record<string, unknown> | null;
};

export type GroupingKey = {
  /** SHA-256 (hex) of the key text. */
  hash: string;
  /** The message's template: the issue's title. */
  title: string;
  /** The version 1 key of the same event when it differs from `hash`, else null. */
  fallbackHash: string | null;
  /** The key before anonymous in-app functions added their source line, when it differs from `hash`, else null. */
  previousHash: string | null;
  /** The rule that decided. */
  rule: GroupingRuleName;
};

export type IssueGroupingInput = Omit<GroupingInput, "context">;

const NUL = "\u0000";

/**
 * Version 1 of the key (level and template, or the fingerprint): what every
 * event got before stacks counted, and still the key of events without a stack.
 */
export function issueGroupingKey(input: IssueGroupingInput): { hash: string; title: string } {
  const title = messageTemplate(input.message);
  return { hash: recentKeyHash(v1KeyText(input.level, title, input.fingerprint)), title };
}

function v1KeyText(level: EventLevel, title: string, fingerprint: string[] | null | undefined): string {
  // Parts are joined with NUL, which no part can contain: event validation
  // refuses U+0000 anywhere in an event, so ["a", "b"] and ["a\0b"] cannot both arrive.
  return fingerprint && fingerprint.length > 0 ? `v1${NUL}fingerprint${NUL}${fingerprint.join(NUL)}` : templateKeyText(level, title);
}

function templateKeyText(level: EventLevel, title: string): string {
  return `v1${NUL}template${NUL}${level}${NUL}${title}`;
}

/** The grouping key of an event, by the first rule of GROUPING_RULES that applies. */
export function groupingKey(input: GroupingInput): GroupingKey {
  const title = messageTemplate(input.message);
  const v1 = v1KeyText(input.level, title, input.fingerprint);
  const fingerprint = input.fingerprint && input.fingerprint.length > 0 ? input.fingerprint : null;
  if (fingerprint !== null && !fingerprint.some(isKnownVariable)) {
    return { hash: recentKeyHash(v1), title, fallbackHash: null, previousHash: null, rule: "fingerprint" };
  }
  const stack = input.context ? eventStack(input.context) : null;
  const byStack = stack === null ? null : stackKeyText(input.level, stack);
  // The key from a stack text (with source lines, or from before they counted).
  const keyText = (stackText: string | undefined): { text: string; rule: GroupingRuleName } => {
    if (fingerprint !== null && !(fingerprint.length === 1 && variableOf(fingerprint[0]!) === "default")) {
      const defaultHash = () => recentKeyHash(stackText ?? templateKeyText(input.level, title));
      return { text: fingerprintKeyText(fingerprint, { defaultHash, level: input.level, title, stack, context: input.context ?? null }), rule: "fingerprint-variables" };
    }
    if (byStack !== null && stackText !== undefined) return { text: stackText, rule: byStack.rule };
    // Also `["{{ default }}"]` alone: the default key itself.
    return { text: fingerprint === null ? v1 : templateKeyText(input.level, title), rule: "message-template" };
  };
  const { text, rule } = keyText(byStack?.text);
  const hash = recentKeyHash(text);
  // Only when a source line went into the key did the event have another key before.
  const previous = byStack?.textBefore != null ? recentKeyHash(keyText(byStack.textBefore).text) : hash;
  // Where the stack decides, the message need not be masked to group, and
  // its values are what tells two such issues apart at a glance ("reading
  // 'price'" and "reading 'map'").
  const shown = rule === "in-app-frames" || rule === "all-frames" ? stackIssueTitle(input.message) : title;
  return { hash, title: shown, fallbackHash: text === v1 ? null : recentKeyHash(v1), previousHash: previous === hash ? null : previous, rule };
}

/** A stack-grouped issue's title: its first event's message, first line, bounded as templates are. */
function stackIssueTitle(message: string): string {
  const line = message.split("\n", 1)[0]!.trim() || message.trim();
  return line.length <= MAX_TEMPLATE_CHARS ? line : `${line.slice(0, MAX_TEMPLATE_CHARS - 1)}…`;
}

type EventStack = { exceptions: ExceptionValue[]; platform: StackPlatform | undefined };

const STACK_KEYS = ["stack", "stacktrace", "traceback"] as const;
const ERROR_KEYS = ["error", "err", "exception"] as const;

/**
 * The event's stack: a Sentry-shaped `context.exception` ({values: [...]}),
 * else a native stack string in `context.stack`, `.stacktrace` or
 * `.traceback`, else the same keys of `context.error`, `.err` or
 * `.exception` (how pino and other loggers serialize an error).
 */
export function eventStack(context: Record<string, unknown>): EventStack | null {
  const sentry = context.exception;
  if (isObject(sentry) && Array.isArray(sentry.values)) {
    const exceptions = sentryExceptions(sentry.values);
    if (exceptions.some((e) => (e.stacktrace?.frames.length ?? 0) > 0)) {
      return { exceptions, platform: platformFromSentry(context.platform) };
    }
  }
  for (const key of STACK_KEYS) {
    const text = context[key];
    if (typeof text === "string") {
      const parsed = parseStack(text);
      if (parsed !== null) return parsed;
    }
  }
  for (const errorKey of ERROR_KEYS) {
    const error = context[errorKey];
    if (!isObject(error)) continue;
    for (const key of STACK_KEYS) {
      const text = error[key];
      if (typeof text === "string") {
        const parsed = parseStack(text);
        if (parsed !== null) return parsed;
      }
    }
  }
  return null;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Only what grouping reads, from untrusted JSON; the outermost exceptions and newest frames kept. */
function sentryExceptions(values: unknown[]): ExceptionValue[] {
  const out: ExceptionValue[] = [];
  for (const value of values.slice(-STACK_LIMITS.maxExceptions)) {
    if (!isObject(value)) continue;
    const e: ExceptionValue = {};
    if (typeof value.type === "string") e.type = value.type;
    if (typeof value.value === "string") e.value = value.value;
    if (isObject(value.mechanism) && value.mechanism.synthetic === true) e.mechanism = { synthetic: true };
    const frames = isObject(value.stacktrace) && Array.isArray(value.stacktrace.frames) ? value.stacktrace.frames : [];
    const kept: StackFrame[] = [];
    for (const f of frames.slice(-STACK_LIMITS.maxFramesPerException)) {
      if (!isObject(f)) continue;
      const frame: StackFrame = {};
      if (typeof f.function === "string") frame.function = f.function;
      if (typeof f.module === "string") frame.module = f.module;
      if (typeof f.filename === "string") frame.filename = f.filename;
      if (typeof f.abs_path === "string") frame.abs_path = f.abs_path;
      if (typeof f.in_app === "boolean") frame.in_app = f.in_app;
      if (typeof f.context_line === "string") frame.context_line = f.context_line;
      // Not part of any key (never line numbers): kept for where an alert points.
      if (typeof f.lineno === "number" && Number.isSafeInteger(f.lineno)) frame.lineno = f.lineno;
      kept.push(frame);
    }
    if (kept.length > 0) e.stacktrace = { frames: kept };
    out.push(e);
  }
  return out;
}

/**
 * `v2, stack, app|all, level`, then for each exception of the chain `E,
 * type` and for each of its frames `F, where, function`, followed for a
 * nameless in-app function by `L<source line>` when the SDK sent one: a
 * marker before each part list keeps the text unambiguous. Consecutive
 * identical frames (recursion) count once. `textBefore` is the text without
 * source lines, when one was used: the key such events had before.
 */
function stackKeyText(level: EventLevel, stack: EventStack): { text: string; textBefore: string | null; rule: GroupingRuleName } | null {
  let usedLines = false;
  const exceptionParts = stack.exceptions.map((e) => {
    const frames = e.stacktrace?.frames ?? [];
    const all: string[] = [];
    const app: string[] = [];
    const appBefore: string[] = [];
    let lastAll = "";
    let lastApp = "";
    let lastAppBefore = "";
    for (const f of frames) {
      const platform = stack.platform ?? platformOfFrame(f);
      const [where, fn] = frameKeyParts(f, platform);
      if (where === "" && fn === "") continue;
      const part = `F${NUL}${clean(where)}${NUL}${clean(fn)}`;
      if (part !== lastAll) all.push(part);
      lastAll = part;
      if (isInApp(f, platform)) {
        const line = NAMELESS_FUNCTIONS.has(fn) ? sourceLineKey(f.context_line) : "";
        const appPart = line === "" ? part : `${part}${NUL}L${clean(line)}`;
        usedLines ||= line !== "";
        if (appPart !== lastApp) app.push(appPart);
        lastApp = appPart;
        if (part !== lastAppBefore) appBefore.push(part);
        lastAppBefore = part;
      }
    }
    const type = e.mechanism?.synthetic ? "" : clean((e.type ?? "").replace(/^\\/, ""));
    return { head: `E${NUL}${type}`, all, app, appBefore };
  });
  const appFrames = exceptionParts.reduce((n, e) => n + e.app.length, 0);
  const allFrames = exceptionParts.reduce((n, e) => n + e.all.length, 0);
  if (allFrames === 0) return null;
  const useApp = appFrames > 0;
  const textOf = (parts: (e: (typeof exceptionParts)[number]) => string[]) => {
    let text = `v2${NUL}stack${NUL}${useApp ? "app" : "all"}${NUL}${level}`;
    for (const e of exceptionParts) {
      text += NUL + e.head;
      for (const part of parts(e)) text += NUL + part;
    }
    return text;
  };
  const text = textOf((e) => (useApp ? e.app : e.all));
  return { text, textBefore: useApp && usedLines ? textOf((e) => e.appBefore) : null, rule: useApp ? "in-app-frames" : "all-frames" };
}

/**
 * Normalized function names that say nothing about which code it is: an
 * anonymous JavaScript function (a route handler, a callback, a module's
 * body), a PHP closure, a Python lambda or module body, Ruby's top level.
 * Two such frames of one file are told apart by their source line, as
 * Sentry does, so that two bugs in two anonymous handlers of one file are
 * two issues.
 */
const NAMELESS_FUNCTIONS = new Set(["", "{closure}", "<lambda>", "<module>", "<main>", "<top (required)>"]);
/** Source lines longer than this (minified code) are not read: they change with each build. */
const MAX_KEY_LINE_CHARS = 120;

/** A frame's `context_line` with its spacing collapsed (indentation changes nothing), or "" when it has none usable. */
function sourceLineKey(line: string | undefined): string {
  if (line === undefined || line.length > 4 * MAX_KEY_LINE_CHARS) return "";
  const collapsed = line.replace(/\s+/g, " ").trim();
  return collapsed.length <= MAX_KEY_LINE_CHARS ? collapsed : "";
}

function clean(part: string): string {
  return part.includes(NUL) ? part.replaceAll(NUL, "") : part;
}

/** Fingerprint variables: a whole part `{{ name }}`, spaces and case free. */
const VARIABLE = /^\{\{\s*([\w.]+)\s*\}\}$/;
const VARIABLES = new Set(["default", "level", "message", "type", "value", "function", "module", "transaction"]);

function variableOf(part: string): string | undefined {
  if (!part.startsWith("{{")) return undefined;
  const match = VARIABLE.exec(part);
  if (match === null) return undefined;
  const name = match[1]!.toLowerCase();
  // Sentry's `error.type` and `error.value` are `type` and `value`.
  return name.startsWith("error.") ? name.slice(6) : name;
}

function isKnownVariable(part: string): boolean {
  const name = variableOf(part);
  return name !== undefined && VARIABLES.has(name);
}

type FingerprintScope = {
  defaultHash: () => string;
  level: EventLevel;
  title: string;
  stack: EventStack | null;
  context: Record<string, unknown> | null;
};

/** `v2, fingerprint`, then each part as `L<text>` (literal) or `V<name>=<value>` (variable). */
function fingerprintKeyText(fingerprint: string[], scope: FingerprintScope): string {
  let text = `v2${NUL}fingerprint`;
  for (const part of fingerprint) {
    const name = variableOf(part);
    const value = name !== undefined && VARIABLES.has(name) ? variableValue(name, scope) : undefined;
    text += NUL + (value === undefined ? `L${part}` : `V${name}=${clean(value)}`);
  }
  return text;
}

function variableValue(name: string, scope: FingerprintScope): string {
  const outermost = scope.stack?.exceptions[scope.stack.exceptions.length - 1];
  switch (name) {
    case "default":
      return scope.defaultHash();
    case "level":
      return scope.level;
    case "message":
      return scope.title;
    case "type":
      return outermost?.type ?? "<no-type>";
    case "value":
      return outermost?.value !== undefined ? messageTemplate(outermost.value) : "<no-value>";
    case "function":
    case "module": {
      const frame = newestInAppFrame(scope.stack);
      if (frame === undefined) return `<no-${name}>`;
      const platform = scope.stack!.platform ?? platformOfFrame(frame);
      const [where, fn] = frameKeyParts(frame, platform);
      return name === "function" ? fn || "<no-function>" : where || normalizeFile(frame.filename ?? "") || "<no-module>";
    }
    case "transaction": {
      const transaction = scope.context?.transaction;
      return typeof transaction === "string" ? transaction : "<no-transaction>";
    }
    default:
      return "";
  }
}

function newestInAppFrame(stack: EventStack | null): StackFrame | undefined {
  if (stack === null) return undefined;
  const frames = stack.exceptions[stack.exceptions.length - 1]?.stacktrace?.frames ?? [];
  for (let i = frames.length - 1; i >= 0; i--) {
    const frame = frames[i]!;
    if (isInApp(frame, stack.platform ?? platformOfFrame(frame))) return frame;
  }
  return frames[frames.length - 1];
}

// Hashes of recent grouping keys. A service sends the same few hundred keys
// all day, and a SHA-256 through node:crypto (a new Hash object each time)
// showed in the server's CPU profile (docs/performance.md#figures-behind-the-code). Bounded: emptied when full (by count
// or by the characters held; a stack's key runs to a few kilobytes); longer
// keys are not kept.
const recentHashes = new Map<string, string>();
const MAX_RECENT_HASHES = 10_000;
const MAX_CACHED_KEY_CHARS = 4_096;
const MAX_CACHED_CHARS = 4_000_000;
let cachedChars = 0;

function recentKeyHash(key: string): string {
  let hash = recentHashes.get(key);
  if (hash === undefined) {
    hash = sha256Hex(key);
    if (key.length <= MAX_CACHED_KEY_CHARS) {
      if (recentHashes.size >= MAX_RECENT_HASHES || cachedChars + key.length > MAX_CACHED_CHARS) {
        recentHashes.clear();
        cachedChars = 0;
      }
      recentHashes.set(key, hash);
      cachedChars += key.length;
    }
  }
  return hash;
}
