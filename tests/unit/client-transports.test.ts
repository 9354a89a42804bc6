/**
 * How pino records and winston infos become events (the end-to-end runs
 * through the real server are in tests/integration/client-transports.test.ts).
 */
import { Writable } from "node:stream";
import pino from "pino";
import winston from "winston";
import Transport from "winston-transport";
import { describe, expect, it } from "vitest";
import { pinoRecordToCall } from "@/packages/client/src/pino";
import { winstonInfoToCall } from "@/packages/client/src/winston";

/** What pino writes for each call, parsed (what a transport receives). */
function pinoRecords(log: (logger: pino.Logger) => void, options: pino.LoggerOptions = {}) {
  const lines: string[] = [];
  const logger = pino({ level: "trace", ...options }, new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk)), done()) }));
  log(logger);
  return lines.map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe("pino", () => {
  it("maps levels 10-60 to info/warn/error and keeps the name", () => {
    const records = pinoRecords((l) => {
      l.trace("t");
      l.debug("d");
      l.info("i");
      l.warn("w");
      l.error("e");
      l.fatal("f");
    });
    expect(records.map((r) => pinoRecordToCall(r)).map((c) => [c.level, c.context.level, c.message])).toEqual([
      ["info", "trace", "t"],
      ["info", "debug", "d"],
      ["info", "info", "i"],
      ["warn", "warn", "w"],
      ["error", "error", "e"],
      ["error", "fatal", "f"],
    ]);
  });

  it("turns err (default serializer) into stack, error, cause; other fields into context; time into timestamp", () => {
    const inner = new TypeError("socket closed");
    const outer = Object.assign(new Error("query failed", { cause: inner }), { code: "E_Q" });
    const [record] = pinoRecords((l) => l.error({ err: outer, userId: 7 }, "checkout failed"));
    const call = pinoRecordToCall(record!);
    expect(call.message).toBe("checkout failed");
    expect(call.options.timestamp).toBe(record!.time);
    expect(call.context).toMatchObject({
      userId: 7,
      level: "error",
      stack: outer.stack,
      error: { type: "Error", message: "query failed", code: "E_Q" },
      cause: [{ type: "TypeError", message: "socket closed", stack: inner.stack }],
    });
    expect(call.context).not.toHaveProperty("err");
    expect(call.context).not.toHaveProperty("msg");
  });

  it("logger.error(err) gives `Type: message`; errWithCause and AggregateError are read too", () => {
    const [plain] = pinoRecords((l) => l.error(new RangeError("out of range", { cause: new Error("root") })));
    expect(pinoRecordToCall(plain!).message).toBe("RangeError: out of range");
    const [withCause] = pinoRecords((l) => l.error(new Error("top", { cause: new Error("below") })), { serializers: { err: pino.stdSerializers.errWithCause } });
    expect(pinoRecordToCall(withCause!).context.cause).toEqual([expect.objectContaining({ type: "Error", message: "below" })]);
    const [aggregate] = pinoRecords((l) => l.error(new AggregateError([new Error("one"), new Error("two")], "both")));
    const call = pinoRecordToCall(aggregate!);
    expect(call.message).toBe("AggregateError: both");
    expect((call.context.errors as { message: string }[]).map((e) => e.message)).toEqual(["one", "two"]);
  });

  it("honours custom message and error keys and custom levels", () => {
    const [record] = pinoRecords((l) => (l as unknown as pino.Logger<"notice">).notice({ problem: new Error("x") }, "custom"), {
      messageKey: "text",
      errorKey: "problem",
      customLevels: { notice: 35 },
    });
    const call = pinoRecordToCall(record!, { messageKey: "text", errorKey: "problem", labels: { 35: "notice" } });
    expect(call).toMatchObject({ level: "info", message: "custom", context: { level: "notice", error: { message: "x" } } });
  });
});

describe("winston", () => {
  function infos(log: (logger: winston.Logger) => void, format?: winston.Logform.Format) {
    const seen: Record<string | symbol, unknown>[] = [];
    const logger = winston.createLogger({
      level: "silly",
      format,
      transports: [new (class extends Transport {
        override log(info: Record<string | symbol, unknown>, next: () => void) {
          seen.push(info);
          next();
        }
      })()],
    });
    log(logger);
    return seen.map(winstonInfoToCall);
  }

  it("maps error/warn/info/http/verbose/debug/silly and keeps the name, even colorized", () => {
    const calls = infos((l) => {
      for (const level of ["error", "warn", "info", "http", "verbose", "debug", "silly"]) l.log(level, `m-${level}`);
    }, winston.format.combine(winston.format.colorize(), winston.format.simple()));
    expect(calls.map((c) => [c.level, c.context.level, c.message])).toEqual([
      ["error", "error", "m-error"],
      ["warn", "warn", "m-warn"],
      ["info", "info", "m-info"],
      ["info", "http", "m-http"],
      ["info", "verbose", "m-verbose"],
      ["info", "debug", "m-debug"],
      ["info", "silly", "m-silly"],
    ]);
  });

  it("keeps an Error's stack whether it is the message, in meta, or under a key", () => {
    const asMessage = new Error("as message", { cause: new Error("why") });
    const inMeta = new TypeError("in meta");
    const underKey = new Error("under key");
    const calls = infos((l) => {
      l.error(asMessage);
      l.error("failed:", inMeta);
      l.warn("retry", { err: underKey, attempt: 2 });
    });
    expect(calls[0]).toMatchObject({ level: "error", message: "Error: as message", context: { stack: asMessage.stack, cause: [expect.objectContaining({ message: "why" })] } });
    expect(calls[1]).toMatchObject({ level: "error", context: { stack: inMeta.stack } });
    expect(calls[2]).toMatchObject({ level: "warn", message: "retry", context: { stack: underKey.stack, error: { type: "Error", message: "under key" }, attempt: 2 } });
  });
});
