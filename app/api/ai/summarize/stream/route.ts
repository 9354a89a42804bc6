import { summarizeQuerySchema } from "@/lib/ai/schemas";
import { summaryStreamResponse } from "@/lib/ai/summarize";
import { otherMethods, sessionRoute } from "@/lib/edge/route";

/**
 * GET /api/ai/summarize/stream?limit=&since=&projectId= (session only): the
 * dashboard's summary as NDJSON, the built-in digest at once and the model's
 * checked answer when it arrives (docs/ai.md).
 */
export const GET = sessionRoute({ query: summarizeQuerySchema }, async ({ user, query, requestId }) => summaryStreamResponse(user, { ...query, requestId }));

export const { POST, PUT, PATCH, DELETE } = otherMethods("GET");
