import { json, noContent, otherMethods, projectRoute } from "@/lib/edge/route";
import { changeMemberRole, removeMember } from "@/lib/projects/members";
import { changeRoleBodySchema, memberParamsSchema } from "@/lib/projects/schemas";

/** Changes a member's role (owners): the member. Demoting the last owner: 409. */
export const PATCH = projectRoute({ role: "owner", params: memberParamsSchema, body: changeRoleBodySchema }, async ({ access, params, body }) =>
  json(await changeMemberRole(access, params.userId, body.role)),
);

/** Removes a member (owners: anyone; members: themself). The last owner stays: 409. */
export const DELETE = projectRoute({ role: "member", params: memberParamsSchema }, async ({ access, params }) => {
  await removeMember(access, params.userId);
  return noContent();
});

export const { GET, POST, PUT } = otherMethods("PATCH", "DELETE");
