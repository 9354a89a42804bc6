"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import type { AlertRuleFormState } from "@/components/alert-rule-form";
import { sendTestAlert } from "@/lib/alerts/deliveries";
import { createAlertRule, deleteAlertRule, resumeAlertRule } from "@/lib/alerts/rules";
import { alertRuleBodyFromForm, alertRuleFormSchema, createAlertRuleBodySchema } from "@/lib/alerts/schemas";
import { projectAction, type ActionState } from "@/lib/edge/action";
import { idSchema, parseInput } from "@/lib/http/input";

const settingsPath = (projectId: string) => `/projects/${projectId}/settings`;

/** Owner: a new alert rule from the settings form; a webhook's signing secret comes back this once. */
export const createAlertRuleAction = projectAction({ role: "owner", input: alertRuleFormSchema }, async ({ access, input }): Promise<AlertRuleFormState> => {
  const { rule, signingSecret } = await createAlertRule(access, parseInput(createAlertRuleBodySchema, alertRuleBodyFromForm(input)));
  revalidatePath(settingsPath(access.projectId));
  return { ok: true, ruleId: rule.id, signingSecret: signingSecret ?? null };
});

export const deleteAlertRuleAction = projectAction({ role: "owner", input: z.object({ ruleId: idSchema }) }, async ({ access, input }): Promise<ActionState> => {
  await deleteAlertRule(access, input.ruleId);
  revalidatePath(settingsPath(access.projectId));
  return { ok: true };
});

/** Owner: a test notification through the rule's channel, now; the answer is shown beside the button and in the log. */
export const sendTestAlertAction = projectAction({ role: "owner", input: z.object({ ruleId: idSchema }) }, async ({ access, input }): Promise<ActionState> => {
  const delivery = await sendTestAlert(access, input.ruleId);
  revalidatePath(settingsPath(access.projectId));
  if (delivery.status === "sent") return { ok: true, message: `Test sent (${delivery.answer}).` };
  if (delivery.status === "logged") return { ok: true, message: "Test mail printed to the server log (development: EMAIL_SERVER is not set)." };
  return { ok: false, error: `Test not delivered: ${delivery.answer ?? "no answer"}.` };
});

/** Owner: a paused webhook goes back to work (lib/alerts/pause.ts paused it after failing again and again). */
export const resumeAlertRuleAction = projectAction({ role: "owner", input: z.object({ ruleId: idSchema }) }, async ({ access, input }): Promise<ActionState> => {
  await resumeAlertRule(access, input.ruleId);
  revalidatePath(settingsPath(access.projectId));
  return { ok: true, message: "Resumed: notifications go to this webhook again." };
});
