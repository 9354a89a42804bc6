import { json, otherMethods, projectRoute } from "@/lib/edge/route";
import { issuesQuerySchema } from "@/lib/issues/filters";
import { listProjectIssues } from "@/lib/issues/service";
import { changeIssues } from "@/lib/issues/workflow";
import { bulkIssueChangeBodySchema } from "@/lib/issues/workflow-schemas";

/** The project's issues with events in the window: {issues, nextCursor, window}. */
export const GET = projectRoute({ role: "member", query: issuesQuerySchema }, async ({ access, query }) => json(await listProjectIssues(access, query)));

/** One change for several issues of the project (bulk resolve / ignore / assign), by any member: {issues, notFound}. */
export const PATCH = projectRoute({ role: "member", body: bulkIssueChangeBodySchema }, async ({ access, body }) =>
  json(await changeIssues(access, body.issueIds, body.change)),
);

export const { POST, PUT, DELETE } = otherMethods("GET", "PATCH");
