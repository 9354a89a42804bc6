import { assertSameOrigin, requireSessionUser } from "@/lib/auth/caller";
import { apiRoute, noContent, otherMethods } from "@/lib/http/route";
import { PROJECT_NOT_FOUND } from "@/lib/projects/access";
import { removeMember } from "@/lib/projects/members";
import { memberParamsSchema, parsePathParams } from "@/lib/projects/schemas";

/** Removes a member (owners: anyone; members: themself). The last owner stays: 409. */
export const DELETE = apiRoute<{ id: string; userId: string }>(async (request, { params }) => {
  assertSameOrigin(request);
  const user = await requireSessionUser(request, { rejectBearer: true });
  const { id, userId } = parsePathParams(memberParamsSchema, params, PROJECT_NOT_FOUND);
  await removeMember(user.id, id, userId);
  return noContent();
});

export const { GET, POST, PUT, PATCH } = otherMethods("DELETE");
