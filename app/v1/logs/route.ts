import { otherMethods } from "@/lib/edge/route";
import { postOtlpLogs } from "@/lib/edge/ingest-routes";

export const dynamic = "force-dynamic";

/** POST /v1/logs: OTLP/HTTP logs (protobuf or JSON), authenticated by the project's API key. */
export const POST = postOtlpLogs;

export const { GET, PUT, PATCH, DELETE } = otherMethods("POST");
