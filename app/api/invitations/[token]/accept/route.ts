import { assertSameOrigin, requireSessionUser } from "@/lib/auth/caller";
import { apiRoute, json, otherMethods } from "@/lib/http/route";
import { tokenParamsSchema } from "@/lib/invitations/schemas";
import { acceptInvitation } from "@/lib/invitations/service";
import { parsePathParams } from "@/lib/projects/schemas";

/** Accepts an invitation; the session's address must be the invited one: {projectId, role}. */
export const POST = apiRoute<{ token: string }>(async (request, { params }) => {
  assertSameOrigin(request);
  const user = await requireSessionUser(request, { rejectBearer: true });
  const { token } = parsePathParams(tokenParamsSchema, params, "No such invitation. Check the link, or ask for a new one.");
  return json(await acceptInvitation(user, token));
});

export const { GET, PUT, PATCH, DELETE } = otherMethods("POST");
