import { otherMethods } from "@/lib/edge/route";
import { postEvent } from "@/lib/edge/ingest-routes";

export const dynamic = "force-dynamic";

/** POST /api/events: one event, authenticated by the project's API key. */
export const POST = postEvent;

export const { GET, PUT, PATCH, DELETE } = otherMethods("POST");
