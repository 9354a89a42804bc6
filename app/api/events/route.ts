import { ingestBody, ingestEvent, ingestRateLimit, parseEventBody } from "@/lib/ingest/ingest";
import { idempotencyKeyOf } from "@/lib/http/input";
import { apiKeyRoute, created, otherMethods } from "@/lib/edge/route";

export const dynamic = "force-dynamic";

/** POST /api/events: one event, authenticated by the project's API key. */
export const POST = apiKeyRoute({ read: ingestBody.single, rateLimit: ingestRateLimit }, async ({ request, key, body }) =>
  created(await ingestEvent(key, parseEventBody(body), { idempotencyKey: idempotencyKeyOf(request) })),
);

export const { GET, PUT, PATCH, DELETE } = otherMethods("POST");
