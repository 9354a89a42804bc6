/**
 * A pino transport: `pino.transport({ target: "@telltale/client/pino", options })`
 * runs it in a worker thread; `pino(opts, await telltaleTransport(options))`
 * runs it in-process. Records are queued in the client (never awaited) so
 * logging is never held up by the network.
 */
import build from "pino-abstract-transport";
import { createClient } from "./client.js";
import { stackHead } from "./json-safe.js";
import type { ClientOptions, TelltaleClient } from "./types.js";

export type PinoTransportOptions = ClientOptions & {
  /** pino's `messageKey` (default `msg`; in a worker pino tells the transport itself). */
  messageKey?: string;
  /** pino's `errorKey` (default `err`). */
  errorKey?: string;
  /** Custom level names by number, e.g. `{ 35: "notice" }` (in a worker pino tells the transport itself). */
  levels?: Record<number, string>;
  /** Set by pino when it will send its configuration (worker mode). */
  pinoWillSendConfig?: boolean;
  /** An existing client instead of one made from these options. */
  client?: TelltaleClient;
};

const PINO_LABELS: Record<number, string> = { 10: "trace", 20: "debug", 30: "info", 40: "warn", 50: "error", 60: "fatal" };

/** pino's level numbers: 50 and up (error, fatal) are errors, 40 up to there warnings, the rest info. */
export function pinoLevel(level: unknown): "error" | "warn" | "info" {
  if (typeof level === "number") return level >= 50 ? "error" : level >= 40 ? "warn" : "info";
  const name = String(level).toLowerCase();
  return name === "error" || name === "fatal" ? "error" : name === "warn" || name === "warning" ? "warn" : "info";
}

type SerializedError = { type?: unknown; message?: unknown; stack?: unknown; cause?: unknown; aggregateErrors?: unknown; [key: string]: unknown };

/**
 * pino's `err` as its serializer wrote it: the default one joins the cause
 * chain into `message` ("outer: inner") and `stack` ("...\ncaused by: ...");
 * `errWithCause` keeps `cause` as an object. Both become the client's shape:
 * `stack` (the outer error's own), `error`, `cause` (outermost first), `errors`.
 */
export function pinoErrorContext(err: SerializedError): { title: string; ownMessage: string; context: Record<string, unknown> } {
  const { type, message, stack, cause, aggregateErrors, raw: _raw, ...properties } = err;
  const context: Record<string, unknown> = {};
  const segments = typeof stack === "string" ? stack.split(/\ncaused by: /) : [];
  const outerStack = segments[0];
  const typeName = typeof type === "string" && type ? type : stackHead(outerStack ?? "").type ?? "Error";
  let ownMessage = typeof message === "string" ? message : "";
  const causes: Record<string, unknown>[] = [];
  if (cause && typeof cause === "object") {
    // errWithCause: a nested serialized error per level.
    let current: unknown = cause;
    while (current && typeof current === "object" && causes.length < 8) {
      const c = current as SerializedError;
      causes.push({ type: typeof c.type === "string" ? c.type : "Error", message: typeof c.message === "string" ? c.message : "", ...(typeof c.stack === "string" ? { stack: c.stack } : {}) });
      current = c.cause;
    }
  } else {
    for (const segment of segments.slice(1, 9)) {
      const head = stackHead(segment);
      causes.push({ type: head.type ?? "Error", message: head.message, stack: segment });
    }
    // The default serializer appended each cause's message to this one.
    if (outerStack) ownMessage = stackHead(outerStack).message;
  }
  if (outerStack) context.stack = outerStack;
  context.error = { type: typeName, message: ownMessage, ...properties };
  if (causes.length > 0) context.cause = causes;
  if (Array.isArray(aggregateErrors)) {
    context.errors = aggregateErrors.slice(0, 20).map((e: SerializedError) => ({
      type: typeof e?.type === "string" ? e.type : "Error",
      message: typeof e?.message === "string" ? e.message : "",
      ...(typeof e?.stack === "string" ? { stack: e.stack.split(/\ncaused by: /)[0] } : {}),
    }));
  }
  return { title: ownMessage ? `${typeName}: ${ownMessage}` : typeName, ownMessage, context };
}

export type PinoKeys = { messageKey?: string; errorKey?: string; labels?: Record<number, string> };

/** One pino record -> the client's log call. */
export function pinoRecordToCall(record: Record<string, unknown>, keys: PinoKeys = {}) {
  const messageKey = keys.messageKey ?? "msg";
  const errorKey = keys.errorKey ?? "err";
  const { level, time, [messageKey]: msg, [errorKey]: err, ...rest } = record;
  const levelName = typeof level === "number" ? (keys.labels?.[level] ?? PINO_LABELS[level] ?? String(level)) : String(level ?? "info");
  const context: Record<string, unknown> = { ...rest };
  let message: unknown = msg;
  if (err && typeof err === "object" && (typeof (err as SerializedError).stack === "string" || typeof (err as SerializedError).message === "string")) {
    const { title, ownMessage, context: errorContext } = pinoErrorContext(err as SerializedError);
    Object.assign(context, errorContext);
    // logger.error(err) sets msg to the error's message: the title says more.
    if (typeof msg !== "string" || msg === "" || msg === ownMessage || msg === (err as SerializedError).message) message = title;
  } else if (err !== undefined) {
    context[errorKey] = err;
  }
  context.level = levelName;
  return {
    level: pinoLevel(typeof level === "number" ? level : levelName),
    message: message === undefined ? "" : message,
    context,
    options: typeof time === "number" || typeof time === "string" ? { timestamp: time } : {},
  };
}

/** The transport (pino loads the default export). */
export default async function telltaleTransport(options: PinoTransportOptions) {
  const { messageKey, errorKey, levels, pinoWillSendConfig, client: given, ...clientOptions } = options ?? ({} as PinoTransportOptions);
  // In a worker pino closes the stream at exit (that flushes); in-process the client's own exit hooks do.
  const client =
    given ??
    createClient({
      ...clientOptions,
      flushOnExit: clientOptions.flushOnExit ?? !pinoWillSendConfig,
    });
  const stream = await build(
    async (source) => {
      for await (const record of source as AsyncIterable<Record<string, unknown>>) {
        try {
          const s = source as unknown as { messageKey?: string; errorKey?: string; levels?: { labels?: Record<number, string> } };
          const call = pinoRecordToCall(record, {
            messageKey: messageKey ?? s.messageKey,
            errorKey: errorKey ?? s.errorKey,
            labels: { ...s.levels?.labels, ...levels },
          });
          client.log(call.level, call.message, call.context, call.options);
        } catch {
          // A record that cannot be read is skipped; logging goes on.
        }
      }
    },
    {
      expectPinoConfig: pinoWillSendConfig === true,
      async close() {
        if (!given) await client.close();
        else await client.flush();
      },
    },
  );
  return stream;
}
