import { summarizeQuerySchema } from "@/lib/ai/schemas";
import { summarizeForRequest } from "@/lib/ai/summarize";
import { json, otherMethods, sessionRoute } from "@/lib/edge/route";

/**
 * GET /api/ai/summarize?limit=&since=&projectId= (session only).
 * Body exactly {"summary"}; the rest is in headers for the dashboard.
 */
export const GET = sessionRoute({ query: summarizeQuerySchema }, async ({ user, query, requestId }) => {
  const result = await summarizeForRequest(user, { ...query, requestId });
  return json(
    { summary: result.summary },
    {
      headers: {
        "X-Summary-Source": result.source,
        ...(result.fallback ? { "X-Summary-Fallback": result.fallback } : {}),
        "X-Summary-Events": String(result.eventCount),
        "X-Summary-Examined": String(result.examined),
        "X-Summary-Cache": result.cached ? "hit" : "miss",
      },
    },
  );
});

export const { POST, PUT, PATCH, DELETE } = otherMethods("GET");
