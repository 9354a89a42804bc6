import { noContent, otherMethods, projectRoute } from "@/lib/http/route";
import { removeMember } from "@/lib/projects/members";
import { memberParamsSchema } from "@/lib/projects/schemas";

/** Removes a member (owners: anyone; members: themself). The last owner stays: 409. */
export const DELETE = projectRoute({ role: "member", params: memberParamsSchema }, async ({ access, params }) => {
  await removeMember(access, params.userId);
  return noContent();
});

export const { GET, POST, PUT, PATCH } = otherMethods("DELETE");
