import { requireSessionUser } from "@/lib/auth/caller";
import { apiRoute, json, otherMethods } from "@/lib/http/route";
import { PROJECT_NOT_FOUND } from "@/lib/projects/access";
import { listMembers } from "@/lib/projects/members";
import { parsePathParams, projectParamsSchema } from "@/lib/projects/schemas";

/** The project's members with their roles (members only). */
export const GET = apiRoute<{ id: string }>(async (request, { params }) => {
  const user = await requireSessionUser(request, { rejectBearer: true });
  const { id } = parsePathParams(projectParamsSchema, params, PROJECT_NOT_FOUND);
  return json({ members: await listMembers(user.id, id) });
});

export const { POST, PUT, PATCH, DELETE } = otherMethods("GET");
