import { z } from "zod";
import { uuidParamSchema } from "@/lib/events/filters";
import { getProjectEvent } from "@/lib/events/list";
import { idSchema } from "@/lib/http/input";
import { json, otherMethods, projectRoute } from "@/lib/edge/route";

const params = z.object({ id: idSchema, eventId: uuidParamSchema("Not an event id.") });

/** One event of the project (the dashboard's permalink). */
export const GET = projectRoute({ role: "member", params, notFound: "No event with this id in this project." }, async ({ access, params }) =>
  json(await getProjectEvent(access, params.eventId)),
);

export const { POST, PUT, PATCH, DELETE } = otherMethods("GET");
