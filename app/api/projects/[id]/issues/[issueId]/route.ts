import { json, otherMethods, projectRoute } from "@/lib/edge/route";
import { issueParamsSchema, issueWindowQuerySchema } from "@/lib/issues/filters";
import { getIssueDetails } from "@/lib/issues/issue-details";
import { changeIssue } from "@/lib/issues/workflow";
import { issueChangeBodySchema } from "@/lib/issues/workflow-schemas";

const notFound = "No issue with this id in this project.";

/** One issue with its counts, releases, environments, users and tags in the window (default the last 24 hours). */
export const GET = projectRoute({ role: "member", params: issueParamsSchema, notFound, query: issueWindowQuerySchema }, async ({ access, params, query }) =>
  json(await getIssueDetails(access, params.issueId, query)),
);

/** Status (resolve now / in the next release / in a release, ignore for a while / N events / forever, reopen) and assignee, by any member. */
export const PATCH = projectRoute({ role: "member", params: issueParamsSchema, notFound, body: issueChangeBodySchema }, async ({ access, params, body }) =>
  json(await changeIssue(access, params.issueId, body)),
);

export const { POST, PUT, DELETE } = otherMethods("GET", "PATCH");
