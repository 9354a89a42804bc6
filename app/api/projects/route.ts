import { assertSameOrigin, requireSessionUser } from "@/lib/auth/caller";
import { readJsonBody } from "@/lib/http/read-json";
import { apiRoute, json, otherMethods } from "@/lib/http/route";
import { createProject } from "@/lib/projects/create-project";
import { createProjectBodySchema, MANAGEMENT_BODY_LIMIT, parseInput } from "@/lib/projects/schemas";
import { listProjectsForUser } from "@/lib/projects/service";

/** The caller's projects with their role. */
export const GET = apiRoute(async (request) => {
  const user = await requireSessionUser(request, { rejectBearer: true });
  return json({ projects: await listProjectsForUser(user.id) });
});

/** Creates a project owned by the caller: 201 {id, name, apiKey}. */
export const POST = apiRoute(async (request) => {
  assertSameOrigin(request);
  const user = await requireSessionUser(request, { rejectBearer: true });
  const { name } = parseInput(createProjectBodySchema, await readJsonBody(request, MANAGEMENT_BODY_LIMIT));
  return json(await createProject(user.id, name), { status: 201 });
});

export const { PUT, PATCH, DELETE } = otherMethods("GET", "POST");
