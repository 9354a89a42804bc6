import { publicOrigin } from "@/lib/auth/public-origin";
import { json, otherMethods, projectRoute } from "@/lib/edge/route";
import { createInvitationBodySchema } from "@/lib/invitations/schemas";
import { createInvitation, listProjectInvitations } from "@/lib/invitations/service";

/** Pending invitations of the project (owners only). */
export const GET = projectRoute({ role: "owner" }, async ({ access }) => json({ invitations: await listProjectInvitations(access) }));

/** Invites {email, role} (owners only) and mails a single-use link valid 7 days: 201. */
export const POST = projectRoute({ role: "owner", body: createInvitationBodySchema }, async ({ request, access, body }) =>
  json(await createInvitation(access, body, { baseUrl: publicOrigin(request) }), { status: 201 }),
);

export const { PUT, PATCH, DELETE } = otherMethods("GET", "POST");
