import { json, otherMethods, sessionRoute } from "@/lib/edge/route";
import { listPendingInvitationsForUser } from "@/lib/invitations/service";

/** The caller's pending invitations (sent to their session's address). */
export const GET = sessionRoute({}, async ({ user }) => json({ invitations: await listPendingInvitationsForUser(user) }));

export const { POST, PUT, PATCH, DELETE } = otherMethods("GET");
