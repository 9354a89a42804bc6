import { checkDatabaseReady, checkRedisReady } from "@/lib/health";
import { apiRoute, json, otherMethods } from "@/lib/edge/route";

export const dynamic = "force-dynamic";

/**
 * Readiness: 200 when the database answers, 503 problem otherwise. With
 * REDIS_URL, `details.redis` says whether Redis answers; it is optional, so
 * an unreachable Redis is reported, never a 503.
 */
export const GET = apiRoute(async () => {
  const [, redis] = await Promise.all([checkDatabaseReady(), checkRedisReady()]);
  return json(redis ? { status: "ok", details: { redis } } : { status: "ok" });
});

export const { POST, PUT, PATCH, DELETE } = otherMethods("GET");
