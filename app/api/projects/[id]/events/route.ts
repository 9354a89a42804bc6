import { requireSessionUser } from "@/lib/auth/caller";
import { listProjectEvents, parseEventsQuery } from "@/lib/events/query";
import { apiRoute, json, otherMethods } from "@/lib/http/route";
import { PROJECT_NOT_FOUND } from "@/lib/projects/access";
import { parsePathParams, projectParamsSchema, queryObject } from "@/lib/projects/schemas";

/** A page of the project's events, newest first: {events, nextCursor}. */
export const GET = apiRoute<{ id: string }>(async (request, { params }) => {
  const user = await requireSessionUser(request, { rejectBearer: true });
  const { id } = parsePathParams(projectParamsSchema, params, PROJECT_NOT_FOUND);
  const filters = parseEventsQuery(queryObject(request));
  return json(await listProjectEvents(user.id, id, filters));
});

export const { POST, PUT, PATCH, DELETE } = otherMethods("GET");
