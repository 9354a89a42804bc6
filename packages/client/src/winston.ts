/**
 * A winston transport:
 *   winston.createLogger({ transports: [new TelltaleTransport({ url, apiKey, projectId })] })
 * Levels: error (and syslog's emerg, alert, crit) -> error, warn/warning ->
 * warn, the rest (info, http, verbose, debug, silly, notice) -> info, the
 * original name in `context.level`. Errors (as the message, in meta, or
 * through `format.errors()`) keep their stack and causes. `log()` only
 * queues: logging never waits on the network.
 */
import TransportStream from "winston-transport";
import { createClient } from "./client.js";
import { errorDetails, errorTitle, isErrorLike, stackHead } from "./json-safe.js";
import type { ClientOptions, TelltaleClient } from "./types.js";

export type WinstonTransportOptions = Partial<ClientOptions> &
  TransportStream.TransportStreamOptions & {
    /** An existing client instead of one made from these options. */
    client?: TelltaleClient;
  };

const LEVEL = Symbol.for("level");
const SPLAT = Symbol.for("splat");
const ANSI = /\u001b\[[0-9;]*m/g;
const ERROR_NAMES = new Set(["error", "emerg", "alert", "crit", "fatal"]);
const WARN_NAMES = new Set(["warn", "warning"]);

export function winstonLevel(name: string): "error" | "warn" | "info" {
  return ERROR_NAMES.has(name) ? "error" : WARN_NAMES.has(name) ? "warn" : "info";
}

type Info = Record<string | symbol, unknown>;

/** One winston `info` -> the client's log call. */
export function winstonInfoToCall(info: Info) {
  const levelName = String(info[LEVEL] ?? info.level ?? "info").replace(ANSI, "");
  const { level: _level, message, stack, cause, timestamp, ...meta } = info as Record<string, unknown>;
  const context: Record<string, unknown> = {};
  // The first Error wins: the message itself, then one in meta, then one
  // passed as an extra argument (winston's splat).
  const splat = Array.isArray(info[SPLAT]) ? (info[SPLAT] as unknown[]) : [];
  const error = [message, ...Object.values(meta), ...splat].find(isErrorLike);
  let text: unknown = message;
  if (isErrorLike(message)) text = errorTitle(message);
  if (error) {
    const { stack: errorStack, cause: errorCause, errors, ...outer } = errorDetails(error);
    context.stack = errorStack;
    context.error = outer;
    if (errorCause) context.cause = errorCause;
    if (errors) context.errors = errors;
  }
  // winston copies an Error's stack and cause from meta onto the info (and format.errors() does).
  if (typeof stack === "string") {
    context.stack = stack;
    const head = stackHead(stack);
    // logger.error(err) leaves the error's message as the info's: say its type too.
    if (!error && head.type && head.message === message) {
      text = `${head.type}: ${head.message}`;
      context.error = { type: head.type, message: head.message };
    }
  }
  if (cause !== undefined && context.cause === undefined) context.cause = isErrorLike(cause) ? [errorDetails(cause)] : cause;
  for (const [key, value] of Object.entries(meta)) if (value !== error) context[key] = value;
  if ((text === undefined || text === "") && error) text = errorTitle(error);
  context.level = levelName;
  return {
    level: winstonLevel(levelName),
    message: text ?? "",
    context,
    options: typeof timestamp === "string" || typeof timestamp === "number" ? { timestamp } : {},
  };
}

export class TelltaleTransport extends TransportStream {
  readonly client: TelltaleClient;
  private readonly ownsClient: boolean;

  constructor(options: WinstonTransportOptions = {}) {
    const { format, level, silent, handleExceptions, handleRejections, client, ...clientOptions } = options;
    super({ format, level, silent, handleExceptions, handleRejections });
    this.ownsClient = !client;
    this.client = client ?? createClient(clientOptions as ClientOptions);
  }

  override log(info: Info, callback: () => void): void {
    try {
      const call = winstonInfoToCall(info);
      this.client.log(call.level, call.message, call.context, call.options);
    } catch {
      // An info that cannot be read is skipped; logging goes on.
    }
    setImmediate(() => this.emit("logged", info));
    callback();
  }

  /** Resolves when everything logged so far is acknowledged (`true`) or given up (`false`). */
  flush(): Promise<boolean> {
    return this.client.flush();
  }

  override close(): void {
    if (this.ownsClient) void this.client.close();
  }
}

export default TelltaleTransport;
