import { z } from "zod";
import { settings } from "@/lib/config/settings";
import { AlertSpikeScope, AlertTrigger, WebhookFormat } from "@/lib/db/generated/kysely-enums";
import { EVENT_LEVELS } from "@/lib/events/schema";
import { idSchema } from "@/lib/http/input";
import { webhookUrlProblem } from "@/lib/alerts/webhook-address";

/** Input schemas of the alerts API and the settings form (the values come from the schema's enums). */

/** Rules one project may have; members one email rule may name. */
export const MAX_RULES_PER_PROJECT = 50;
export const MAX_EMAIL_RECIPIENTS = 50;
export const MAX_WEBHOOK_URL_CHARS = 2_000;
/** A spike's window: a minute to a day (the per-minute counts are kept that long at least). */
export const MAX_SPIKE_MINUTES = 1_440;

const wholeNumber = (what: string, min: number, max: number) =>
  z
    .int({ error: `${what} must be a whole number.` })
    .min(min, `${what} must be at least ${min}.`)
    .max(max, `${what} must be at most ${max.toLocaleString("en-US")}.`);

const spikeSchema = z.strictObject(
  {
    count: wholeNumber("The spike's count", 1, 1_000_000),
    minutes: wholeNumber("The spike's minutes", 1, MAX_SPIKE_MINUTES),
    scope: z.enum(AlertSpikeScope, { error: "Must be issue (each issue's events) or project (all the project's events)." }).default("issue"),
  },
  { error: "Must be an object {count, minutes, scope?}." },
);

const webhookUrlSchema = z
  .string({ error: "Must be a URL." })
  .trim()
  .max(MAX_WEBHOOK_URL_CHARS, `Must be at most ${MAX_WEBHOOK_URL_CHARS} characters.`)
  .superRefine((url, ctx) => {
    const problem = webhookUrlProblem(url, settings().alerts.allowPrivateWebhooks);
    if (problem) ctx.addIssue({ code: "custom", message: problem });
  });

const channelSchema = z.discriminatedUnion(
  "type",
  [
    z.strictObject({
      type: z.literal("email"),
      userIds: z
        .array(idSchema, { error: "Must be a list of member ids." })
        .min(1, "Choose at least one member to email.")
        .max(MAX_EMAIL_RECIPIENTS, `At most ${MAX_EMAIL_RECIPIENTS} recipients.`)
        .transform((ids) => [...new Set(ids)]),
    }),
    z.strictObject({
      type: z.literal("webhook"),
      url: webhookUrlSchema,
      format: z.enum(WebhookFormat, { error: "Must be json, slack or discord." }),
    }),
  ],
  { error: "Must be {type: \"email\", userIds} or {type: \"webhook\", url, format}." },
);

export const createAlertRuleBodySchema = z
  .strictObject({
    trigger: z.enum(AlertTrigger, { error: "Must be new_issue, regression or spike." }),
    minLevel: z.enum(EVENT_LEVELS, { error: "Must be error, warn or info (the least severe level that notifies)." }),
    spike: spikeSchema.optional(),
    channel: channelSchema,
  })
  .superRefine((rule, ctx) => {
    if (rule.trigger === "spike" && !rule.spike) ctx.addIssue({ code: "custom", path: ["spike"], message: "A spike rule needs spike: {count, minutes}." });
    if (rule.trigger !== "spike" && rule.spike) ctx.addIssue({ code: "custom", path: ["spike"], message: "Only a spike rule takes spike." });
  });

export type CreateAlertRuleInput = z.output<typeof createAlertRuleBodySchema>;

export const alertRuleParamsSchema = z.object({ id: idSchema, ruleId: idSchema });

export const MAX_DELIVERIES_PAGE = 200;
export const alertDeliveriesQuerySchema = z.object({
  limit: z
    .string()
    .regex(/^\d{1,4}$/, `Must be a whole number from 1 to ${MAX_DELIVERIES_PAGE}.`)
    .transform(Number)
    .refine((n) => n >= 1 && n <= MAX_DELIVERIES_PAGE, `Must be a whole number from 1 to ${MAX_DELIVERIES_PAGE}.`)
    .describe(`Page size, 1 to ${MAX_DELIVERIES_PAGE}`)
    .optional(),
  cursor: z.string().max(200).describe("nextCursor of the previous page, unchanged").optional(),
});
export type AlertDeliveriesQuery = z.output<typeof alertDeliveriesQuerySchema>;

/**
 * The settings form's fields (strings, as a form sends them), turned into
 * the API's body so both go through createAlertRuleBodySchema. Recipients
 * arrive as one comma-separated `userIds` field.
 */
export const alertRuleFormSchema = z.object({
  trigger: z.string().default(""),
  minLevel: z.string().default(""),
  spikeCount: z.string().optional(),
  spikeMinutes: z.string().optional(),
  spikeScope: z.string().optional(),
  channelType: z.string().default(""),
  userIds: z.string().optional(),
  webhookUrl: z.string().optional(),
  webhookFormat: z.string().optional(),
});

export function alertRuleBodyFromForm(form: z.output<typeof alertRuleFormSchema>): unknown {
  const number = (value: string | undefined) => (value && /^\s*\d+\s*$/.test(value) ? Number(value) : value);
  return {
    trigger: form.trigger,
    minLevel: form.minLevel,
    ...(form.trigger === "spike" ? { spike: { count: number(form.spikeCount), minutes: number(form.spikeMinutes), scope: form.spikeScope || "issue" } } : {}),
    channel:
      form.channelType === "webhook"
        ? { type: "webhook", url: form.webhookUrl ?? "", format: form.webhookFormat ?? "" }
        : { type: form.channelType, userIds: (form.userIds ?? "").split(",").map((id) => id.trim()).filter(Boolean) },
  };
}
