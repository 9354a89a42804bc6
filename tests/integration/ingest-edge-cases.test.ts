import { describe, expect, it } from "vitest";
import { prisma } from "@/lib/db/client";
import { countEvents, makeProject, sendBatch, sendEvent } from "@/tests/helpers/ingest";

const event = (projectId: string, extra: Record<string, unknown> = {}) => ({ level: "warn", message: "edge", projectId, ...extra });

describe("keys revoked elsewhere", () => {
  it("a key rotated by another server instance stops working at once, even while cached here", async () => {
    const p = await makeProject();
    expect((await sendEvent(p.apiKey, event(p.id))).status).toBe(201); // the key is now cached
    // Another instance rotates: only the database knows.
    await prisma.apiKey.updateMany({ where: { projectId: p.id }, data: { revokedAt: new Date() } });
    const refused = await sendEvent(p.apiKey, event(p.id));
    expect(refused.status).toBe(401);
    expect(refused.body.code).toBe("invalid_api_key");
    expect((await sendEvent(p.apiKey, event(p.id), { headers: { "idempotency-key": "after-revoke" } })).status).toBe(401);
    expect((await sendBatch(p.apiKey, { events: [event(p.id)] })).status).toBe(401);
    expect(await countEvents(p.id)).toBe(1);
  });

  it("a project deleted by another instance answers 401, not 500", async () => {
    const p = await makeProject();
    expect((await sendEvent(p.apiKey, event(p.id))).status).toBe(201);
    await prisma.project.delete({ where: { id: p.id } });
    const { status, body } = await sendEvent(p.apiKey, event(p.id));
    expect(status).toBe(401);
    expect(body.code).toBe("invalid_api_key");
  });

  it("one revoked key in a shared commit does not fail the other requests", async () => {
    const a = await makeProject();
    const b = await makeProject();
    await sendEvent(a.apiKey, event(a.id));
    await prisma.apiKey.updateMany({ where: { projectId: a.id }, data: { revokedAt: new Date() } });
    const answers = await Promise.all([
      ...Array.from({ length: 10 }, () => sendEvent(b.apiKey, event(b.id))),
      sendEvent(a.apiKey, event(a.id)),
    ]);
    expect(answers.slice(0, 10).every((x) => x.status === 201)).toBe(true);
    expect(answers[10]!.status).toBe(401);
    expect(await countEvents(b.id)).toBe(10);
    expect(await countEvents(a.id)).toBe(1);
  });
});

describe("values PostgreSQL cannot store are refused up front (400, not 500)", () => {
  it("timestamps outside the years 0001-9999", async () => {
    const p = await makeProject();
    for (const timestamp of ["0000-01-01T00:00:00Z", "+010000-01-01T00:00:00Z", 8640000000000000, 253402300800000]) {
      const { status, body } = await sendEvent(p.apiKey, event(p.id, { timestamp }));
      expect(status, String(timestamp)).toBe(400);
      expect(body.errors[0].path).toBe("timestamp");
    }
    const last = await sendEvent(p.apiKey, event(p.id, { timestamp: "9999-12-31T23:59:59.999Z" }));
    expect(last.status).toBe(201);
    const first = await sendEvent(p.apiKey, event(p.id, { timestamp: "0001-01-01T00:00:00Z" }));
    expect(first.status).toBe(201);
    expect((await prisma.event.findUniqueOrThrow({ where: { id: first.body.id } })).timestamp?.toISOString()).toBe("0001-01-01T00:00:00.000Z");
    expect(await countEvents(p.id)).toBe(2);
  });

  it("lone UTF-16 surrogates in values and keys", async () => {
    const p = await makeProject();
    const raws = [
      `{"level":"info","message":"bad \\ud800","projectId":"${p.id}"}`,
      `{"level":"info","message":"ok","projectId":"${p.id}","context":{"a":"\\udc00"}}`,
      `{"level":"info","message":"ok","projectId":"${p.id}","context":{"\\ud800":1}}`,
    ];
    for (const raw of raws) {
      const { status, body } = await sendEvent(p.apiKey, null, { raw });
      expect(status, raw).toBe(400);
      expect(body.code).toBe("validation_failed");
    }
    // A proper surrogate pair is fine.
    expect((await sendEvent(p.apiKey, null, { raw: `{"level":"info","message":"\\ud83d\\ude00","projectId":"${p.id}"}` })).status).toBe(201);
    expect(await countEvents(p.id)).toBe(1);
  });
});

it("keeps a context key named __proto__ instead of dropping it", async () => {
  const p = await makeProject();
  const raw = `{"level":"info","message":"proto","projectId":"${p.id}","context":{"__proto__":{"x":1},"a":1}}`;
  const { status, body } = await sendEvent(p.apiKey, null, { raw });
  expect(status).toBe(201);
  const row = await prisma.event.findUniqueOrThrow({ where: { id: body.id } });
  expect(Object.keys(row.context as object).sort()).toEqual(["__proto__", "a"]);
  expect(Object.getOwnPropertyDescriptor(row.context, "__proto__")?.value).toEqual({ x: 1 });
});

it("checks the content type before the Idempotency-Key header", async () => {
  const p = await makeProject();
  const { status } = await sendEvent(p.apiKey, event(p.id), { headers: { "content-type": "text/plain", "idempotency-key": "" } });
  expect(status).toBe(415);
});

it("lists envelope and per-event problems of a batch together", async () => {
  const p = await makeProject();
  const { status, body } = await sendBatch(p.apiKey, { events: [event(p.id), event(p.id, { level: "nope" })], extra: true });
  expect(status).toBe(400);
  expect(body.errors).toEqual([
    { path: "extra", message: "Unknown field." },
    { path: "events.1.level", message: "Must be one of error, warn, info." },
  ]);
});

it("answers a wrong method with 405 problem details and an Allow header", async () => {
  const { GET, DELETE } = await import("@/app/api/events/route");
  const res = await GET(new Request("http://localhost/api/events"), { params: Promise.resolve({}) });
  expect(res.status).toBe(405);
  expect(res.headers.get("allow")).toBe("POST");
  expect(res.headers.get("content-type")).toBe("application/problem+json");
  expect(await res.json()).toMatchObject({ code: "method_not_allowed", detail: "GET is not supported here; use POST." });
  expect((await DELETE(new Request("http://localhost/api/events", { method: "DELETE" }), { params: Promise.resolve({}) })).status).toBe(405);
});
