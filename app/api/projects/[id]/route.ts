import { json, noContent, otherMethods, projectRoute } from "@/lib/edge/route";
import { renameProjectBodySchema } from "@/lib/projects/schemas";
import { deleteProjectAsOwner, getProjectDetails, renameProject } from "@/lib/projects/service";

/** Project details with its API key (members only; others 404). */
export const GET = projectRoute({ role: "member" }, async ({ access }) => json(await getProjectDetails(access)));

/** Renames the project (owners only): the details, as GET answers them. */
export const PATCH = projectRoute({ role: "owner", body: renameProjectBodySchema }, async ({ access, body }) => json(await renameProject(access, body.name)));

/** Deletes the project and its events (owners only): 204. */
export const DELETE = projectRoute({ role: "owner" }, async ({ access }) => {
  await deleteProjectAsOwner(access);
  return noContent();
});

export const { POST, PUT } = otherMethods("GET", "PATCH", "DELETE");
