import { assertSameOrigin, requireSessionUser } from "@/lib/auth/caller";
import { publicOrigin } from "@/lib/auth/public-origin";
import { readJsonBody } from "@/lib/http/read-json";
import { apiRoute, json, otherMethods } from "@/lib/http/route";
import { createInvitationBodySchema } from "@/lib/invitations/schemas";
import { createInvitation, listProjectInvitations } from "@/lib/invitations/service";
import { PROJECT_NOT_FOUND } from "@/lib/projects/access";
import { MANAGEMENT_BODY_LIMIT, parseInput, parsePathParams, projectParamsSchema } from "@/lib/projects/schemas";

type Params = { id: string };

/** Pending invitations of the project (owners only). */
export const GET = apiRoute<Params>(async (request, { params }) => {
  const user = await requireSessionUser(request, { rejectBearer: true });
  const { id } = parsePathParams(projectParamsSchema, params, PROJECT_NOT_FOUND);
  return json({ invitations: await listProjectInvitations(user.id, id) });
});

/** Invites {email, role} (owners only) and mails a single-use link valid 7 days: 201. */
export const POST = apiRoute<Params>(async (request, { params }) => {
  assertSameOrigin(request);
  const user = await requireSessionUser(request, { rejectBearer: true });
  const { id } = parsePathParams(projectParamsSchema, params, PROJECT_NOT_FOUND);
  const input = parseInput(createInvitationBodySchema, await readJsonBody(request, MANAGEMENT_BODY_LIMIT));
  return json(await createInvitation(user.id, id, input, { baseUrl: publicOrigin(request) }), { status: 201 });
});

export const { PUT, PATCH, DELETE } = otherMethods("GET", "POST");
