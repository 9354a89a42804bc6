/**
 * POST /v1/logs through its handler on the test database: the real
 * OpenTelemetry exporters' requests (protobuf and JSON, plain and gzip) are
 * stored with their mapping; one bad record is refused in partialSuccess
 * while the rest are stored; keys, media types and bodies are checked.
 */
import { describe, expect, it } from "vitest";
import { POST } from "@/app/v1/logs/route";
import { prisma } from "@/lib/db/client";
import { ExportLogsServiceResponse } from "@/lib/otlp/proto";
import { loadOtlpFixture, loadOtlpFixtures } from "@/tests/fixtures/otlp/load";
import { makeProject } from "@/tests/helpers/ingest";

async function post(key: string | null, body: Buffer | string, headers: Record<string, string>) {
  const request = new Request("http://localhost/v1/logs", { method: "POST", headers: { ...(key ? { authorization: `Bearer ${key}` } : {}), ...headers }, body: typeof body === "string" ? body : new Uint8Array(body) });
  const res = await POST(request, { params: Promise.resolve({}) });
  return { res, status: res.status, bytes: Buffer.from(await res.arrayBuffer()) };
}

describe("POST /v1/logs", () => {
  it("stores every record the real exporters sent, in each encoding, and answers OTLP's response in kind", async () => {
    for (const fixture of loadOtlpFixtures()) {
      const p = await makeProject(`otlp-${fixture.name}`);
      const headers: Record<string, string> = { "content-type": fixture.contentType };
      if (fixture.contentEncoding) headers["content-encoding"] = fixture.contentEncoding;
      const answer = await post(p.apiKey, fixture.raw, headers);
      expect(answer.status, fixture.name).toBe(200);
      expect(answer.res.headers.get("content-type")).toBe(fixture.format === "json" ? "application/json" : "application/x-protobuf");
      if (fixture.format === "json") expect(JSON.parse(answer.bytes.toString("utf8"))).toEqual({});
      else expect(ExportLogsServiceResponse.decode(answer.bytes).partialSuccess ?? null).toBeNull();
      expect(await prisma.event.count({ where: { projectId: p.id } }), fixture.name).toBeGreaterThan(0);
    }
  });

  it("maps severity, body, resource and exception attributes onto the event", async () => {
    const p = await makeProject("otlp-map");
    const fixture = loadOtlpFixture("sdk-json");
    expect((await post(p.apiKey, fixture.raw, { "content-type": "application/json" })).status).toBe(200);
    const events = await prisma.event.findMany({ where: { projectId: p.id }, select: { level: true, message: true, release: true, environment: true, context: true } });
    expect(new Set(events.map((e) => e.level)).size).toBeGreaterThan(1);
    const withStack = events.find((e) => typeof (e.context as { stacktrace?: unknown } | null)?.stacktrace === "string");
    expect(withStack?.level).toBe("error");
  });

  it("refuses one bad record in partialSuccess and stores the others", async () => {
    const p = await makeProject("otlp-partial");
    const record = (body: string, severityNumber = 17) => ({ timeUnixNano: String(Date.now() * 1e6), severityNumber, body: { stringValue: body } });
    const request = {
      resourceLogs: [
        {
          resource: { attributes: [{ key: "service.name", value: { stringValue: "checkout" } }, { key: "service.version", value: { stringValue: "3.2.0" } }] },
          scopeLogs: [{ scope: { name: "app" }, logRecords: [record("Card declined"), record("x".repeat(10_001)), record("Slow checkout", 13)] }],
        },
      ],
    };
    const answer = await post(p.apiKey, JSON.stringify(request), { "content-type": "application/json" });
    expect(answer.status).toBe(200);
    const body = JSON.parse(answer.bytes.toString("utf8"));
    expect(body.partialSuccess.rejectedLogRecords).toBe("1");
    expect(body.partialSuccess.errorMessage).toMatch(/10,?000/);
    const stored = await prisma.event.findMany({ where: { projectId: p.id }, select: { level: true, message: true, release: true }, orderBy: { message: "asc" } });
    expect(stored).toEqual([
      { level: "error", message: "Card declined", release: "3.2.0" },
      { level: "warn", message: "Slow checkout", release: "3.2.0" },
    ]);
  });

  it("answers a missing or wrong key 401, another media type 415 and a malformed body 400, storing nothing", async () => {
    const p = await makeProject("otlp-refusals");
    const fixture = loadOtlpFixture("sdk-proto");
    expect((await post(null, fixture.raw, { "content-type": "application/x-protobuf" })).status).toBe(401);
    expect((await post("tlt_" + "A".repeat(38), fixture.raw, { "content-type": "application/x-protobuf" })).status).toBe(401);
    expect((await post(p.apiKey, fixture.raw, { "content-type": "text/plain" })).status).toBe(415);
    expect((await post(p.apiKey, Buffer.from([0x0a, 0xff, 0xff, 0xff, 0x0f, 0x01]), { "content-type": "application/x-protobuf" })).status).toBe(400);
    expect((await post(p.apiKey, "{not json", { "content-type": "application/json" })).status).toBe(400);
    expect(await prisma.event.count({ where: { projectId: p.id } })).toBe(0);
  });
});
