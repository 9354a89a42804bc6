import { json, otherMethods, projectRoute } from "@/lib/edge/route";
import { issuesQuerySchema } from "@/lib/issues/filters";
import { listProjectIssues } from "@/lib/issues/service";

/** The project's issues with events in the window: {issues, nextCursor, window}. */
export const GET = projectRoute({ role: "member", query: issuesQuerySchema }, async ({ access, query }) => json(await listProjectIssues(access, query)));

export const { POST, PUT, PATCH, DELETE } = otherMethods("GET");
