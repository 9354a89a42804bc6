import { handleIngestRequest } from "@/lib/events/ingest-request";
import { apiRoute, otherMethods } from "@/lib/http/route";

export const dynamic = "force-dynamic";

/** POST /api/events/batch: 1 to 1,000 events, all or nothing. */
export const POST = apiRoute((request) => handleIngestRequest(request, "batch"));

export const { GET, PUT, PATCH, DELETE } = otherMethods("POST");
