/**
 * OTLP/HTTP protobuf log requests for bench:ingest's OTLP round: what an
 * OpenTelemetry logs SDK's batch processor sends for an application (one
 * resource with service.name, service.version, the environment and the
 * host; one scope; `batch` records), each record a log line of that service
 * drawn from the same ~1,000 templates and Zipf distribution as the other
 * rounds (harness/bench/workload.ts), 70% info, 20% warn and 10% error
 * (an application's logs, not only its errors): severity by level, the
 * message as body, request and user attributes, a trace and span id, and
 * for error templates exception.type, exception.message and a Node.js
 * exception.stacktrace of 20 frames (6 in-app, named after the template, so
 * stack-aware grouping still makes about 1,000 issues).
 *
 * The bytes are encoded once, with the message definitions the server
 * decodes with (lib/otlp/proto.ts), and checked with the server's own parser.
 *
 * The 200 answer names no record, so each record carries an attribute
 * `bench.record` = <request id (24 characters)><record number (3 digits)>.
 * wrk's script puts a new request id in each request (same length, so the
 * protobuf stays valid) and writes the ids answered 200 (with the answer,
 * hex, when it has a partialSuccess) and the ids refused; the benchmark then
 * checks each acknowledged record's row. The script must run with one
 * connection per wrk thread: a thread's answer is then the answer to its
 * last request.
 */
import fs from "node:fs";
import path from "node:path";
import { LIBRARY_FRAMES, SERVICES } from "@/harness/bench/sdk-events";
import { sampler, templates } from "@/harness/bench/workload";

/** Where a request id goes in every record's `bench.record` (24 characters, replaced by wrk for each request). */
export const OTLP_REQUEST_ID_PLACEHOLDER = "OTLPREQUESTIDXXXXXXXXXXX";
/** The record attribute naming each record. */
export const OTLP_RECORD_ATTRIBUTE = "bench.record";

const TYPES = ["Error", "TypeError", "RangeError"];
const RELEASES = ["2.14.0", "2.14.1", "2.15.0"];
/** OpenTelemetry's SeverityNumber and text for the workload's levels. */
const SEVERITY = { error: [17, "ERROR"], warn: [13, "WARN"], info: [9, "INFO"] } as const;
/** The tags the server makes of these records (checked with the SDK events' tags). */
export const OTLP_TAG_KEYS = ["scope", "host", "severity"] as const;

type Attribute = { key: string; value: { stringValue: string } | { intValue: number } };
const str = (key: string, value: string): Attribute => ({ key, value: { stringValue: value } });

/** A time in unix nanoseconds as protobufjs writes a fixed64 (low and high 32 bits). */
function nanos(ms: number): { low: number; high: number; unsigned: boolean } {
  const n = BigInt(Math.round(ms * 1000)) * 1000n;
  return { low: Number(n & 0xffffffffn) | 0, high: Number(n >> 32n) | 0, unsigned: true };
}

/** One request's ExportLogsServiceRequest (as protobufjs takes it): one service's `batch` records at about `at`. */
function exportRequest(work: ReturnType<typeof sampler>, at: number, batch: number): Record<string, unknown> {
  const random = work.random;
  const all = templates();
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const bytes = (n: number) => Uint8Array.from({ length: n }, () => Math.floor(random() * 256));
  const service = pick(SERVICES);
  /** A draw of the workload of `service` at `level` (an application's logs are mostly info; its exceptions about a tenth). */
  const drawFor = (service: string, level: string) => {
    for (let tries = 0; ; tries++) {
      const drawn = work.draw();
      if ((drawn.level === level && all[drawn.template]!.pattern.includes(service)) || tries > 10_000) return drawn;
    }
  };
  const logRecords = Array.from({ length: batch }, (_, k) => {
    const { template, level, message } = drawFor(service, random() < 0.7 ? "info" : random() < 0.67 ? "warn" : "error");
    const [severityNumber, severityText] = SEVERITY[level];
    const method = pick(["GET", "GET", "POST", "PUT", "DELETE"]);
    const attributes: Attribute[] = [
      str(OTLP_RECORD_ATTRIBUTE, `${OTLP_REQUEST_ID_PLACEHOLDER}${String(k).padStart(3, "0")}`),
      str("http.request.method", method),
      str("url.path", `/api/${service}/${Math.floor(random() * 1000)}`),
      { key: "http.response.status_code", value: { intValue: level === "error" ? 500 : 200 } },
      str("user.id", `u${Math.floor(random() ** 2 * 50_000)}`),
      str("code.function.name", `${service}Service.run${template % 17}`),
    ];
    if (level === "error") {
      const type = TYPES[template % TYPES.length]!;
      const slug = all[template]!.pattern.replace(/[^A-Za-z]+/g, " ").trim().split(" ").slice(0, 3).join("").slice(0, 24);
      const inApp: [string, string][] = [
        [`/app/src/${service}/handlers/${slug}.ts`, `handle${slug}`],
        [`/app/src/${service}/service.ts`, `${service}Service.run${template % 17}`],
        [`/app/src/${service}/repository.ts`, `load${template % 23}`],
        ["/app/src/lib/http/route.ts", "withErrors"],
        ["/app/src/lib/http/route.ts", "dispatch"],
        ["/app/src/server.ts", "handleRequest"],
      ];
      // Node.js's order: the throwing frame first.
      const frames = [...inApp, ...LIBRARY_FRAMES].map(([file, fn]) => `    at ${fn} (${file}:${10 + Math.floor(random() * 400)}:${1 + Math.floor(random() * 40)})`);
      attributes.push(str("exception.type", type), str("exception.message", message), str("exception.stacktrace", `${type}: ${message}\n${frames.join("\n")}`));
    }
    const time = at - Math.floor(random() * 5000);
    return {
      timeUnixNano: nanos(time),
      observedTimeUnixNano: nanos(time + 1),
      severityNumber,
      severityText,
      body: { stringValue: message },
      attributes,
      traceId: bytes(16),
      spanId: bytes(8),
      flags: 1,
    };
  });
  return {
    resourceLogs: [
      {
        resource: {
          attributes: [
            str("service.name", service),
            str("service.version", pick(RELEASES)),
            str("deployment.environment.name", random() < 0.85 ? "production" : "staging"),
            str("host.name", `web-${1 + Math.floor(random() * 12)}`),
            str("process.runtime.name", "nodejs"),
            str("process.runtime.version", "20.19.2"),
            str("telemetry.sdk.name", "opentelemetry"),
            str("telemetry.sdk.language", "nodejs"),
            str("telemetry.sdk.version", "2.2.0"),
          ],
        },
        scopeLogs: [{ scope: { name: `${service}-logger`, version: "1.0.0" }, logRecords }],
      },
    ],
  };
}

export type OtlpRequests = {
  /** wrk's script: one connection per thread (`threads` = connections). */
  script: string;
  /** Where the script writes `ids-*` (acknowledged request ids, and the answer's hex when not empty), `refused-*` and `failures-*`. */
  idsDir: string;
  /** The request ids' common start (8 hex characters): this run's records. */
  salt: string;
  bodyBytes: number;
};

/**
 * `count` protobuf bodies of `batch` records (stamped now) drawn with `seed`
 * into `dir`, each checked with the server's parser, and the wrk script that
 * sends them in turn with a new request id each.
 */
export async function prepareOtlpRequests(
  dir: string,
  options: { projectId: string; apiKey: string; count: number; batch: number; seed: number },
): Promise<OtlpRequests> {
  const { ExportLogsServiceRequest } = await import("@/lib/otlp/proto");
  const { parseOtlpLogs } = await import("@/lib/otlp/logs");
  const work = sampler(options.seed);
  const now = Date.now();
  const bodiesDir = path.join(dir, "otlp-bodies");
  const idsDir = path.join(dir, "otlp-ids");
  fs.mkdirSync(bodiesDir, { recursive: true });
  fs.mkdirSync(idsDir, { recursive: true });
  let bodyBytes = 0;
  for (let i = 1; i <= options.count; i++) {
    const message = ExportLogsServiceRequest.fromObject(exportRequest(work, now, options.batch));
    const body = ExportLogsServiceRequest.encode(message).finish();
    const check = parseOtlpLogs(body, "protobuf", options.projectId);
    if (check.events.length !== options.batch || check.rejected !== 0) throw new Error(`the bench's OTLP request is refused: ${check.errorMessage}`);
    fs.writeFileSync(path.join(bodiesDir, `body-${i}.bin`), body);
    bodyBytes ||= body.byteLength;
  }
  const salt = (options.seed >>> 0).toString(16).padStart(8, "0").slice(-8);
  const lua = (s: string) => JSON.stringify(s);
  const script = path.join(dir, "otlp.lua");
  fs.writeFileSync(
    script,
    `
local bodies = {}
local counter = 0
local sent = 0
local current = nil

function setup(thread)
  counter = counter + 1
  thread:set("id", counter)
end

-- Each body split at the request id's places, joined again around each request's own id.
function init(args)
  wrk.method = "POST"
  wrk.path = "/v1/logs"
  wrk.headers["Content-Type"] = "application/x-protobuf"
  wrk.headers["Authorization"] = ${lua(`Bearer ${options.apiKey}`)}
  for i = 1, ${options.count} do
    local f = io.open(${lua(bodiesDir)} .. "/body-" .. i .. ".bin", "rb")
    local body = f:read("*a")
    f:close()
    local pieces = {}
    local at = 1
    while true do
      local s, e = body:find(${lua(OTLP_REQUEST_ID_PLACEHOLDER)}, at, true)
      if not s then break end
      pieces[#pieces + 1] = body:sub(at, s - 1)
      at = e + 1
    end
    pieces[#pieces + 1] = body:sub(at)
    bodies[i] = pieces
  end
end

-- The run's salt, the thread, the request: 8 + 4 + 12 hex characters.
function request()
  sent = sent + 1
  current = string.format("%s%04x%012x", ${lua(salt)}, id, sent)
  return wrk.format(nil, nil, nil, table.concat(bodies[(sent - 1) % #bodies + 1], current))
end

-- Opened at the first answer, not in init(): wrk's event loops take only
-- sockets numbered below 10 + 3 x connections, and files opened before the
-- threads connect push their sockets past it (counted as "connect" errors,
-- and those connections never send).
local function out(name)
  local f = io.open(${lua(idsDir)} .. "/" .. name .. "-" .. id .. ".txt", "w")
  f:setvbuf("line")
  return f
end

-- One connection per thread: this answers the thread's last request.
function response(status, headers, body)
  if status == 200 then
    ids = ids or out("ids")
    if body and #body > 0 then
      ids:write(current, " ", (body:gsub(".", function(c) return string.format("%02x", c:byte()) end)), "\\n")
    else
      ids:write(current, "\\n")
    end
  else
    refused = refused or out("refused")
    refused:write(current, "\\n")
    failures = failures or io.open(${lua(idsDir)} .. "/failures-" .. id .. ".txt", "w")
    failures:write(status, " ", (body:sub(1, 300):gsub("[%c]", " ")), "\\n")
    failures:flush()
  end
end
`,
  );
  return { script, idsDir, salt, bodyBytes };
}
