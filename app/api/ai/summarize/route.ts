import { parseSummarizeQuery } from "@/lib/ai/schemas";
import { summarizeForRequest } from "@/lib/ai/summarize";
import { requireSessionUser } from "@/lib/auth/caller";
import { apiRoute, json, otherMethods } from "@/lib/http/route";

/**
 * GET /api/ai/summarize?limit=&since=&projectId= (session only; SPEC).
 * Body exactly {"summary"}; the rest is in headers for the dashboard.
 */
export const GET = apiRoute(async (request, { requestId }) => {
  const user = await requireSessionUser(request, { rejectBearer: true });
  const query = parseSummarizeQuery(new URL(request.url).searchParams);
  const result = await summarizeForRequest(user, { ...query, requestId });
  return json(
    { summary: result.summary },
    {
      headers: {
        "X-Summary-Source": result.source,
        "X-Summary-Event-Count": String(result.eventCount),
        "X-Summary-Omitted-Groups": String(result.omittedGroups),
        "X-Summary-Cache": result.cached ? "hit" : "miss",
      },
    },
  );
});

export const { POST, PUT, PATCH, DELETE } = otherMethods("GET");
