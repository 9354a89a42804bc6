import { requireSessionUser } from "@/lib/auth/caller";
import { apiRoute, json, otherMethods } from "@/lib/http/route";
import { listPendingInvitationsForUser } from "@/lib/invitations/service";

/** The caller's pending invitations (sent to their session's address). */
export const GET = apiRoute(async (request) => {
  const user = await requireSessionUser(request, { rejectBearer: true });
  return json({ invitations: await listPendingInvitationsForUser(user) });
});

export const { POST, PUT, PATCH, DELETE } = otherMethods("GET");
