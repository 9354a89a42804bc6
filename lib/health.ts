import { sql } from "kysely";
import { sqlDb } from "@/lib/db/sql";
import { errors } from "@/lib/http/errors";
import { probeRedis } from "@/lib/redis/connection";

/** Readiness: the database answers a trivial query within `timeoutMs`. */
export async function checkDatabaseReady(timeoutMs = 2000): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      sql`SELECT 1`.execute(sqlDb()),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error("readiness check timed out")), timeoutMs);
      }),
    ]);
  } catch {
    throw errors.serviceUnavailable("The database is not answering.");
  } finally {
    clearTimeout(timer);
  }
}

export type RedisReadiness = { status: "ok" } | { status: "connecting" | "unreachable"; since: string; reason?: string; effect: string };

/**
 * Redis's part of readiness; null when REDIS_URL is not set. Never a reason
 * to refuse traffic: without Redis each instance limits and caches on its
 * own, which is what the details say.
 */
export async function checkRedisReady(timeoutMs = 1000): Promise<RedisReadiness | null> {
  const health = await probeRedis(timeoutMs);
  if (!health) return null;
  if (health.state === "up") return { status: "ok" };
  return {
    // A process that has just started is connecting, not cut off.
    status: health.state === "connecting" ? "connecting" : "unreachable",
    since: health.since.toISOString(),
    ...(health.reason ? { reason: health.reason } : {}),
    effect: "Rate limits, API-key cache invalidation and the summary cache are per instance until Redis answers again.",
  };
}
