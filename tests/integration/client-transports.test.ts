/**
 * pino and winston, end to end through the client's transports into the real
 * server: the stored rows keep levels (the original in context.level), the
 * message, and Error objects with their stack and causes.
 */
import pino from "pino";
import winston from "winston";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import telltaleTransport from "@/packages/client/src/pino";
import { TelltaleTransport } from "@/packages/client/src/winston";
import { prisma } from "@/lib/db/client";
import { startIngestHttp, type IngestHttp } from "@/tests/helpers/ingest-http";
import { makeProject } from "@/tests/helpers/ingest";

type Context = { level?: string; stack?: string; error?: { type: string; message: string }; cause?: { type: string; message: string; stack?: string }[]; [key: string]: unknown };

/** The project's stored events, in the order they were logged (one batch's ids share a millisecond). */
async function rows(projectId: string, order: string[]) {
  const events = await prisma.event.findMany({ where: { projectId }, select: { level: true, message: true, context: true, timestamp: true } });
  const stored = events.map((e) => ({ ...e, context: (e.context ?? {}) as Context }));
  expect(stored.map((e) => e.message).sort()).toEqual([...order].sort());
  return order.map((message) => stored.find((e) => e.message === message)!);
}

let server: IngestHttp;
beforeAll(async () => {
  server = await startIngestHttp();
});
afterAll(() => server.close());

describe("pino through @telltale/client/pino", () => {
  it("stores every level with its name, the message, fields, and err with stack and cause", async () => {
    const project = await makeProject("pino-e2e");
    const stream = await telltaleTransport({ url: server.url, apiKey: project.apiKey, projectId: project.id, flushIntervalMs: 20 });
    const logger = pino({ level: "trace" }, stream);
    const cause = new TypeError("connection reset");
    const failure = Object.assign(new Error("payment failed", { cause }), { code: "E_PAY" });
    const before = Date.now();
    logger.trace("trace line");
    logger.debug({ step: 1 }, "debug line");
    logger.info({ orderId: "o-1" }, "info line");
    logger.warn("warn line");
    logger.error({ err: failure, orderId: "o-2" }, "checkout failed");
    logger.fatal(new RangeError("out of memory"));
    // Ending the stream closes the transport, which flushes the client.
    await new Promise<void>((resolve) => {
      stream.on("close", () => resolve());
      stream.end();
    });
    const stored = await rows(project.id, ["trace line", "debug line", "info line", "warn line", "checkout failed", "RangeError: out of memory"]);
    expect(stored.map((r) => [r.level, r.context.level, r.message])).toEqual([
      ["info", "trace", "trace line"],
      ["info", "debug", "debug line"],
      ["info", "info", "info line"],
      ["warn", "warn", "warn line"],
      ["error", "error", "checkout failed"],
      ["error", "fatal", "RangeError: out of memory"],
    ]);
    expect(stored[1]!.context).toMatchObject({ step: 1, hostname: expect.any(String), pid: process.pid });
    expect(stored[4]!.context).toMatchObject({
      orderId: "o-2",
      stack: failure.stack,
      error: { type: "Error", message: "payment failed", code: "E_PAY" },
      cause: [{ type: "TypeError", message: "connection reset", stack: cause.stack }],
    });
    expect(stored[5]!.context.stack).toMatch(/^RangeError: out of memory\n\s+at /);
    // pino's time is the event's timestamp.
    for (const row of stored) expect(row.timestamp!.getTime()).toBeGreaterThanOrEqual(before);
  });
});

describe("winston through @telltale/client/winston", () => {
  it("stores error/warn/info/http/verbose/debug/silly with their names, and Errors with their stack", async () => {
    const project = await makeProject("winston-e2e");
    const transport = new TelltaleTransport({ url: server.url, apiKey: project.apiKey, projectId: project.id, flushIntervalMs: 20 });
    const logger = winston.createLogger({ level: "silly", format: winston.format.combine(winston.format.timestamp(), winston.format.json()), transports: [transport] });
    const asMessage = new Error("disk full", { cause: new Error("quota exceeded") });
    const inMeta = new TypeError("bad input");
    logger.error(asMessage);
    logger.warn("slow query", { ms: 950 });
    logger.info("started");
    logger.http("GET /health 200");
    logger.verbose("cache warm");
    logger.debug("state", { s: "idle" });
    logger.silly("tick");
    logger.error("validation failed", { err: inMeta });
    expect(await transport.flush()).toBe(true);
    const stored = await rows(project.id, ["Error: disk full", "slow query", "started", "GET /health 200", "cache warm", "state", "tick", "validation failed"]);
    expect(stored.map((r) => [r.level, r.context.level, r.message])).toEqual([
      ["error", "error", "Error: disk full"],
      ["warn", "warn", "slow query"],
      ["info", "info", "started"],
      ["info", "http", "GET /health 200"],
      ["info", "verbose", "cache warm"],
      ["info", "debug", "state"],
      ["info", "silly", "tick"],
      ["error", "error", "validation failed"],
    ]);
    expect(stored[0]!.context).toMatchObject({ stack: asMessage.stack, cause: [expect.objectContaining({ message: "quota exceeded" })] });
    expect(stored[1]!.context).toMatchObject({ ms: 950 });
    expect(stored[7]!.context).toMatchObject({ stack: inMeta.stack, error: { type: "TypeError", message: "bad input" } });
    logger.close();
  });
});
