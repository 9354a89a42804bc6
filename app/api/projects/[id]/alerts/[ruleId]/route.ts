import { deleteAlertRule } from "@/lib/alerts/rules";
import { alertRuleParamsSchema } from "@/lib/alerts/schemas";
import { noContent, otherMethods, projectRoute } from "@/lib/edge/route";

/** Deletes a rule (owners); what it had not sent yet is cancelled. */
export const DELETE = projectRoute({ role: "owner", params: alertRuleParamsSchema }, async ({ access, params }) => {
  await deleteAlertRule(access, params.ruleId);
  return noContent();
});

export const { GET, POST, PUT, PATCH } = otherMethods("DELETE");
