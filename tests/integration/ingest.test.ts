import { describe, expect, it } from "vitest";
import { prisma } from "@/lib/db/client";
import { rotateProjectKey } from "@/lib/keys/service";
import { generateApiKey } from "@/lib/keys/format";
import { countEvents, makeProject, sendBatch, sendEvent } from "@/tests/helpers/ingest";

const event = (projectId: string, extra: Record<string, unknown> = {}) => ({ level: "error", message: "Payment failed", projectId, ...extra });

describe("POST /api/events", () => {
  it("stores an event and answers 201 {id, receivedAt} after the commit", async () => {
    const p = await makeProject();
    const before = Date.now();
    const { status, body, res } = await sendEvent(p.apiKey, event(p.id, { context: { orderId: 42, tags: ["a"] }, timestamp: "2026-01-02T03:04:05Z" }));
    expect(status).toBe(201);
    expect(res.headers.get("content-type")).toBe("application/json");
    expect(Object.keys(body).sort()).toEqual(["id", "receivedAt"]);
    expect(new Date(body.receivedAt).getTime()).toBeGreaterThanOrEqual(before - 5);
    const row = await prisma.event.findUniqueOrThrow({ where: { id: body.id } });
    expect(row).toMatchObject({ projectId: p.id, level: "error", message: "Payment failed", context: { orderId: 42, tags: ["a"] } });
    expect(row.timestamp?.toISOString()).toBe("2026-01-02T03:04:05.000Z");
    expect(row.receivedAt.toISOString()).toBe(body.receivedAt);
  });

  it("stores unix-millisecond timestamps and no timestamp as null", async () => {
    const p = await makeProject();
    const a = await sendEvent(p.apiKey, event(p.id, { timestamp: 1767225600000 }));
    const b = await sendEvent(p.apiKey, event(p.id));
    expect((await prisma.event.findUniqueOrThrow({ where: { id: a.body.id } })).timestamp?.toISOString()).toBe("2026-01-01T00:00:00.000Z");
    expect((await prisma.event.findUniqueOrThrow({ where: { id: b.body.id } })).timestamp).toBeNull();
  });

  it("keeps unicode, quotes and JSON of every type intact", async () => {
    const p = await makeProject();
    const context = { s: "é😀\"'\\\n", n: 1.5, neg: -0.25, big: 9007199254740991, t: true, f: false, z: null, arr: [1, "2", { x: [] }], empty: {} };
    const { body } = await sendEvent(p.apiKey, event(p.id, { message: "Ünïcödé ✓ 😀", context }));
    const row = await prisma.event.findUniqueOrThrow({ where: { id: body.id } });
    expect(row.message).toBe("Ünïcödé ✓ 😀");
    expect(row.context).toEqual(context);
  });

  describe("authentication", () => {
    it("401 missing_api_key without a usable Authorization header", async () => {
      const p = await makeProject();
      for (const headers of [{} as Record<string, string>, { authorization: "Basic abc" }, { authorization: "Bearer" }, { authorization: `Token ${p.apiKey}` }]) {
        const { status, body } = await sendEvent(null, event(p.id), { headers });
        expect(status).toBe(401);
        expect(body.code).toBe("missing_api_key");
      }
      expect(await countEvents(p.id)).toBe(0);
    });

    it("401 invalid_api_key, the same answer for unknown, malformed and revoked keys", async () => {
      const p = await makeProject();
      const oldKey = p.apiKey;
      expect((await sendEvent(oldKey, event(p.id))).status).toBe(201); // cached now
      const newKey = await rotateProjectKey(p.id);
      const answers = [];
      for (const key of [generateApiKey(), "tlt_short", "not-a-key", oldKey, oldKey.slice(0, -1) + "0"]) {
        const { status, body, res } = await sendEvent(key, event(p.id));
        expect(status).toBe(401);
        answers.push({ body, auth: res.headers.get("www-authenticate") });
      }
      expect(new Set(answers.map((a) => JSON.stringify(a))).size).toBe(1);
      expect(answers[0]!.body.code).toBe("invalid_api_key");
      expect(JSON.stringify(answers[0])).not.toContain("tlt_");
      // The rotated key works at once; only the first event was stored.
      expect((await sendEvent(newKey, event(p.id))).status).toBe(201);
      expect(await countEvents(p.id)).toBe(2);
    });

    it("403 project_mismatch when the key belongs to another project, revealing nothing", async () => {
      const mine = await makeProject();
      const theirs = await makeProject();
      const intoTheirs = await sendEvent(mine.apiKey, event(theirs.id));
      const intoNowhere = await sendEvent(mine.apiKey, event("no-such-project"));
      expect(intoTheirs.status).toBe(403);
      expect(intoTheirs.body.code).toBe("project_mismatch");
      expect(intoNowhere.body).toEqual(intoTheirs.body);
      expect(await countEvents(theirs.id)).toBe(0);
      expect(await countEvents(mine.id)).toBe(0);
      // And the batch route: one foreign event refuses the whole batch.
      const batch = await sendBatch(mine.apiKey, { events: [event(mine.id), event(theirs.id)] });
      expect(batch.status).toBe(403);
      expect(await countEvents(mine.id)).toBe(0);
      expect(await countEvents(theirs.id)).toBe(0);
    });
  });

  describe("body handling", () => {
    it("415 for a non-JSON content type", async () => {
      const p = await makeProject();
      const { status, body } = await sendEvent(p.apiKey, event(p.id), { headers: { "content-type": "text/plain" } });
      expect(status).toBe(415);
      expect(body.code).toBe("unsupported_media_type");
    });

    it("413 for a body over 256 KiB, and 201 just under it", async () => {
      const p = await makeProject();
      const big = JSON.stringify(event(p.id, { context: { pad: "x".repeat(256 * 1024) } }));
      const { status, body } = await sendEvent(p.apiKey, null, { raw: big });
      expect(status).toBe(413);
      expect(body.code).toBe("payload_too_large");
      const fits = JSON.stringify(event(p.id, { context: { pad: "" } }));
      const padded = fits.replace('"pad":""', `"pad":"${"y".repeat(256 * 1024 - fits.length)}"`);
      expect(Buffer.byteLength(padded)).toBe(256 * 1024);
      expect((await sendEvent(p.apiKey, null, { raw: padded })).status).toBe(201);
      expect(await countEvents(p.id)).toBe(1);
    });

    it("400 invalid_json for malformed JSON", async () => {
      const p = await makeProject();
      for (const raw of ['{"level": "error",', "nope", ""]) {
        const { status, body } = await sendEvent(p.apiKey, null, { raw });
        expect(status).toBe(400);
        expect(body.code).toBe("invalid_json");
      }
    });

    it("400 validation_failed listing every problem, storing nothing", async () => {
      const p = await makeProject();
      const { status, body } = await sendEvent(p.apiKey, { level: "fatal", message: "", projectId: p.id, context: [], unknown: 1, msg: "a\u0000" });
      expect(status).toBe(400);
      expect(body.code).toBe("validation_failed");
      expect(body.errors.map((e: { path: string }) => e.path).sort()).toEqual(["context", "level", "message", "msg", "msg", "unknown"].sort());
      expect(await countEvents(p.id)).toBe(0);
    });
  });

  describe("Idempotency-Key", () => {
    it("a retry returns the first answer and stores nothing new", async () => {
      const p = await makeProject();
      const first = await sendEvent(p.apiKey, event(p.id), { headers: { "idempotency-key": "order-1" } });
      const retry = await sendEvent(p.apiKey, event(p.id, { message: "changed" }), { headers: { "idempotency-key": "order-1" } });
      expect(first.status).toBe(201);
      expect(retry.status).toBe(201);
      expect(retry.body).toEqual(first.body);
      expect(retry.res.headers.get("idempotent-replayed")).toBe("true");
      expect(await countEvents(p.id)).toBe(1);
      const other = await sendEvent(p.apiKey, event(p.id), { headers: { "idempotency-key": "order-2" } });
      expect(other.body.id).not.toBe(first.body.id);
      expect(await countEvents(p.id)).toBe(2);
    });

    it("concurrent retries store one event", async () => {
      const p = await makeProject();
      const answers = await Promise.all(
        Array.from({ length: 8 }, () => sendEvent(p.apiKey, event(p.id), { headers: { "idempotency-key": "same" } })),
      );
      expect(answers.every((a) => a.status === 201)).toBe(true);
      expect(new Set(answers.map((a) => a.body.id)).size).toBe(1);
      expect(await countEvents(p.id)).toBe(1);
    });

    it("is scoped to the project and expires after 24 hours", async () => {
      const a = await makeProject();
      const b = await makeProject();
      const ea = await sendEvent(a.apiKey, event(a.id), { headers: { "idempotency-key": "k" } });
      const eb = await sendEvent(b.apiKey, event(b.id), { headers: { "idempotency-key": "k" } });
      expect(ea.body.id).not.toBe(eb.body.id);
      await prisma.idempotencyKey.updateMany({ where: { projectId: a.id }, data: { createdAt: new Date(Date.now() - 25 * 3600_000) } });
      const later = await sendEvent(a.apiKey, event(a.id), { headers: { "idempotency-key": "k" } });
      expect(later.status).toBe(201);
      expect(later.body.id).not.toBe(ea.body.id);
      expect(await countEvents(a.id)).toBe(2);
    });

    it("rejects a malformed key with 400 and stores nothing", async () => {
      const p = await makeProject();
      const { status, body } = await sendEvent(p.apiKey, event(p.id), { headers: { "idempotency-key": "x".repeat(201) } });
      expect(status).toBe(400);
      expect(body.errors[0].path).toBe("Idempotency-Key");
      expect(await countEvents(p.id)).toBe(0);
    });

    it("works for batches too", async () => {
      const p = await makeProject();
      const body = { events: [event(p.id), event(p.id)] };
      const first = await sendBatch(p.apiKey, body, { headers: { "idempotency-key": "batch-1" } });
      const retry = await sendBatch(p.apiKey, body, { headers: { "idempotency-key": "batch-1" } });
      expect(retry.body).toEqual(first.body);
      expect(await countEvents(p.id)).toBe(2);
    });
  });

  it("answers concurrent requests (group commit) with one row per 201", async () => {
    const p = await makeProject();
    const answers = await Promise.all(Array.from({ length: 300 }, (_, i) => sendEvent(p.apiKey, event(p.id, { message: `m${i}` }))));
    expect(answers.filter((a) => a.status === 201)).toHaveLength(300);
    expect(new Set(answers.map((a) => a.body.id)).size).toBe(300);
    expect(await countEvents(p.id)).toBe(300);
    const messages = new Set((await prisma.event.findMany({ where: { projectId: p.id }, select: { message: true } })).map((r) => r.message));
    expect(messages.size).toBe(300);
  });

  it("sends RateLimit headers on success", async () => {
    const p = await makeProject();
    const { res } = await sendEvent(p.apiKey, event(p.id));
    expect(res.headers.get("ratelimit-limit")).toBe("1000");
    expect(Number(res.headers.get("ratelimit-remaining"))).toBeGreaterThan(0);
  });
});

describe("POST /api/events/batch", () => {
  it("stores 1 to 1,000 events and answers 201 {ids, receivedAt}", async () => {
    const p = await makeProject();
    const events = Array.from({ length: 1000 }, (_, i) => event(p.id, { message: `e${i}`, level: ["error", "warn", "info"][i % 3] }));
    const { status, body } = await sendBatch(p.apiKey, { events });
    expect(status).toBe(201);
    expect(body.ids).toHaveLength(1000);
    expect(typeof body.receivedAt).toBe("string");
    expect(await countEvents(p.id)).toBe(1000);
  });

  it("is all or nothing: one bad event refuses the batch with its path", async () => {
    const p = await makeProject();
    const events = [event(p.id), event(p.id), event(p.id), event(p.id, { level: "fatal" }), event(p.id, { extra: true })];
    const { status, body } = await sendBatch(p.apiKey, { events });
    expect(status).toBe(400);
    expect(body.errors).toEqual([
      { path: "events.3.level", message: "Must be one of error, warn, info." },
      { path: "events.4.extra", message: "Unknown field." },
    ]);
    expect(await countEvents(p.id)).toBe(0);
  });

  it("refuses more than 1,000 events or an empty list", async () => {
    const p = await makeProject();
    expect((await sendBatch(p.apiKey, { events: Array(1001).fill(event(p.id)) })).status).toBe(400);
    expect((await sendBatch(p.apiKey, { events: [] })).status).toBe(400);
    expect(await countEvents(p.id)).toBe(0);
  });

  it("accepts up to 1 MiB and refuses more with 413", async () => {
    const p = await makeProject();
    const events = Array.from({ length: 5 }, () => event(p.id, { context: { pad: "x".repeat(250 * 1024) } }));
    const { status } = await sendBatch(p.apiKey, { events });
    expect(status).toBe(413);
    const fits = Array.from({ length: 3 }, () => event(p.id, { context: { pad: "x".repeat(250 * 1024) } }));
    expect((await sendBatch(p.apiKey, { events: fits })).status).toBe(201);
    expect(await countEvents(p.id)).toBe(3);
  });
});
