import { ingestBody, ingestEventBatch, ingestRateLimit, parseEventBatchBody } from "@/lib/ingest/ingest";
import { idempotencyKeyOf } from "@/lib/http/input";
import { apiKeyRoute, created, otherMethods } from "@/lib/edge/route";

export const dynamic = "force-dynamic";

/** POST /api/events/batch: 1 to 1,000 events, all or nothing. */
export const POST = apiKeyRoute({ read: ingestBody.batch, rateLimit: ingestRateLimit }, async ({ request, key, body }) =>
  created(await ingestEventBatch(key, parseEventBatchBody(body), { idempotencyKey: idempotencyKeyOf(request) })),
);

export const { GET, PUT, PATCH, DELETE } = otherMethods("POST");
