/**
 * The machine's Redis for the tests that share limits through it
 * (TEST_REDIS_URL, default redis://127.0.0.1:6379). Each run uses its own key
 * prefix and deletes its keys afterwards, so runs never see each other's
 * counters. Without a Redis the tests that need one are skipped, except in
 * CI, where that is a failure.
 */
import { randomUUID } from "node:crypto";
import { Redis } from "ioredis";

export const TEST_REDIS_URL = process.env.TEST_REDIS_URL ?? "redis://127.0.0.1:6379";

/** Whether Redis answers a PING; in CI a missing Redis throws instead. */
export async function redisAvailable(url = TEST_REDIS_URL): Promise<boolean> {
  const client = new Redis(url, { lazyConnect: true, connectTimeout: 1000, maxRetriesPerRequest: 0, retryStrategy: () => null });
  client.on("error", () => {});
  try {
    await client.connect();
    await client.ping();
    return true;
  } catch (error) {
    if (process.env.CI) throw new Error(`CI needs a Redis at ${url} (set TEST_REDIS_URL): ${String(error)}`);
    console.warn(`Redis not reachable at ${url}: the tests that need it are skipped.`);
    return false;
  } finally {
    client.disconnect();
  }
}

/** A key prefix of its own for one test file's run. */
export function testKeyPrefix(label: string): string {
  return `telltale-test:${label}:${randomUUID().slice(0, 8)}:`;
}

/** A plain client, as another instance would have. */
export function rawRedis(url = TEST_REDIS_URL): Redis {
  const client = new Redis(url, { maxRetriesPerRequest: 1 });
  client.on("error", () => {});
  return client;
}

/** Deletes every key under `prefix` (the run's own). */
export async function deleteKeys(prefix: string, url = TEST_REDIS_URL): Promise<void> {
  const client = rawRedis(url);
  try {
    let cursor = "0";
    do {
      const [next, keys] = await client.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000);
      cursor = next;
      if (keys.length > 0) await client.unlink(...keys);
    } while (cursor !== "0");
  } finally {
    client.disconnect();
  }
}
