import zlib from "node:zlib";
import { describe, expect, it } from "vitest";
import { parseContentEncoding, readRequestBody, readRequestBodyPrefix } from "@/lib/http/body-decoding";
import { AppError } from "@/lib/http/errors";
import { readJsonBody } from "@/lib/http/read-json";
import { brotliBomb, deflateBomb, gzipBomb } from "@/tests/fixtures/sentry/bombs";

const MIB = 1024 * 1024;
const text = JSON.stringify({ level: "error", message: "compressed ünïcödé ✓", context: { n: 1 } });
const plain = Buffer.from(text);

function request(body: Buffer | ReadableStream<Uint8Array> | null, headers: Record<string, string> = {}): Request {
  const init = { method: "POST", headers, body: Buffer.isBuffer(body) ? new Uint8Array(body) : body, duplex: "half" };
  return new Request("http://localhost/api/events", init as RequestInit);
}

/** A body that arrives chunk by chunk, one per macrotask, counting what was pulled. */
function streamed(chunks: Iterable<Uint8Array>) {
  const iterator = chunks[Symbol.iterator]();
  const counter = { pulled: 0 };
  const stream = new ReadableStream<Uint8Array>({
    async pull(controller) {
      await new Promise((resolve) => setImmediate(resolve));
      const next = iterator.next();
      if (next.done) return controller.close();
      counter.pulled += next.value.byteLength;
      controller.enqueue(next.value);
    },
  });
  return { stream, counter };
}

function* split(buffer: Buffer, size: number) {
  for (let i = 0; i < buffer.length; i += size) yield buffer.subarray(i, i + size);
}

async function refusal(promise: Promise<unknown>): Promise<AppError> {
  const error = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(AppError);
  return error as AppError;
}

const limits = { maxBytes: 256 * 1024, maxDecodedBytes: MIB };

describe("Content-Encoding", () => {
  it("reads gzip, x-gzip, deflate (zlib-wrapped and raw), br and identity bodies to the same bytes", async () => {
    const bodies: Array<[string, Buffer]> = [
      ["gzip", zlib.gzipSync(plain)],
      ["x-gzip", zlib.gzipSync(plain)],
      ["GZip", zlib.gzipSync(plain)],
      ["deflate", zlib.deflateSync(plain)],
      ["deflate", zlib.deflateRawSync(plain)],
      ["br", zlib.brotliCompressSync(plain)],
      ["identity", plain],
      ["", plain], // sentry-ruby sends an empty header for small bodies
      [" identity , gzip", zlib.gzipSync(plain)],
    ];
    for (const [coding, body] of bodies) {
      const decoded = await readRequestBody(request(body, { "content-encoding": coding }), limits);
      expect(decoded.toString("utf8"), coding).toBe(text);
    }
  });

  it("decodes a body that arrives in one-byte chunks (the deflate header split too)", async () => {
    for (const [coding, body] of [["gzip", zlib.gzipSync(plain)], ["deflate", zlib.deflateSync(plain)], ["deflate", zlib.deflateRawSync(plain)], ["br", zlib.brotliCompressSync(plain)]] as const) {
      const { stream } = streamed(split(body, 1));
      expect((await readRequestBody(request(stream, { "content-encoding": coding }), limits)).toString("utf8")).toBe(text);
    }
  });

  it("refuses an unknown coding, or two stacked, with 415 and the codings it accepts", async () => {
    for (const coding of ["compress", "zstd", "x-unknown", "deflate, gzip", "gzip, gzip"]) {
      const error = await refusal(readRequestBody(request(plain, { "content-encoding": coding }), limits));
      expect([error.status, error.code]).toEqual([415, "unsupported_media_type"]);
      expect(error.headers?.["Accept-Encoding"]).toBe("gzip, deflate, br, identity");
    }
    expect(() => parseContentEncoding("zstd")).toThrow(/zstd/);
    expect(parseContentEncoding(null)).toBeNull();
    expect(parseContentEncoding("identity, br")).toBe("br");
  });

  it("answers 400 for a body that does not decode: not compressed at all, a wrong header, cut mid-way", async () => {
    const gzip = zlib.gzipSync(Buffer.from(text.repeat(50)));
    const cases: Array<[string, Buffer, RegExp]> = [
      ["gzip", plain, /not valid gzip data/],
      ["br", plain, /not valid br data/],
      ["deflate", Buffer.from([0xff, 0xff, 0xff, 0xff, 0xff]), /not valid deflate data/],
      ["gzip", gzip.subarray(0, gzip.length / 2), /ends before the compressed stream does/],
      ["deflate", Buffer.from([0x78]), /not valid deflate data/],
    ];
    for (const [coding, body, detail] of cases) {
      const error = await refusal(readRequestBody(request(body, { "content-encoding": coding }), limits));
      expect([error.status, error.code], coding).toEqual([400, "invalid_json"]);
      expect(error.message).toMatch(detail);
    }
  });

  it("an empty compressed body is an empty body", async () => {
    const empty = Buffer.alloc(0);
    for (const [coding, body] of [["gzip", zlib.gzipSync(empty)], ["deflate", zlib.deflateSync(empty)], ["br", zlib.brotliCompressSync(empty)]] as const) {
      expect((await readRequestBody(request(body, { "content-encoding": coding }), limits)).length, coding).toBe(0);
    }
    expect((await readRequestBody(request(null, { "content-encoding": "gzip" }), limits)).length).toBe(0);
  });
});

describe("limits", () => {
  it("refuses a declared Content-Length past the limit as sent before reading", async () => {
    const error = await refusal(readRequestBody(request(Buffer.alloc(300 * 1024), { "content-length": String(300 * 1024) }), limits));
    expect([error.status, error.code]).toEqual([413, "payload_too_large"]);
    expect(error.message).toContain(String(256 * 1024));
  });

  it("an identity body is held to the smaller of the two limits, counted while reading", async () => {
    const { stream } = streamed(split(Buffer.alloc(200 * 1024), 16 * 1024));
    const error = await refusal(readRequestBody(request(stream), { maxBytes: MIB, maxDecodedBytes: 100 * 1024 }));
    expect([error.status, error.message]).toEqual([413, `The request body is larger than the limit of ${100 * 1024} bytes.`]);
  });

  it("a compressed body past the limit as sent is a 413 even when it would decode small enough", async () => {
    const noise = Buffer.from(Array.from({ length: 300 * 1024 }, (_, i) => (i * 7919) % 251));
    const body = zlib.gzipSync(noise, { level: 0 });
    const { stream } = streamed(split(body, 16 * 1024));
    const error = await refusal(readRequestBody(request(stream, { "content-encoding": "gzip" }), { maxBytes: 256 * 1024, maxDecodedBytes: 10 * MIB }));
    expect([error.status, error.message]).toEqual([413, `The request body is larger than the limit of ${256 * 1024} bytes.`]);
  });

  it("accepts a compressed body that decodes to more than the limit as sent, up to the decoded limit", async () => {
    const body = gzipBomb(1); // 1 MiB of zeros in about 1 KB
    expect((await readRequestBody(request(body, { "content-encoding": "gzip" }), { maxBytes: 4096, maxDecodedBytes: MIB })).length).toBe(MIB);
    const error = await refusal(readRequestBody(request(gzipBomb(1), { "content-encoding": "gzip" }), { maxBytes: 4096, maxDecodedBytes: MIB - 1 }));
    expect([error.status, error.message]).toEqual([413, `The request body decodes to more than the limit of ${MIB - 1} bytes.`]);
  });

  it.each([
    ["gzip", () => gzipBomb(1024)],
    ["deflate", () => deflateBomb(1024)],
    ["deflate", () => deflateBomb(1024, { raw: true })],
    ["br", () => brotliBomb()],
  ])("a %s bomb (1 GiB of zeros) stops at the decoded limit, having read only the start of it", async (coding, make) => {
    const bomb = make();
    expect(bomb.length).toBeLessThan(1.1 * MIB);
    const { stream, counter } = streamed(split(bomb, 1024));
    const error = await refusal(readRequestBody(request(stream, { "content-encoding": coding }), { maxBytes: 1024 * MIB, maxDecodedBytes: MIB }));
    expect([error.status, error.code]).toEqual([413, "payload_too_large"]);
    expect(error.message).toBe(`The request body decodes to more than the limit of ${MIB} bytes.`);
    // About 1 KB of compressed input per MiB decoded: what was read had to
    // stop early (the rest is drained unread afterwards, so that the client
    // sees the answer).
    expect(counter.pulled).toBeLessThan(256 * 1024);
  });

  it("a bomb that never ends is stopped too: the decoded limit, not the end of the body, ends the reading", async () => {
    const member = zlib.gzipSync(Buffer.alloc(MIB));
    function* forever() {
      for (;;) yield member;
    }
    const { stream } = streamed(forever());
    const error = await refusal(readRequestBody(request(stream, { "content-encoding": "gzip" }), { maxBytes: 1024 ** 3, maxDecodedBytes: 4 * MIB }));
    expect(error.message).toBe(`The request body decodes to more than the limit of ${4 * MIB} bytes.`);
    await stream.cancel().catch(() => {});
  });

  it("a client that hangs up mid-body is the stream's own error, not a 400", async () => {
    const gone = new Error("socket hang up");
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(zlib.gzipSync(plain).subarray(0, 10));
      },
      pull(controller) {
        controller.error(gone);
      },
    });
    await expect(readRequestBody(request(stream, { "content-encoding": "gzip" }), limits)).rejects.toBe(gone);
  });
});

describe("readRequestBodyPrefix", () => {
  const body = Buffer.from(Array.from({ length: 3 * MIB }, (_, i) => 97 + (i % 26)));
  const limits = { maxBytes: 8 * MIB, maxDecodedBytes: MIB };

  it.each([["identity"], ["gzip"], ["deflate"], ["br"]])("cuts a %s body at the decoded limit: its first bytes exactly, and says so", async (coding) => {
    const encode = { identity: (b: Buffer) => b, gzip: zlib.gzipSync, deflate: zlib.deflateSync, br: zlib.brotliCompressSync }[coding]!;
    const { stream } = streamed(split(encode(body), 64 * 1024));
    const headers: Record<string, string> = coding === "identity" ? { "content-length": String(body.length) } : { "content-encoding": coding };
    const read = await readRequestBodyPrefix(request(stream, headers), limits);
    expect(read.truncated).toBe(true);
    expect(read.body.equals(body.subarray(0, MIB))).toBe(true);
    const small = await readRequestBodyPrefix(request(encode(body.subarray(0, 1000)), coding === "identity" ? {} : { "content-encoding": coding }), limits);
    expect([small.truncated, small.body.equals(body.subarray(0, 1000))]).toEqual([false, true]);
  });

  it("a bomb is cut having read only the start of it; a compressed body past the limit as sent is still a 413", async () => {
    const { stream, counter } = streamed(split(gzipBomb(1024), 1024));
    const read = await readRequestBodyPrefix(request(stream, { "content-encoding": "gzip" }), { maxBytes: 1024 * MIB, maxDecodedBytes: MIB });
    expect([read.truncated, read.body.length]).toEqual([true, MIB]);
    expect(counter.pulled).toBeLessThan(256 * 1024);
    const error = await refusal(readRequestBodyPrefix(request(zlib.gzipSync(body), { "content-encoding": "gzip" }), { maxBytes: 1024, maxDecodedBytes: MIB }));
    expect([error.status, error.code]).toEqual([413, "payload_too_large"]);
  });
});

describe("readJsonBody", () => {
  const json = (body: Buffer, coding: string) => request(body, { "content-type": "application/json", "content-encoding": coding });

  it("parses a compressed JSON body strictly, as an uncompressed one", async () => {
    const body = await readJsonBody(json(zlib.gzipSync(Buffer.from('{"a":1,"a":2,"big":12345678901234567890}')), "gzip"), 1024);
    expect(body.problems.map((p) => p.path)).toEqual(["a", "big"]);
  });

  it("holds the decoded body to maxDecodedBytes, which defaults to the limit as sent", async () => {
    const text = Buffer.from(JSON.stringify({ message: "x".repeat(8000) }));
    const gzip = zlib.gzipSync(text);
    expect(gzip.length).toBeLessThan(2048);
    const refused = await refusal(readJsonBody(json(gzip, "gzip"), 2048));
    expect([refused.status, refused.message]).toEqual([413, "The request body decodes to more than the limit of 2048 bytes."]);
    const read = await readJsonBody(json(gzip, "gzip"), 2048, { maxDecodedBytes: 16 * 1024 });
    expect((read.value as { message: string }).message).toHaveLength(8000);
  });
});
