/**
 * The optional Redis that several instances share (REDIS_URL): one command
 * connection and, when something subscribes, one pub/sub connection per
 * process. Redis is an optimisation, never a dependency: a request never
 * waits for it to come back. While it is unreachable every command fails at
 * once (no offline queue, no retries) and the callers fall back to their
 * in-process state; the outage is logged once, and its end once.
 *
 * Without REDIS_URL nothing here connects and `readyRedis()` is null.
 */
import { Redis, type RedisOptions } from "ioredis";
import { settings } from "@/lib/config/settings";
import { logger } from "@/lib/log";

// A command slower than this fails (the caller uses its in-process state). Not
// tighter: a busy event loop fires timers before it reads the socket, and a
// false timeout would split the shared limits for nothing.
const COMMAND_TIMEOUT_MS = 1_000;
const CONNECT_TIMEOUT_MS = 2_000;
// Reconnect attempts back off to this, so a recovery is noticed within it.
const MAX_RECONNECT_DELAY_MS = 2_000;
// A connection that is up but no longer answers (a frozen server, a silent
// network) is found by a PING this often and dropped, so commands fail fast
// instead of each waiting COMMAND_TIMEOUT_MS.
const HEARTBEAT_MS = 2_000;

export type RedisHealth = {
  state: "connecting" | "up" | "down";
  /** When it entered this state. */
  since: Date;
  /** Why it is down: an error code, never the URL. */
  reason?: string;
};

type ChannelHandler = { onMessage: (message: string) => void; onSubscribed?: () => void };

type Shared = {
  url: string;
  client: Redis;
  subscriber: Redis | null;
  health: RedisHealth;
  /** Has it been down since the process started (a recovery is worth a log line)? */
  wasDown: boolean;
  heartbeat: NodeJS.Timeout;
};

// Survives dev-server module reloads, as the database client does.
const state = globalThis as unknown as { __telltaleRedis?: Shared; __telltaleRedisChannels?: Map<string, ChannelHandler> };
const channels = (state.__telltaleRedisChannels ??= new Map());

function options(): RedisOptions {
  return {
    commandTimeout: COMMAND_TIMEOUT_MS,
    connectTimeout: CONNECT_TIMEOUT_MS,
    enableOfflineQueue: false,
    // A command in flight when the connection drops fails now, not after a reconnect.
    maxRetriesPerRequest: 0,
    retryStrategy: (attempt) => Math.min(attempt * 200, MAX_RECONNECT_DELAY_MS),
    // Subscriptions are renewed by hand on each "ready" (see subscriberFor),
    // so the key cache can be cleared when they are back.
    autoResubscribe: false,
  };
}

function reasonOf(error: unknown): string {
  const e = error as { code?: unknown; name?: unknown; message?: unknown } | undefined;
  if (typeof e?.code === "string") return e.code;
  if (typeof e?.message === "string" && /timed? ?out/i.test(e.message)) return "timeout";
  return typeof e?.name === "string" ? e.name : "error";
}

function setHealth(shared: Shared, next: RedisHealth["state"], reason?: string): void {
  const previous = shared.health;
  if (previous.state === next) return;
  shared.health = { state: next, since: new Date(), ...(reason ? { reason } : {}) };
  if (next === "down") {
    shared.wasDown = true;
    logger.warn("redis unreachable: rate limits, key-cache invalidation and the summary cache are per process until it answers again", { reason });
  } else if (next === "up" && shared.wasDown) {
    logger.info("redis reachable again: rate limits and caches are shared again", { downMs: Date.now() - previous.since.getTime() });
  }
}

function connect(url: string): Shared {
  const client = new Redis(url, options());
  const shared: Shared = {
    url,
    client,
    subscriber: null,
    health: { state: "connecting", since: new Date() },
    wasDown: false,
    heartbeat: setInterval(() => {
      if (client.status !== "ready") return;
      client.ping().catch((error: unknown) => {
        setHealth(shared, "down", reasonOf(error));
        // Drop the silent connection: commands then fail at once (not ready)
        // until a new one is up.
        client.disconnect(true);
      });
    }, HEARTBEAT_MS),
  };
  shared.heartbeat.unref();
  client.on("ready", () => setHealth(shared, "up"));
  client.on("error", (error: unknown) => setHealth(shared, "down", reasonOf(error)));
  client.on("close", () => setHealth(shared, "down", "connection closed"));
  return shared;
}

/** The shared connection for REDIS_URL (made on first use), or null when Redis is not configured. */
function current(): Shared | null {
  const url = settings().redis.url;
  const shared = state.__telltaleRedis;
  if (shared && shared.url === url) return shared;
  // Tests change REDIS_URL between cases: drop the old connection.
  if (shared) void closeShared(shared);
  state.__telltaleRedis = url ? connect(url) : undefined;
  if (state.__telltaleRedis && channels.size > 0) subscriberFor(state.__telltaleRedis);
  return state.__telltaleRedis ?? null;
}

/**
 * The command connection when it is up, else null: callers then use their
 * in-process state without waiting. Also opens it on first use.
 */
export function readyRedis(): Redis | null {
  const shared = current();
  return shared && shared.client.status === "ready" ? shared.client : null;
}

/**
 * The command connection for rate-limiter-flexible's RateLimiterRedis, which
 * checks its state itself (rejectIfRedisNotReady) and falls back to its
 * insurance limiter; null when Redis is not configured.
 */
export function redisStoreClient(): Redis | null {
  return current()?.client ?? null;
}

/** A Redis key (or channel) under REDIS_KEY_PREFIX. */
export function redisKey(name: string): string {
  return `${settings().redis.keyPrefix}${name}`;
}

/** Redis's state as this process last saw it; null when not configured. */
export function redisHealth(): RedisHealth | null {
  return current()?.health ?? null;
}

/**
 * Asks Redis now (a PING within `timeoutMs`), for the readiness probe; null
 * when Redis is not configured. Never throws.
 */
export async function probeRedis(timeoutMs = COMMAND_TIMEOUT_MS): Promise<RedisHealth | null> {
  const shared = current();
  if (!shared) return null;
  if (shared.client.status !== "ready") return shared.health;
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      shared.client.ping(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error("timed out")), timeoutMs);
      }),
    ]);
    setHealth(shared, "up");
  } catch (error) {
    setHealth(shared, "down", reasonOf(error));
  } finally {
    clearTimeout(timer);
  }
  return shared.health;
}

function subscriberFor(shared: Shared): Redis {
  if (shared.subscriber) return shared.subscriber;
  const subscriber = new Redis(shared.url, options());
  shared.subscriber = subscriber;
  subscriber.on("error", () => {}); // the command connection reports the outage
  subscriber.on("ready", () => {
    // First connection or a reconnect: subscribe again, then let each
    // channel's owner drop what it may have missed meanwhile.
    for (const [name, handler] of channels) subscribeOne(subscriber, name, handler);
  });
  subscriber.on("message", (channel: string, message: string) => {
    const prefix = settings().redis.keyPrefix;
    if (!channel.startsWith(prefix)) return;
    const handler = channels.get(channel.slice(prefix.length));
    if (!handler) return;
    try {
      handler.onMessage(message);
    } catch (error) {
      logger.warn("redis message not handled", { channel, error: reasonOf(error) });
    }
  });
  return subscriber;
}

function subscribeOne(subscriber: Redis, name: string, handler: ChannelHandler): void {
  subscriber.subscribe(redisKey(name)).then(
    () => handler.onSubscribed?.(),
    () => {}, // not connected: the next "ready" subscribes again
  );
}

/**
 * Receives the messages published on `name` (under the key prefix) by any
 * instance, this one included. `onSubscribed` runs each time the subscription
 * is (re)established: what was published while it was not is lost, so the
 * owner drops what it may have missed. One handler per channel (a second
 * call replaces it). Does nothing without REDIS_URL.
 */
export function subscribeRedis(name: string, onMessage: (message: string) => void, onSubscribed?: () => void): void {
  const handler = { onMessage, onSubscribed };
  channels.set(name, handler);
  const shared = current();
  if (!shared) return;
  const subscriber = subscriberFor(shared);
  if (subscriber.status === "ready") subscribeOne(subscriber, name, handler);
}

/** Publishes `message` on `name` to every instance; false when Redis is off or did not take it. */
export async function publishRedis(name: string, message: string): Promise<boolean> {
  const client = readyRedis();
  if (!client) return false;
  try {
    await client.publish(redisKey(name), message);
    return true;
  } catch {
    return false;
  }
}

async function closeShared(shared: Shared): Promise<void> {
  clearInterval(shared.heartbeat);
  shared.client.removeAllListeners();
  shared.client.on("error", () => {});
  shared.subscriber?.removeAllListeners();
  shared.subscriber?.on("error", () => {});
  await Promise.all([shared.client.quit().catch(() => shared.client.disconnect()), shared.subscriber?.quit().catch(() => shared.subscriber?.disconnect())]);
}

/** Closes the connections (tests, and a process that is about to exit). */
export async function closeRedis(): Promise<void> {
  const shared = state.__telltaleRedis;
  state.__telltaleRedis = undefined;
  if (shared) await closeShared(shared);
}
