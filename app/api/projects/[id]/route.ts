import { json, noContent, otherMethods, projectRoute } from "@/lib/http/route";
import { deleteProjectAsOwner, getProjectDetails } from "@/lib/projects/service";

/** Project details with its API key (members only; others 404). */
export const GET = projectRoute({ role: "member" }, async ({ access }) => json(await getProjectDetails(access)));

/** Deletes the project and its events (owners only): 204. */
export const DELETE = projectRoute({ role: "owner" }, async ({ access }) => {
  await deleteProjectAsOwner(access);
  return noContent();
});

export const { POST, PUT, PATCH } = otherMethods("GET", "DELETE");
