import { randomUUID } from "node:crypto";
import type { Selectable } from "kysely";
import type { Prisma } from "@/lib/db/client";
import type { AlertSpikeScope, AlertTrigger, EventLevel, WebhookFormat } from "@/lib/db/generated/kysely-enums";
import type { AlertRule } from "@/lib/db/generated/kysely";
import { sqlDb } from "@/lib/db/sql";
import { errors } from "@/lib/http/errors";
import { requireOwner, type ProjectAccess } from "@/lib/auth/access";
import { membersAmong } from "@/lib/auth/memberships";
import { newSigningSecret } from "@/lib/alerts/signing";
import { lockProject } from "@/lib/projects/lock";
import { MAX_RULES_PER_PROJECT, type CreateAlertRuleInput } from "@/lib/alerts/schemas";

export type AlertChannelView = { type: "email"; userIds: string[] } | { type: "webhook"; url: string; format: WebhookFormat };

/** A rule as the API and the settings page show it. */
export type AlertRuleView = {
  id: string;
  trigger: AlertTrigger;
  minLevel: EventLevel;
  spike: { count: number; minutes: number; scope: AlertSpikeScope } | null;
  /** A webhook's URL is shown whole to owners; members see its origin only (a Slack or Discord URL is itself a credential). */
  channel: AlertChannelView;
  /** A webhook that kept failing, paused until an owner resumes it (lib/alerts/pause.ts). */
  paused: { at: string; reason: string | null } | null;
  createdAt: string;
};

export type CreatedAlertRule = { rule: AlertRuleView; signingSecret?: string };

const VIEW_COLUMNS = [
  "id",
  "trigger",
  "min_level",
  "spike_count",
  "spike_minutes",
  "spike_scope",
  "channel",
  "email_user_ids",
  "webhook_url",
  "webhook_format",
  "paused_at",
  "pause_reason",
  "created_at",
] as const;

type RuleRecord = Pick<Selectable<AlertRule>, (typeof VIEW_COLUMNS)[number]>;

/** A URL reduced to its origin, for readers who may not hold the whole of it. */
export function redactedUrl(url: string): string {
  try {
    return `${new URL(url).origin}/…`;
  } catch {
    return "…";
  }
}

function toView(rule: RuleRecord, showSecrets: boolean): AlertRuleView {
  return {
    id: rule.id,
    trigger: rule.trigger,
    minLevel: rule.min_level,
    spike: rule.trigger === "spike" ? { count: rule.spike_count ?? 0, minutes: rule.spike_minutes ?? 0, scope: rule.spike_scope ?? "issue" } : null,
    channel:
      rule.channel === "webhook"
        ? { type: "webhook", url: showSecrets ? (rule.webhook_url ?? "") : redactedUrl(rule.webhook_url ?? ""), format: rule.webhook_format ?? "json" }
        : { type: "email", userIds: rule.email_user_ids },
    paused: rule.paused_at ? { at: rule.paused_at.toISOString(), reason: rule.pause_reason } : null,
    createdAt: rule.created_at.toISOString(),
  };
}

/** A project's alert rules, oldest first (members read, owners see webhook URLs whole). */
export async function listAlertRules(access: ProjectAccess): Promise<AlertRuleView[]> {
  const rules = await sqlDb().selectFrom("alert_rules").select(VIEW_COLUMNS).where("project_id", "=", access.projectId).orderBy("created_at").orderBy("id").execute();
  return rules.map((rule) => toView(rule, access.role === "owner"));
}

/**
 * Creates a rule (owners). Email recipients must be members of the project;
 * a webhook gets a signing secret, returned here once and stored sealed.
 */
export async function createAlertRule(access: ProjectAccess, input: CreateAlertRuleInput): Promise<CreatedAlertRule> {
  requireOwner(access);
  const { projectId } = access;
  const db = sqlDb();
  if (input.channel.type === "email") {
    const ids = input.channel.userIds;
    const known = await membersAmong(projectId, ids);
    const strangers = ids.flatMap((id, i) => (known.has(id) ? [] : [{ path: `channel.userIds.${i}`, message: "Not a member of this project." }]));
    if (strangers.length > 0) throw errors.validation(strangers);
  }
  const signing = input.channel.type === "webhook" ? newSigningSecret() : null;
  const rule = await db.transaction().execute(async (trx) => {
    // Serializes rule creation in one project so the cap holds; NO KEY UPDATE
    // leaves event inserts (KEY SHARE for their foreign key) unblocked.
    await lockProject(trx, projectId);
    const { n } = await trx.selectFrom("alert_rules").select((eb) => eb.fn.countAll<string>().as("n")).where("project_id", "=", projectId).executeTakeFirstOrThrow();
    if (Number(n) >= MAX_RULES_PER_PROJECT) throw errors.conflict(`A project has at most ${MAX_RULES_PER_PROJECT} alert rules. Delete one first.`);
    return trx
      .insertInto("alert_rules")
      .values({
        id: randomUUID(),
        project_id: projectId,
        trigger: input.trigger,
        min_level: input.minLevel,
        spike_count: input.spike?.count ?? null,
        spike_minutes: input.spike?.minutes ?? null,
        spike_scope: input.spike?.scope ?? null,
        channel: input.channel.type,
        email_user_ids: input.channel.type === "email" ? input.channel.userIds : [],
        webhook_url: input.channel.type === "webhook" ? input.channel.url : null,
        webhook_format: input.channel.type === "webhook" ? input.channel.format : null,
        webhook_secret: signing?.sealed ?? null,
      })
      .returning(VIEW_COLUMNS)
      .executeTakeFirstOrThrow();
  });
  return { rule: toView(rule, true), ...(signing ? { signingSecret: signing.secret } : {}) };
}

/**
 * Deletes a rule (owners). Its notifications not yet sent are cancelled in
 * the same transaction; those sent stay in the log.
 */
export async function deleteAlertRule(access: ProjectAccess, ruleId: string): Promise<void> {
  requireOwner(access);
  const deleted = await sqlDb()
    .transaction()
    .execute(async (trx) => {
      await trx
        .updateTable("alert_deliveries")
        .set({ status: "cancelled", answer: "its rule was deleted" })
        .where("rule_id", "=", ruleId)
        .where("project_id", "=", access.projectId)
        .where("status", "=", "pending")
        .execute();
      return trx.deleteFrom("alert_rules").where("id", "=", ruleId).where("project_id", "=", access.projectId).executeTakeFirst();
    });
  if (Number(deleted.numDeletedRows) === 0) throw errors.notFound("No alert rule with this id in this project.");
}

/**
 * Resumes a paused webhook (owners): its failures are forgotten and new
 * notifications go out again; those cancelled while it was paused stay so.
 */
export async function resumeAlertRule(access: ProjectAccess, ruleId: string): Promise<AlertRuleView> {
  requireOwner(access);
  const rule = await sqlDb()
    .updateTable("alert_rules")
    .set({ paused_at: null, pause_reason: null, failures_in_row: 0, failing_since: null })
    .where("id", "=", ruleId)
    .where("project_id", "=", access.projectId)
    .returning(VIEW_COLUMNS)
    .executeTakeFirst();
  if (!rule) throw errors.notFound("No alert rule with this id in this project.");
  return toView(rule, true);
}

/**
 * A new project's rules: new error issues and every regression, by email to
 * its owner (the only member yet). Inside the caller's transaction.
 */
export async function createDefaultAlertRules(tx: Prisma.TransactionClient, projectId: string, ownerId: string): Promise<void> {
  await tx.alertRule.createMany({
    data: [
      { projectId, trigger: "new_issue", minLevel: "error", channel: "email", emailUserIds: [ownerId] },
      { projectId, trigger: "regression", minLevel: "info", channel: "email", emailUserIds: [ownerId] },
    ],
  });
}
