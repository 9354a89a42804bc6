import { json, otherMethods, projectRoute } from "@/lib/edge/route";
import { listIssueActivity } from "@/lib/issues/activities";
import { issueParamsSchema } from "@/lib/issues/filters";
import { activityQuerySchema } from "@/lib/issues/workflow-schemas";

/** The issue's activity, newest first: {activities, nextCursor}. */
export const GET = projectRoute(
  { role: "member", params: issueParamsSchema, notFound: "No issue with this id in this project.", query: activityQuerySchema },
  async ({ access, params, query }) => json(await listIssueActivity(access, params.issueId, query)),
);

export const { POST, PUT, PATCH, DELETE } = otherMethods("GET");
