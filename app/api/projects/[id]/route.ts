import { assertSameOrigin, requireSessionUser } from "@/lib/auth/caller";
import { apiRoute, json, noContent, otherMethods } from "@/lib/http/route";
import { PROJECT_NOT_FOUND } from "@/lib/projects/access";
import { parsePathParams, projectParamsSchema } from "@/lib/projects/schemas";
import { deleteProjectAsOwner, getProjectForMember } from "@/lib/projects/service";

type Params = { id: string };

/** Project details with its API key (members only; others 404). */
export const GET = apiRoute<Params>(async (request, { params }) => {
  const user = await requireSessionUser(request, { rejectBearer: true });
  const { id } = parsePathParams(projectParamsSchema, params, PROJECT_NOT_FOUND);
  return json(await getProjectForMember(user.id, id));
});

/** Deletes the project and its events (owners only): 204. */
export const DELETE = apiRoute<Params>(async (request, { params }) => {
  assertSameOrigin(request);
  const user = await requireSessionUser(request, { rejectBearer: true });
  const { id } = parsePathParams(projectParamsSchema, params, PROJECT_NOT_FOUND);
  await deleteProjectAsOwner(user.id, id);
  return noContent();
});

export const { POST, PUT, PATCH } = otherMethods("GET", "DELETE");
