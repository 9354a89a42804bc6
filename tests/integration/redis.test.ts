/**
 * REDIS_URL in one process: limiters built twice (as two instances build
 * them) draw on one budget, key changes arrive over pub/sub, the summary
 * cache is shared, and an unreachable or frozen Redis leaves every request
 * answered under in-process limits, logged once each way and reported by
 * /api/health/ready. A TCP proxy in front of the machine's Redis plays the
 * outages. Three `npm start` servers sharing Redis: tests/instances/multi-instance.test.ts (npm run test:instances).
 */
import { randomUUID } from "node:crypto";
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from "vitest";
import { GET as ready } from "@/app/api/health/ready/route";
import { parseSettings } from "@/lib/config/settings";
import { sha256Hex } from "@/lib/crypto/hash";
import { prisma } from "@/lib/db/client";
import { consumeRateLimit, countAgainstRateLimit, createRateLimit, peekRateLimit } from "@/lib/http/rate-limit";
import { encryptApiKey } from "@/lib/keys/crypto";
import { generateApiKey } from "@/lib/keys/format";
import { authenticateApiKey, rotateProjectKey } from "@/lib/keys/service";
import { closeRedis, readyRedis, redisHealth } from "@/lib/redis/connection";
import { sharedCache } from "@/lib/redis/shared-cache";
import { stubEnv, unstubEnvs } from "@/tests/helpers/env";
import { makeProject } from "@/tests/helpers/ingest";
import { deleteKeys, rawRedis, redisAvailable, testKeyPrefix, TEST_REDIS_URL } from "@/tests/helpers/redis";
import { startTcpProxy, type TcpProxy } from "@/tests/helpers/tcp-proxy";

const available = await redisAvailable();
const noParams = { params: Promise.resolve({}) };

async function readiness() {
  const res = await ready(new Request("http://x/api/health/ready"), noParams);
  return { status: res.status, body: (await res.json()) as { status: string; details?: { redis: { status: string; effect?: string } } } };
}

describe("without REDIS_URL", () => {
  afterAll(unstubEnvs);

  it("limits stay in this process and readiness says nothing of Redis", async () => {
    stubEnv("REDIS_URL", undefined);
    expect(createRateLimit({ name: "t-local", perWindow: 1, windowSeconds: 60 })!.shared).toBe(false);
    expect(redisHealth()).toBeNull();
    expect(await readiness()).toEqual({ status: 200, body: { status: "ok" } });
  });

  it("REDIS_URL must be a redis:// or rediss:// URL", () => {
    expect(parseSettings({ REDIS_URL: "http://127.0.0.1:6379" }).problems).toEqual(["REDIS_URL must be a redis: or rediss: URL."]);
    expect(parseSettings({ REDIS_URL: "rediss://cache.example:6380/0" }).settings?.redis).toEqual({ url: "rediss://cache.example:6380/0", keyPrefix: "telltale:" });
  });
});

describe.skipIf(!available)("with REDIS_URL", () => {
  const prefix = testKeyPrefix("redis");
  let proxy: TcpProxy;
  const target = new URL(TEST_REDIS_URL);

  beforeAll(async () => {
    proxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 6379) });
    stubEnv("REDIS_URL", `redis://127.0.0.1:${proxy.port}`);
    stubEnv("REDIS_KEY_PREFIX", prefix);
    readyRedis(); // connect
    await vi.waitFor(() => expect(redisHealth()?.state).toBe("up"), { timeout: 10_000 });
  });
  afterEach(() => vi.restoreAllMocks());
  afterAll(async () => {
    await closeRedis();
    await proxy?.close();
    await deleteKeys(prefix);
    unstubEnvs();
  });

  /** Log lines, with logging on (the suite silences it). */
  function captureLog(): string[] {
    stubEnv("TELLTALE_LOG", "");
    const lines: string[] = [];
    for (const m of ["log", "error"] as const) vi.spyOn(console, m).mockImplementation((...args: unknown[]) => void lines.push(args.map(String).join(" ")));
    return lines;
  }

  it("two instances' limiters draw on one budget, kept under the key prefix with hashed keys", async () => {
    const first = createRateLimit({ name: "t-shared", perWindow: 5, windowSeconds: 60 })!;
    const second = createRateLimit({ name: "t-shared", perWindow: 5, windowSeconds: 60 })!;
    expect(first.shared && second.shared).toBe(true);
    const email = `someone-${randomUUID()}@example.test`;
    const answers: boolean[] = [];
    for (let i = 0; i < 8; i++) answers.push((await consumeRateLimit(i % 2 ? first : second, email))!.allowed);
    expect(answers).toEqual([true, true, true, true, true, false, false, false]);

    const redis = rawRedis();
    try {
      const keys = await redis.keys(`${prefix}rl:t-shared:*`);
      expect(keys).toHaveLength(1);
      expect(keys[0]).not.toContain(email.split("@")[0]);
      expect(await redis.get(keys[0]!)).toBe("8");
    } finally {
      redis.disconnect();
    }
  });

  it("failures counted by one instance are seen by another's peek (failed API-key authentications)", async () => {
    const counting = createRateLimit({ name: "t-failures", perWindow: 2, windowSeconds: 60 })!;
    const peeking = createRateLimit({ name: "t-failures", perWindow: 2, windowSeconds: 60 })!;
    const address = `10.9.${Math.floor(Math.random() * 250)}.${Math.floor(Math.random() * 250)}`;
    expect((await peekRateLimit(peeking, address))!.allowed).toBe(true);
    await countAgainstRateLimit(counting, address);
    await countAgainstRateLimit(counting, address);
    expect((await peekRateLimit(peeking, address))!.allowed).toBe(false);
  });

  it("the summary cache is shared, with the TTL it was given", async () => {
    const writer = sharedCache<{ summary: string }>("t-cache", { max: 10 });
    const reader = sharedCache<{ summary: string }>("t-cache", { max: 10 });
    await writer.set("k", { summary: "three errors" }, 30_000);
    expect(await reader.get("k")).toEqual({ summary: "three errors" });
    expect(await reader.get("other")).toBeUndefined();
    const redis = rawRedis();
    try {
      const ttl = await redis.pttl(`${prefix}cache:t-cache:k`);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(30_000);
    } finally {
      redis.disconnect();
    }
  });

  describe("key changes from other instances (pub/sub)", () => {
    const refused = (key: string) => authenticateApiKey(key, "10.1.1.1").then(() => false, (e: { code?: string }) => e.code === "invalid_api_key");
    async function subscribed() {
      const redis = rawRedis();
      try {
        await vi.waitFor(async () => expect(((await redis.pubsub("NUMSUB", `${prefix}keys`)) as [string, number])[1]).toBeGreaterThan(0), { timeout: 10_000 });
      } finally {
        redis.disconnect();
      }
      // Redis counts the subscription before this process has handled its
      // confirmation (which empties the key caches). A message arrives after
      // that confirmation: once a canary's revocation is seen, it is done.
      const canary = await makeProject();
      await authenticateApiKey(canary.apiKey, "10.1.1.9");
      await publish({ revoked: [sha256Hex(canary.apiKey)] });
      await vi.waitFor(async () => expect(await refused(canary.apiKey)).toBe(true), { timeout: 5000, interval: 20 });
    }
    async function publish(change: object) {
      const redis = rawRedis();
      try {
        await redis.publish(`${prefix}keys`, JSON.stringify(change));
      } finally {
        redis.disconnect();
      }
    }

    it("a key revoked elsewhere stops working here on the message, not after the cache's TTL", async () => {
      const p = await makeProject();
      await authenticateApiKey(p.apiKey, "10.1.1.1"); // subscribes; cached
      await subscribed();
      await authenticateApiKey(p.apiKey, "10.1.1.1");
      // Revoked behind this process's back: its cache still trusts the key...
      await prisma.apiKey.updateMany({ where: { projectId: p.id }, data: { revokedAt: new Date() } });
      expect(await refused(p.apiKey)).toBe(false);
      // ...until another instance says so.
      await publish({ revoked: [sha256Hex(p.apiKey)] });
      await vi.waitFor(async () => expect(await refused(p.apiKey)).toBe(true), { timeout: 5000, interval: 20 });
    });

    it("a key created elsewhere is never stuck in the unknown-keys cache", async () => {
      const p = await makeProject();
      await authenticateApiKey(p.apiKey, "10.1.1.2");
      await subscribed();
      const fresh = generateApiKey();
      expect(await refused(fresh)).toBe(true); // now remembered as unknown
      await prisma.apiKey.create({ data: { projectId: p.id, hash: sha256Hex(fresh), encrypted: encryptApiKey(fresh), last4: fresh.slice(-4) } });
      expect(await refused(fresh)).toBe(true); // the cache answered, not the database
      await publish({ created: [sha256Hex(fresh)] });
      await vi.waitFor(async () => expect(await refused(fresh)).toBe(false), { timeout: 5000, interval: 20 });
    });

    it("a project deleted elsewhere: its cached keys go", async () => {
      const p = await makeProject();
      await authenticateApiKey(p.apiKey, "10.1.1.3");
      await subscribed();
      await prisma.project.delete({ where: { id: p.id } });
      expect(await refused(p.apiKey)).toBe(false); // cached
      await publish({ projectId: p.id });
      await vi.waitFor(async () => expect(await refused(p.apiKey)).toBe(true), { timeout: 5000, interval: 20 });
    });

    it("a rotation here tells the others the hashes (never the keys)", async () => {
      const p = await makeProject();
      const listener = rawRedis();
      const messages: string[] = [];
      try {
        listener.on("message", (_channel: string, message: string) => messages.push(message));
        await listener.subscribe(`${prefix}keys`);
        const newKey = await rotateProjectKey(p.id);
        await vi.waitFor(() => expect(messages).toHaveLength(1));
        expect(JSON.parse(messages[0]!)).toEqual({ revoked: [sha256Hex(p.apiKey)], created: [sha256Hex(newKey)] });
        expect(messages[0]).not.toMatch(/tlt_/);
      } finally {
        listener.disconnect();
      }
    });
  });

  describe("when Redis stops answering", () => {
    it("unreachable: limits go on in this process, the outage and the recovery are logged once each, readiness says so with 200", async () => {
      const lines = captureLog();
      const limit = createRateLimit({ name: "t-outage", perWindow: 3, windowSeconds: 60 })!;
      proxy.refuse(true);
      proxy.cut();
      await vi.waitFor(() => expect(redisHealth()?.state).toBe("down"), { timeout: 10_000 });

      const key = randomUUID();
      const answers: boolean[] = [];
      for (let i = 0; i < 5; i++) answers.push((await consumeRateLimit(limit, key))!.allowed);
      expect(answers).toEqual([true, true, true, false, false]);
      const cache = sharedCache<{ n: number }>("t-outage", { max: 10 });
      await cache.set("k", { n: 1 }, 10_000);
      expect(await cache.get("k")).toEqual({ n: 1 });

      const down = await readiness();
      expect(down.status).toBe(200);
      expect(down.body.status).toBe("ok");
      expect(down.body.details?.redis).toMatchObject({ status: "unreachable", effect: expect.stringMatching(/per instance/) });
      // Every failed reconnection emits "error" and "close": still one line, without the URL.
      expect(lines.filter((l) => l.includes("redis unreachable"))).toHaveLength(1);
      expect(lines.join("\n")).not.toContain("redis://");

      proxy.refuse(false);
      await vi.waitFor(() => expect(redisHealth()?.state).toBe("up"), { timeout: 10_000 });
      expect(lines.filter((l) => l.includes("redis reachable again"))).toHaveLength(1);
      expect((await readiness()).body.details?.redis).toEqual({ status: "ok" });

      // Shared again: a second "instance" sees the first one's count.
      const again = createRateLimit({ name: "t-outage", perWindow: 3, windowSeconds: 60 })!;
      const other = randomUUID();
      for (let i = 0; i < 3; i++) expect((await consumeRateLimit(limit, other))!.allowed).toBe(true);
      expect((await consumeRateLimit(again, other))!.allowed).toBe(false);
    });

    it("frozen (connected, silent): requests are still answered, and the heartbeat marks it down until it answers again", async () => {
      const lines = captureLog();
      const limit = createRateLimit({ name: "t-frozen", perWindow: 2, windowSeconds: 60 })!;
      proxy.stall();
      try {
        // Past its command deadline the insurance limiter answers.
        expect((await consumeRateLimit(limit, randomUUID()))!.allowed).toBe(true);
        await vi.waitFor(() => expect(redisHealth()?.state).toBe("down"), { timeout: 10_000 });
        // Now without waiting on Redis at all: the connection was dropped.
        const key = randomUUID();
        const answers: boolean[] = [];
        for (let i = 0; i < 3; i++) answers.push((await consumeRateLimit(limit, key))!.allowed);
        expect(answers).toEqual([true, true, false]);
        expect(lines.filter((l) => l.includes("redis unreachable"))).toEqual([expect.stringContaining('"reason":"timeout"')]);
      } finally {
        proxy.resume();
      }
      await vi.waitFor(() => expect(redisHealth()?.state).toBe("up"), { timeout: 15_000 });
    });
  });
});
