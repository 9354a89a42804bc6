import { json, otherMethods, projectRoute } from "@/lib/edge/route";
import { listMembers } from "@/lib/projects/members";

/** The project's members with their roles (members only). */
export const GET = projectRoute({ role: "member" }, async ({ access }) => json({ members: await listMembers(access) }));

export const { POST, PUT, PATCH, DELETE } = otherMethods("GET");
