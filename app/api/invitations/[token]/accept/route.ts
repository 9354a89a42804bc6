import { json, otherMethods, sessionRoute } from "@/lib/edge/route";
import { tokenParamsSchema } from "@/lib/invitations/schemas";
import { acceptInvitation } from "@/lib/invitations/service";

/** Accepts an invitation; the session's address must be the invited one: {projectId, role}. */
export const POST = sessionRoute(
  { params: tokenParamsSchema, notFound: "No such invitation. Check the link, or ask for a new one." },
  async ({ user, params }) => json(await acceptInvitation(user, params.token)),
);

export const { GET, PUT, PATCH, DELETE } = otherMethods("POST");
