import { assertSameOrigin, requireSessionUser } from "@/lib/auth/caller";
import { apiRoute, json, otherMethods } from "@/lib/http/route";
import { PROJECT_NOT_FOUND } from "@/lib/projects/access";
import { parsePathParams, projectParamsSchema } from "@/lib/projects/schemas";
import { rotateKeyAsOwner } from "@/lib/projects/service";

/** Rotates the project's API key (owners only): {apiKey}; the old key stops working at once. */
export const POST = apiRoute<{ id: string }>(async (request, { params }) => {
  assertSameOrigin(request);
  const user = await requireSessionUser(request, { rejectBearer: true });
  const { id } = parsePathParams(projectParamsSchema, params, PROJECT_NOT_FOUND);
  return json(await rotateKeyAsOwner(user.id, id));
});

export const { GET, PUT, PATCH, DELETE } = otherMethods("POST");
