import { publicOrigin } from "@/lib/auth/public-origin";
import { json, otherMethods, sessionRoute } from "@/lib/edge/route";
import { createProjectWithDsn } from "@/lib/project-setup/create-project";
import { createProjectBodySchema } from "@/lib/projects/schemas";
import { listProjectsForUser } from "@/lib/projects/service";

/** The caller's projects with their role. */
export const GET = sessionRoute({}, async ({ user }) => json({ projects: await listProjectsForUser(user.id) }));

/** Creates a project owned by the caller: 201 {id, name, apiKey, dsn}. */
export const POST = sessionRoute({ body: createProjectBodySchema }, async ({ user, body, request }) =>
  json(await createProjectWithDsn(user.id, body.name, publicOrigin(request)), { status: 201 }),
);

export const { PUT, PATCH, DELETE } = otherMethods("GET", "POST");
