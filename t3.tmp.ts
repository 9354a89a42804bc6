import { decodeProtobufLogs } from "@/lib/otlp/decode-protobuf";
import { decodeJsonLogs } from "@/lib/otlp/decode-json";
import { mapLogsRequest } from "@/lib/otlp/map";
import { ExportLogsServiceRequest } from "@/lib/otlp/proto";
const attrs = (i: number) => [
  { key: "http.method", value: { stringValue: "GET" } }, { key: "http.route", value: { stringValue: "/api/orders/:id" } },
  { key: "http.status_code", value: { intValue: 500 } }, { key: "order.id", value: { stringValue: "ord_" + i } },
  { key: "user.id", value: { stringValue: "u_" + (i % 50) } }, { key: "duration", value: { doubleValue: 12.5 } },
  { key: "exception.type", value: { stringValue: "TypeError" } }, { key: "exception.message", value: { stringValue: "x is undefined " + i } },
  { key: "exception.stacktrace", value: { stringValue: "TypeError: x is undefined\n    at a (/srv/a.js:1:1)\n    at b (/srv/b.js:2:2)\n    at c (/srv/c.js:3:3)" } },
];
const req = { resourceLogs: [{ resource: { attributes: [{ key: "service.name", value: { stringValue: "api" } }, { key: "service.version", value: { stringValue: "1.0.0" } }, { key: "deployment.environment.name", value: { stringValue: "prod" } }] },
  scopeLogs: [{ scope: { name: "app" }, logRecords: Array.from({ length: 100 }, (_, i) => ({ timeUnixNano: "1795860000123456789", severityNumber: 17, severityText: "ERROR", body: { stringValue: "request failed " + i }, attributes: attrs(i), traceId: Buffer.alloc(16, 1), spanId: Buffer.alloc(8, 2) })) }] }] };
const body = ExportLogsServiceRequest.encode(ExportLogsServiceRequest.fromObject(req)).finish();
const jsonBody = Buffer.from(JSON.stringify({ resourceLogs: [{ ...req.resourceLogs[0], scopeLogs: [{ scope: { name: "app" }, logRecords: req.resourceLogs[0]!.scopeLogs[0]!.logRecords.map((r) => ({ ...r, traceId: "01".repeat(16), spanId: "02".repeat(8) })) }] }] }));
function cpu(fn: () => void, n: number) { const c = process.cpuUsage(); for (let k = 0; k < n; k++) fn(); const d = process.cpuUsage(c); return ((d.user + d.system) / (n * 100)).toFixed(2); }
let d: any = decodeProtobufLogs(body);
for (let round = 0; round < 4; round++) {
  console.log("µs/record cpu: raw", cpu(() => ExportLogsServiceRequest.decode(body), 300), "decode", cpu(() => { d = decodeProtobufLogs(body); }, 300), "map", cpu(() => mapLogsRequest(d, "p"), 300), "json decode", cpu(() => decodeJsonLogs(jsonBody), 100));
}
