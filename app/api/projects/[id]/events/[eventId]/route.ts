import { eventParamsSchema } from "@/lib/events/filters";
import { getProjectEvent } from "@/lib/events/list";
import { json, otherMethods, projectRoute } from "@/lib/edge/route";

/** One event of the project (the dashboard's permalink). */
export const GET = projectRoute({ role: "member", params: eventParamsSchema, notFound: "No event with this id in this project." }, async ({ access, params }) =>
  json(await getProjectEvent(access, params.eventId)),
);

export const { POST, PUT, PATCH, DELETE } = otherMethods("GET");
