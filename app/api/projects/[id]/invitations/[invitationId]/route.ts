import { noContent, otherMethods, projectRoute } from "@/lib/edge/route";
import { invitationParamsSchema } from "@/lib/invitations/schemas";
import { revokeInvitation } from "@/lib/invitations/service";

/** Revokes an invitation (owners only): 204. */
export const DELETE = projectRoute({ role: "owner", params: invitationParamsSchema }, async ({ access, params }) => {
  await revokeInvitation(access, params.invitationId);
  return noContent();
});

export const { GET, POST, PUT, PATCH } = otherMethods("DELETE");
