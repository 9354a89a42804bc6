import { createAlertRule, listAlertRules } from "@/lib/alerts/rules";
import { createAlertRuleBodySchema } from "@/lib/alerts/schemas";
import { json, otherMethods, projectRoute } from "@/lib/edge/route";

/** The project's alert rules: {rules} (members read). */
export const GET = projectRoute({ role: "member" }, async ({ access }) => json({ rules: await listAlertRules(access) }));

/** Creates a rule (owners): 201 with the rule and, for a webhook, its signingSecret (shown this once). */
export const POST = projectRoute({ role: "owner", body: createAlertRuleBodySchema }, async ({ access, body }) => {
  const { rule, signingSecret } = await createAlertRule(access, body);
  return json({ ...rule, ...(signingSecret ? { signingSecret } : {}) }, { status: 201 });
});

export const { PUT, PATCH, DELETE } = otherMethods("GET", "POST");
