import { LRUCache } from "lru-cache";
import { readyRedis, redisKey } from "@/lib/redis/connection";

export type SharedCache<T extends object> = {
  get(key: string): Promise<T | undefined>;
  set(key: string, value: T, ttlMs: number): Promise<void>;
};

/**
 * A cache of JSON values with a time to live: in Redis (shared by every
 * instance) when it is configured and up, else in this process's LRU. A
 * Redis that fails a command costs that one lookup (a miss) and the value
 * is kept locally instead; nothing waits for Redis to come back.
 */
export function sharedCache<T extends object>(name: string, opts: { max: number }): SharedCache<T> {
  const local = new LRUCache<string, T>({ max: opts.max, ttl: 60_000 });
  const keyOf = (key: string) => redisKey(`cache:${name}:${key}`);
  return {
    async get(key) {
      const redis = readyRedis();
      if (redis) {
        try {
          const raw = await redis.get(keyOf(key));
          return raw === null ? undefined : (JSON.parse(raw) as T);
        } catch {
          // Unreachable, or not our JSON: a miss.
        }
      }
      return local.get(key);
    },
    async set(key, value, ttlMs) {
      const redis = readyRedis();
      if (redis) {
        try {
          await redis.set(keyOf(key), JSON.stringify(value), "PX", ttlMs);
          return;
        } catch {
          // Keep it here instead.
        }
      }
      local.set(key, value, { ttl: ttlMs });
    },
  };
}
