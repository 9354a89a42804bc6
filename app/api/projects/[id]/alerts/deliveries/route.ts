import { listAlertDeliveries } from "@/lib/alerts/deliveries";
import { alertDeliveriesQuerySchema } from "@/lib/alerts/schemas";
import { json, otherMethods, projectRoute } from "@/lib/edge/route";

/** The delivery log, newest first: {deliveries, nextCursor} (members read). */
export const GET = projectRoute({ role: "member", query: alertDeliveriesQuerySchema }, async ({ access, query }) =>
  json(await listAlertDeliveries(access, query)),
);

export const { POST, PUT, PATCH, DELETE } = otherMethods("GET");
