import { otherMethods } from "@/lib/edge/route";
import { postEventBatch } from "@/lib/edge/ingest-routes";

export const dynamic = "force-dynamic";

/** POST /api/events/batch: 1 to 1,000 events, all or nothing. */
export const POST = postEventBatch;

export const { GET, PUT, PATCH, DELETE } = otherMethods("POST");
