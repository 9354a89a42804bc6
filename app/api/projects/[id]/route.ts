import { publicOrigin } from "@/lib/auth/public-origin";
import { json, noContent, otherMethods, projectRoute } from "@/lib/edge/route";
import { updateProjectBodySchema } from "@/lib/projects/schemas";
import { deleteProjectAsOwner, getProjectDetails, updateProject } from "@/lib/projects/service";

/** Project details with its API key, DSN and allowed origins (members only; others 404). */
export const GET = projectRoute({ role: "member" }, async ({ access, request }) => json(await getProjectDetails(access, publicOrigin(request))));

/** Renames the project and/or sets its allowed origins (owners only): the details, as GET answers them. */
export const PATCH = projectRoute({ role: "owner", body: updateProjectBodySchema }, async ({ access, body, request }) =>
  json(await updateProject(access, body, publicOrigin(request))),
);

/** Deletes the project and its events (owners only): 204. */
export const DELETE = projectRoute({ role: "owner" }, async ({ access }) => {
  await deleteProjectAsOwner(access);
  return noContent();
});

export const { POST, PUT } = otherMethods("GET", "PATCH", "DELETE");
