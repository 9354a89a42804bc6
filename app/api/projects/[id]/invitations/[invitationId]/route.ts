import { assertSameOrigin, requireSessionUser } from "@/lib/auth/caller";
import { apiRoute, noContent, otherMethods } from "@/lib/http/route";
import { invitationParamsSchema } from "@/lib/invitations/schemas";
import { revokeInvitation } from "@/lib/invitations/service";
import { PROJECT_NOT_FOUND } from "@/lib/projects/access";
import { parsePathParams } from "@/lib/projects/schemas";

/** Revokes an invitation (owners only): 204. */
export const DELETE = apiRoute<{ id: string; invitationId: string }>(async (request, { params }) => {
  assertSameOrigin(request);
  const user = await requireSessionUser(request, { rejectBearer: true });
  const { id, invitationId } = parsePathParams(invitationParamsSchema, params, PROJECT_NOT_FOUND);
  await revokeInvitation(user.id, id, invitationId);
  return noContent();
});

export const { GET, POST, PUT, PATCH } = otherMethods("DELETE");
