import { eventsQuerySchema } from "@/lib/events/filters";
import { listProjectEvents } from "@/lib/events/list";
import { json, otherMethods, projectRoute } from "@/lib/edge/route";

/** A page of the project's events, newest first: {events, nextCursor}. */
export const GET = projectRoute({ role: "member", query: eventsQuerySchema }, async ({ access, query }) => json(await listProjectEvents(access, query)));

export const { POST, PUT, PATCH, DELETE } = otherMethods("GET");
