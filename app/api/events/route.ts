import { handleIngestRequest } from "@/lib/events/ingest-request";
import { apiRoute, otherMethods } from "@/lib/http/route";

export const dynamic = "force-dynamic";

/** POST /api/events: one event, authenticated by the project's API key. */
export const POST = apiRoute((request) => handleIngestRequest(request, "single"));

export const { GET, PUT, PATCH, DELETE } = otherMethods("POST");
