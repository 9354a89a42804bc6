import { sendTestAlert } from "@/lib/alerts/deliveries";
import { alertRuleParamsSchema } from "@/lib/alerts/schemas";
import { json, otherMethods, projectRoute } from "@/lib/edge/route";

export const dynamic = "force-dynamic";

/** Sends a test notification through the rule's channel now (owners): {delivery}, as the log shows it. */
export const POST = projectRoute({ role: "owner", params: alertRuleParamsSchema }, async ({ access, params }) =>
  json({ delivery: await sendTestAlert(access, params.ruleId) }),
);

export const { GET, PUT, PATCH, DELETE } = otherMethods("POST");
