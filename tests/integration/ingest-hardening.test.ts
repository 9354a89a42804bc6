import { afterEach, describe, expect, it, vi } from "vitest";
import { GET as summarizeRoute } from "@/app/api/ai/summarize/route";
import { prisma } from "@/lib/db/client";
import { CLIENT_ADDRESS_HEADER } from "@/lib/http/client-address";
import { generateApiKey } from "@/lib/keys/format";
import { stubEnv, unstubEnvs } from "@/tests/helpers/env";
import { countEvents, ingestRequest, makeProject, sendBatch, sendEvent } from "@/tests/helpers/ingest";
import { apiRequest, callRoute, createUserWithSession } from "@/tests/helpers/session";

afterEach(() => {
  unstubEnvs();
  vi.restoreAllMocks();
});

let addressSeq = 0;
const newAddress = () => `203.0.113.${++addressSeq % 250}-${process.pid}-${Date.now()}`;
const from = (address: string) => ({ headers: { [CLIENT_ADDRESS_HEADER]: address } });
const event = (projectId: string, extra: Record<string, unknown> = {}) => ({ level: "error", message: "hardening", projectId, ...extra });

describe("forged keys", () => {
  it("an unknown key is looked up once, then remembered: repeating it costs no database read", async () => {
    stubEnv("AUTH_FAILURES_PER_MINUTE", "1000");
    const p = await makeProject();
    const lookups = vi.spyOn(prisma.apiKey, "findUnique");
    const forged = generateApiKey();
    const address = newAddress();
    for (let i = 0; i < 20; i++) {
      const { status, body } = await sendEvent(forged, event(p.id), from(address));
      expect([status, body.code]).toEqual([401, "invalid_api_key"]);
    }
    expect(lookups.mock.calls.filter(([args]) => JSON.stringify(args).includes("hash"))).toHaveLength(1);
  });

  it("a key of the right length with a wrong checksum is refused without a lookup, also while the real key is cached", async () => {
    stubEnv("AUTH_FAILURES_PER_MINUTE", "1000");
    const p = await makeProject();
    const address = newAddress();
    expect((await sendEvent(p.apiKey, event(p.id), from(address))).status).toBe(201); // cached from here on
    const lookups = vi.spyOn(prisma.apiKey, "findUnique");
    const last = p.apiKey.at(-1)!;
    const wrongChecksum = p.apiKey.slice(0, -1) + (last === "0" ? "1" : "0");
    const wrongRandom = p.apiKey.slice(0, 10) + (p.apiKey[10] === "a" ? "b" : "a") + p.apiKey.slice(11);
    for (const forged of [wrongChecksum, wrongRandom]) {
      expect(forged).toHaveLength(p.apiKey.length);
      const { status, body } = await sendEvent(forged, event(p.id), from(address));
      expect([status, body.code]).toEqual([401, "invalid_api_key"]);
    }
    expect(lookups).not.toHaveBeenCalled();
    // The control: a well-formed key that is not cached is looked up, once.
    expect((await sendEvent(generateApiKey(), event(p.id), from(address))).status).toBe(401);
    expect(lookups).toHaveBeenCalledTimes(1);
    expect((await sendEvent(p.apiKey, event(p.id), from(address))).status).toBe(201);
    expect(await countEvents(p.id)).toBe(2);
  });

  it("past AUTH_FAILURES_PER_MINUTE failures an address gets 429 with Retry-After and no lookup; other addresses are unaffected", async () => {
    stubEnv("AUTH_FAILURES_PER_MINUTE", "5");
    const p = await makeProject();
    const lookups = vi.spyOn(prisma.apiKey, "findUnique");
    const attacker = newAddress();
    const statuses: number[] = [];
    for (let i = 0; i < 40; i++) statuses.push((await sendEvent(generateApiKey(), event(p.id), from(attacker))).status);
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401]);
    expect(new Set(statuses.slice(5))).toEqual(new Set([429]));
    expect(lookups).toHaveBeenCalledTimes(5);

    const limited = await sendEvent(generateApiKey(), event(p.id), from(attacker));
    expect(limited.body.code).toBe("rate_limited");
    expect(Number(limited.res.headers.get("retry-after"))).toBeGreaterThan(0);
    // Malformed keys count too, and stay refused.
    expect((await sendEvent("tlt_nope", event(p.id), from(attacker))).status).toBe(429);

    const bystander = newAddress();
    expect((await sendEvent(generateApiKey(), event(p.id), from(bystander))).status).toBe(401);
    expect((await sendEvent(p.apiKey, event(p.id), from(bystander))).status).toBe(201);
    expect(await countEvents(p.id)).toBe(1);
  });

  it("concurrent forged keys from one address get exactly AUTH_FAILURES_PER_MINUTE lookups and 401s, the rest 429", async () => {
    stubEnv("AUTH_FAILURES_PER_MINUTE", "30");
    const p = await makeProject();
    const lookups = vi.spyOn(prisma.apiKey, "findUnique");
    const attacker = newAddress();
    const statuses = await Promise.all(Array.from({ length: 64 }, () => sendEvent(generateApiKey(), event(p.id), from(attacker)).then((r) => r.status)));
    expect(statuses.filter((s) => s === 401)).toHaveLength(30);
    expect(statuses.filter((s) => s === 429)).toHaveLength(34);
    expect(lookups.mock.calls.length).toBeLessThanOrEqual(30);
  });

  it("many concurrent requests with one uncached working key take none of the address's failure budget", async () => {
    stubEnv("AUTH_FAILURES_PER_MINUTE", "3");
    const p = await makeProject();
    const address = newAddress();
    const statuses = await Promise.all(Array.from({ length: 20 }, () => sendEvent(p.apiKey, event(p.id), from(address)).then((r) => r.status)));
    expect(new Set(statuses)).toEqual(new Set([201]));
  });

  it("forged keys from many addresses are bounded in lookups all together (AUTH_FAILED_LOOKUPS_PER_MINUTE), and a new client's real key still works", async () => {
    stubEnv("AUTH_FAILURES_PER_MINUTE", "30");
    stubEnv("AUTH_FAILED_LOOKUPS_PER_MINUTE", "50");
    const p = await makeProject();
    const lookups = vi.spyOn(prisma.apiKey, "findUnique");
    const addresses = Array.from({ length: 20 }, () => newAddress());
    const statuses: number[] = [];
    for (let round = 0; round < 10; round++) {
      statuses.push(...(await Promise.all(addresses.flatMap((a) => Array.from({ length: 10 }, () => sendEvent(generateApiKey(), event(p.id), from(a)).then((r) => r.status))))));
    }
    expect(statuses).toHaveLength(2000);
    expect(new Set(statuses)).toEqual(new Set([401, 429]));
    // The shared budget, then at most the first failure of each address.
    expect(lookups.mock.calls.length).toBeLessThanOrEqual(50 + addresses.length);
    // A client that has not failed, with a key no instance has cached, gets its lookup.
    const newcomer = newAddress();
    expect((await sendEvent(p.apiKey, event(p.id), from(newcomer))).status).toBe(201);
  });

  it("an IPv6 client is limited by its /64: forged keys from 2^64 addresses of one network share one budget", async () => {
    stubEnv("AUTH_FAILURES_PER_MINUTE", "5");
    const p = await makeProject();
    const lookups = vi.spyOn(prisma.apiKey, "findUnique");
    const net = `2001:db8:${(process.pid % 0xffff).toString(16)}:${(++addressSeq).toString(16)}`;
    const statuses: number[] = [];
    for (let i = 1; i <= 20; i++) statuses.push((await sendEvent(generateApiKey(), event(p.id), from(`${net}::${i.toString(16)}`))).status);
    expect(statuses).toEqual([...Array(5).fill(401), ...Array(15).fill(429)]);
    expect(lookups).toHaveBeenCalledTimes(5);
  });

  it("a working key already in use keeps working from an address that is being limited", async () => {
    stubEnv("AUTH_FAILURES_PER_MINUTE", "2");
    const p = await makeProject();
    const shared = newAddress(); // e.g. one NAT address for a real client and a misbehaving one
    expect((await sendEvent(p.apiKey, event(p.id), from(shared))).status).toBe(201);
    for (let i = 0; i < 5; i++) await sendEvent(generateApiKey(), event(p.id), from(shared));
    expect((await sendEvent(p.apiKey, event(p.id), from(shared))).status).toBe(201);
  });
});

describe("exact numbers and strict JSON at ingest", () => {
  it("refuses numbers that would not be stored exactly, naming the path; stores nothing", async () => {
    const p = await makeProject();
    for (const [raw, path] of [
      ['{"n":1e400}', "context.n"],
      ['{"deep":{"n":1e-400}}', "context.deep.n"],
      ['{"list":[1,12345678901234567890]}', "context.list.1"],
      ['{"n":-1e309}', "context.n"],
      // Stored JSON writes negative zero as 0.
      ['{"z":-0}', "context.z"],
      ['{"z":[1,-0.0]}', "context.z.1"],
    ] as const) {
      const body = `{"level":"error","message":"numbers","projectId":"${p.id}","context":${raw}}`;
      const { status, body: answer } = await sendEvent(p.apiKey, null, { raw: body });
      expect(status, raw).toBe(400);
      expect(answer.code).toBe("validation_failed");
      expect(answer.errors.map((e: { path: string }) => e.path)).toEqual([path]);
    }
    // Numbers that survive storage are kept as written.
    const ok = `{"level":"error","message":"numbers","projectId":"${p.id}","context":{"a":9007199254740991,"b":0.1,"c":-2.5e-8,"d":1e21}}`;
    const stored = await sendEvent(p.apiKey, null, { raw: ok });
    expect(stored.status).toBe(201);
    const row = await prisma.event.findUniqueOrThrow({ where: { id: stored.body.id } });
    expect(row.context).toEqual({ a: 9007199254740991, b: 0.1, c: -2.5e-8, d: 1e21 });
    expect(await countEvents(p.id)).toBe(1);
  });

  it("refuses duplicate object keys, at any depth", async () => {
    const p = await makeProject();
    const dup = `{"level":"error","message":"dup","projectId":"${p.id}","level":"info"}`;
    const nested = `{"level":"error","message":"dup","projectId":"${p.id}","context":{"user":{"id":1,"id":2}}}`;
    for (const [raw, path] of [[dup, "level"], [nested, "context.user.id"]] as const) {
      const { status, body } = await sendEvent(p.apiKey, null, { raw });
      expect(status).toBe(400);
      expect(body.code).toBe("validation_failed");
      expect(body.errors).toEqual([{ path, message: expect.stringMatching(/appears twice/) }]);
    }
    expect(await countEvents(p.id)).toBe(0);
  });

  it("accepts context nested exactly 32 levels and refuses 33", async () => {
    const p = await makeProject();
    const nest = (levels: number): unknown => (levels === 1 ? { leaf: true } : { d: nest(levels - 1) });
    expect((await sendEvent(p.apiKey, event(p.id, { context: nest(32) }))).status).toBe(201);
    const tooDeep = await sendEvent(p.apiKey, event(p.id, { context: nest(33) }));
    expect(tooDeep.status).toBe(400);
    expect((await sendBatch(p.apiKey, { events: [event(p.id, { context: nest(32) })] })).status).toBe(201);
    expect(await countEvents(p.id)).toBe(2);
  });
});

it("a batch with thousands of problems answers at most 100 of them and a count, in a small body", async () => {
  const p = await makeProject();
  const events = Array.from({ length: 1000 }, () => ({ level: "fatal", message: "", projectId: "x".repeat(200), extra: "y".repeat(300) }));
  const { POST: postBatch } = await import("@/app/api/events/batch/route");
  const batch = await postBatch(ingestRequest({ events }, { key: p.apiKey, path: "/api/events/batch" }), { params: Promise.resolve({}) });
  const text = await batch.text();
  expect(batch.status).toBe(400);
  const body = JSON.parse(text);
  expect(body.errors).toHaveLength(100);
  expect(body.detail).toMatch(/more/);
  expect(text.length).toBeLessThan(16_384);
  expect(await countEvents(p.id)).toBe(0);
});

it("Idempotency-Key at 200 concurrent clients: every answer 2xx, exactly one event per key", async () => {
  const p = await makeProject();
  stubEnv("INGEST_RATE_LIMIT", "0");
  const keys = Array.from({ length: 100 }, (_, i) => `load-${i}`);
  // 200 clients at once: each key sent twice, concurrently.
  const answers = await Promise.all(
    [...keys, ...keys].map((key) => sendEvent(p.apiKey, event(p.id, { message: `order ${key}` }), { headers: { "idempotency-key": key } })),
  );
  expect(answers.filter((a) => a.status < 200 || a.status > 299).map((a) => `${a.status} ${a.body.code}`)).toEqual([]);
  const idsByKey = new Map<string, Set<string>>();
  [...keys, ...keys].forEach((key, i) => idsByKey.set(key, (idsByKey.get(key) ?? new Set()).add(answers[i]!.body.id)));
  expect([...idsByKey.values()].every((ids) => ids.size === 1)).toBe(true);
  expect(await countEvents(p.id)).toBe(100);
});

it("a NUL or an oversized projectId in the summary's query is a 400, not a 500", async () => {
  const { cookie } = await createUserWithSession();
  for (const projectId of ["abc\u0000def", "x".repeat(5000), "%00"]) {
    const url = `/api/ai/summarize?${new URLSearchParams({ projectId })}`;
    const { status, body } = await callRoute(summarizeRoute, apiRequest(url, { cookie }));
    expect(status, JSON.stringify(projectId)).toBe(400);
    expect(body.code).toBe("validation_failed");
  }
});
