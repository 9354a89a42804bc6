import { apiKeyRoute, encoded, otherMethods } from "@/lib/edge/route";
import { ingestRateLimit } from "@/lib/ingest/ingest";
import { ingestOtlpLogs, readOtlpRequest } from "@/lib/otlp/ingest";

export const dynamic = "force-dynamic";

/** POST /v1/logs: OTLP/HTTP logs (protobuf or JSON), authenticated by the project's API key. */
export const POST = apiKeyRoute({ read: readOtlpRequest, rateLimit: ingestRateLimit }, async ({ key, body }) => encoded(await ingestOtlpLogs(key, body)));

export const { GET, PUT, PATCH, DELETE } = otherMethods("POST");
