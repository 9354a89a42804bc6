import { spawn } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { dirname, join } from "node:path";
import { once } from "node:events";
import { gunzipSync } from "node:zlib";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { diag, DiagLogLevel } from "@opentelemetry/api";
import { SeverityNumber } from "@opentelemetry/api-logs";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BatchLogRecordProcessor, LoggerProvider, SimpleLogRecordProcessor, type LogRecordExporter } from "@opentelemetry/sdk-logs";
import { OTLPLogExporter as JsonExporter } from "@opentelemetry/exporter-logs-otlp-http";
import { OTLPLogExporter as ProtoExporter } from "@opentelemetry/exporter-logs-otlp-proto";
import { CompressionAlgorithm } from "@opentelemetry/otlp-exporter-base";
import { AppError } from "@/lib/http/errors";
import { MAX_LOG_RECORDS } from "@/lib/otlp/limits";
import { encodeOtlpLogsResponse, otlpFormatOf, parseOtlpLogs, type OtlpEvent } from "@/lib/otlp/logs";

const ROOT = join(import.meta.dirname, "../..");

/**
 * The real exporters against a server that answers with this library, as
 * the /v1/logs route will (minus the key and the database): the exporter
 * must read our ExportLogsServiceResponse, protobuf or JSON, and report a
 * partial success as the SDK does (a warning naming the rejected count).
 */
let server: Server;
let base = "";
let url = "";
const stored: OtlpEvent[] = [];
const diagnostics: string[] = [];
const requests: Array<{ path: string; authorization: string | undefined }> = [];

beforeAll(async () => {
  server = createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    let body = Buffer.concat(chunks);
    if (req.headers["content-encoding"] === "gzip") body = gunzipSync(body);
    requests.push({ path: req.url ?? "", authorization: req.headers.authorization });
    try {
      const format = otlpFormatOf(req.headers["content-type"] ?? null);
      const result = parseOtlpLogs(body, format, "proj_live");
      stored.push(...result.events);
      const answer = encodeOtlpLogsResponse(result, format);
      res.writeHead(200, { "content-type": answer.contentType }).end(answer.body);
    } catch (error) {
      if (!(error instanceof AppError)) throw error;
      res.writeHead(error.status, { "content-type": "application/problem+json" }).end(JSON.stringify({ code: error.code, detail: error.message }));
    }
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  url = `${base}/v1/logs`;
  const collect = (...args: unknown[]) => diagnostics.push(args.map(String).join(" "));
  diag.setLogger({ error: collect, warn: collect, info: () => {}, debug: () => {}, verbose: () => {} }, DiagLogLevel.WARN);
});

afterAll(async () => {
  diag.disable();
  await new Promise<void>((done) => server.close(() => done()));
});

beforeEach(() => {
  stored.length = 0;
  diagnostics.length = 0;
  requests.length = 0;
});

async function send(exporter: LogRecordExporter, emit: (logger: ReturnType<LoggerProvider["getLogger"]>) => void) {
  const provider = new LoggerProvider({
    resource: resourceFromAttributes({ "service.name": "checkout", "service.version": "3.1.0", "deployment.environment.name": "staging" }),
    processors: [new SimpleLogRecordProcessor({ exporter })],
  });
  emit(provider.getLogger("checkout.http"));
  await provider.forceFlush();
  await provider.shutdown();
}

const exporters: Array<[string, () => LogRecordExporter]> = [
  ["exporter-logs-otlp-proto", () => new ProtoExporter({ url })],
  ["exporter-logs-otlp-proto, gzip", () => new ProtoExporter({ url, compression: CompressionAlgorithm.GZIP })],
  ["exporter-logs-otlp-http (JSON)", () => new JsonExporter({ url })],
  ["exporter-logs-otlp-http (JSON), gzip", () => new JsonExporter({ url, compression: CompressionAlgorithm.GZIP })],
];

describe.each(exporters)("%s against this library", (_name, exporter) => {
  it("delivers a record, mapped, with no warning (a full success leaves partialSuccess unset)", async () => {
    await send(exporter(), (logger) =>
      logger.emit({ severityNumber: SeverityNumber.WARN, severityText: "WARN", body: "cart is slow", attributes: { "cart.items": 12 } }),
    );
    expect(diagnostics).toEqual([]);
    expect(stored).toHaveLength(1);
    expect(stored[0]).toMatchObject({
      level: "warn",
      message: "cart is slow",
      projectId: "proj_live",
      release: "3.1.0",
      environment: "staging",
      context: { attributes: { "cart.items": 12 } },
    });
  });

  it("a record the contract refuses (NUL in an attribute) is reported in partialSuccess, which the SDK reads and logs; the other is stored", async () => {
    await send(exporter(), (logger) => {
      logger.emit({ severityNumber: SeverityNumber.ERROR, body: "kept" });
      logger.emit({ severityNumber: SeverityNumber.ERROR, body: "refused", attributes: { "file.name": "a\u0000b" } });
    });
    expect(stored.map((e) => e.message)).toEqual(["kept"]);
    // One request per record (SimpleLogRecordProcessor): the second was answered 200 with partialSuccess.
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toContain("Received Partial Success response");
    const reported = JSON.parse(diagnostics[0]!.slice(diagnostics[0]!.indexOf("{"))) as { rejectedLogRecords: unknown; errorMessage: string };
    expect(Number(reported.rejectedLogRecords)).toBe(1);
    expect(reported.errorMessage).toContain("1 of 1 log record rejected");
    expect(reported.errorMessage).toContain("NUL character");
  });
});

it("a request refused as a whole (413: more records than one request may hold) is an export failure the SDK reports", async () => {
  const provider = new LoggerProvider({
    processors: [
      new BatchLogRecordProcessor({
        exporter: new ProtoExporter({ url }),
        maxExportBatchSize: MAX_LOG_RECORDS + 1,
        maxQueueSize: MAX_LOG_RECORDS + 1,
        scheduledDelayMillis: 60_000,
      }),
    ],
  });
  const logger = provider.getLogger("bulk");
  for (let i = 0; i <= MAX_LOG_RECORDS; i++) logger.emit({ body: `line ${i}` });
  await provider.forceFlush();
  await provider.shutdown();
  expect(stored).toEqual([]);
  expect(diagnostics.join("\n")).toMatch(/413/);
});

it("the JavaScript example of docs/clients.md runs as written and sends what the page says", async () => {
  const page = readFileSync(join(ROOT, "docs/clients.md"), "utf8");
  const snippet = /<!-- otlp-js-snippet:[^>]*-->\n```js\n([\s\S]*?)\n```/.exec(page)?.[1];
  expect(snippet).toBeTruthy();
  // Under node_modules so that its imports resolve to this repository's packages.
  const file = join(ROOT, "node_modules/.cache/telltale-otlp-docs-snippet.mjs");
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, snippet!);
  const child = spawn(process.execPath, [file], { env: { ...process.env, TELLTALE_URL: base, TELLTALE_API_KEY: "tlt_docs_example" }, stdio: ["ignore", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()));
  const [code] = (await once(child, "exit")) as [number];
  expect({ code, stderr }).toEqual({ code: 0, stderr: "" });

  expect(requests).toEqual([{ path: "/v1/logs", authorization: "Bearer tlt_docs_example" }]);
  expect(stored.map((e) => [e.level, e.message, e.release, e.environment])).toEqual([
    ["info", "order placed", "2.4.1", "production"],
    ["error", "TypeError: card declined", "2.4.1", "production"],
  ]);
  expect(stored[1]!.context).toMatchObject({ body: "payment failed", stacktrace: expect.stringMatching(/^TypeError: card declined\n\s+at /) });
  expect(stored[0]!.tags).toEqual({ service: "checkout", scope: "checkout.payments", severity: "INFO" });
});
