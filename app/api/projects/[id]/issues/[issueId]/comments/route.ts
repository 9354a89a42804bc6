import { json, otherMethods, projectRoute } from "@/lib/edge/route";
import { addIssueComment } from "@/lib/issues/activities";
import { issueParamsSchema } from "@/lib/issues/filters";
import { commentBodySchema } from "@/lib/issues/workflow-schemas";

/** A member's comment on the issue: 201 with the activity it became. */
export const POST = projectRoute(
  { role: "member", params: issueParamsSchema, notFound: "No issue with this id in this project.", body: commentBodySchema },
  async ({ access, params, body }) => json(await addIssueComment(access, params.issueId, body.text), { status: 201 }),
);

export const { GET, PUT, PATCH, DELETE } = otherMethods("POST");
