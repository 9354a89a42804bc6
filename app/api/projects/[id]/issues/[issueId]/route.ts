import { json, otherMethods, projectRoute } from "@/lib/edge/route";
import { issueParamsSchema, issueStatusBodySchema, issueWindowQuerySchema } from "@/lib/issues/filters";
import { getIssueDetails } from "@/lib/issues/issue-details";
import { setIssueStatus } from "@/lib/issues/service";

const notFound = "No issue with this id in this project.";

/** One issue with its counts, releases, environments, users and tags in the window (default the last 24 hours). */
export const GET = projectRoute({ role: "member", params: issueParamsSchema, notFound, query: issueWindowQuerySchema }, async ({ access, params, query }) =>
  json(await getIssueDetails(access, params.issueId, query)),
);

/** {status: open | resolved | ignored}, by any member. */
export const PATCH = projectRoute({ role: "member", params: issueParamsSchema, notFound, body: issueStatusBodySchema }, async ({ access, params, body }) =>
  json(await setIssueStatus(access, params.issueId, body.status)),
);

export const { POST, PUT, DELETE } = otherMethods("GET", "PATCH");
