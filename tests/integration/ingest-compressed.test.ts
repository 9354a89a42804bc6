import zlib from "node:zlib";
import { afterEach, describe, expect, it } from "vitest";
import { POST as postBatch } from "@/app/api/events/batch/route";
import { POST as postEvent } from "@/app/api/events/route";
import { prisma } from "@/lib/db/client";
import { stubEnv, unstubEnvs } from "@/tests/helpers/env";
import { brotliBomb, deflateBomb, gzipBomb } from "@/tests/fixtures/sentry/bombs";
import { countEvents, makeProject } from "@/tests/helpers/ingest";

/** POST /api/events and /api/events/batch with a Content-Encoding (SPEC "Sentry SDK compatibility": here too). */

afterEach(() => unstubEnvs());

const noParams = { params: Promise.resolve({}) };
const compress: Record<string, (b: Buffer) => Buffer> = {
  gzip: (b) => zlib.gzipSync(b),
  deflate: (b) => zlib.deflateSync(b),
  "deflate (raw)": (b) => zlib.deflateRawSync(b),
  br: (b) => zlib.brotliCompressSync(b),
};
const headerOf = (name: string) => name.replace(" (raw)", "");

async function send(path: "/api/events" | "/api/events/batch", key: string, body: Buffer, coding: string | null) {
  const headers: Record<string, string> = { "content-type": "application/json", authorization: `Bearer ${key}` };
  if (coding !== null) headers["content-encoding"] = coding;
  const request = new Request(`http://localhost${path}`, { method: "POST", headers, body: new Uint8Array(body) });
  const res = await (path === "/api/events" ? postEvent : postBatch)(request, noParams);
  return { status: res.status, body: await res.json() };
}

describe("compressed bodies on the native routes", () => {
  it("gzip, deflate (zlib and raw) and br bodies are stored as the same event", async () => {
    const p = await makeProject();
    for (const [name, encode] of Object.entries(compress)) {
      const event = { level: "warn", message: `compressed with ${name} ✓`, projectId: p.id, context: { coding: name } };
      const { status, body } = await send("/api/events", p.apiKey, encode(Buffer.from(JSON.stringify(event))), headerOf(name));
      expect(status, name).toBe(201);
      const stored = await prisma.event.findUniqueOrThrow({ where: { id: body.id } });
      expect([stored.message, stored.context]).toEqual([event.message, { coding: name }]);
    }
  });

  it("a compressed batch is stored whole", async () => {
    const p = await makeProject();
    const events = Array.from({ length: 200 }, (_, i) => ({ level: "info", message: `batch ${i}`, projectId: p.id }));
    const { status, body } = await send("/api/events/batch", p.apiKey, zlib.gzipSync(Buffer.from(JSON.stringify({ events }))), "gzip");
    expect(status).toBe(201);
    expect(body.ids).toHaveLength(200);
    expect(await countEvents(p.id)).toBe(200);
  });

  it.each([
    ["gzip", () => gzipBomb(1024)],
    ["deflate", () => deflateBomb(1024)],
    ["br", () => brotliBomb()],
  ])("a %s bomb (1 GiB of zeros) is a 413 on both routes, and nothing is stored", async (coding, make) => {
    stubEnv("INGEST_MAX_BODY_BYTES", String(2 * 1024 * 1024));
    stubEnv("INGEST_BATCH_MAX_BODY_BYTES", String(2 * 1024 * 1024));
    const p = await makeProject();
    for (const path of ["/api/events", "/api/events/batch"] as const) {
      const { status, body } = await send(path, p.apiKey, make(), coding);
      expect([status, body.code], path).toEqual([413, "payload_too_large"]);
      expect(body.detail).toMatch(/decodes to more than the limit/);
    }
    expect(await countEvents(p.id)).toBe(0);
  });

  it("a corrupt or truncated stream is a 400, an unknown coding a 415, and nothing is stored", async () => {
    const p = await makeProject();
    const json = Buffer.from(JSON.stringify({ level: "error", message: "cut", projectId: p.id, context: { pad: "y".repeat(2000) } }));
    const gzip = zlib.gzipSync(json);
    const corrupt = await send("/api/events", p.apiKey, gzip.subarray(0, gzip.length - 20), "gzip");
    expect([corrupt.status, corrupt.body.code]).toEqual([400, "invalid_json"]);
    const plainLabelled = await send("/api/events/batch", p.apiKey, json, "br");
    expect([plainLabelled.status, plainLabelled.body.code]).toEqual([400, "invalid_json"]);
    const unknown = await send("/api/events", p.apiKey, json, "zstd");
    expect([unknown.status, unknown.body.code]).toEqual([415, "unsupported_media_type"]);
    expect(await countEvents(p.id)).toBe(0);
  });

  it("the decoded body is held to the same JSON rules: invalid UTF-8 inside gzip is a 400", async () => {
    const p = await makeProject();
    const bytes = Buffer.concat([Buffer.from(`{"level":"info","message":"bad `), Buffer.from([0xc3, 0x28]), Buffer.from(`","projectId":"${p.id}"}`)]);
    const { status, body } = await send("/api/events", p.apiKey, zlib.gzipSync(bytes), "gzip");
    expect([status, body.code, body.detail]).toEqual([400, "invalid_json", "The request body is not valid UTF-8."]);
  });
});
