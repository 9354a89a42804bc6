import { prisma, type Prisma } from "@/lib/db/client";
import type { EventLevel } from "@/lib/events/schema";
import { errors } from "@/lib/http/errors";
import { requireOwner, type ProjectAccess } from "@/lib/auth/access";
import { membersAmong } from "@/lib/auth/memberships";
import { newSigningSecret } from "@/lib/alerts/signing";
import { hostOf } from "@/lib/alerts/webhook-address";
import { MAX_RULES_PER_PROJECT, type AlertTrigger, type CreateAlertRuleInput, type SpikeScope, type WebhookFormat } from "@/lib/alerts/schemas";

export type AlertChannelView = { type: "email"; userIds: string[] } | { type: "webhook"; url: string; format: WebhookFormat };

/** A rule as the API and the settings page show it. */
export type AlertRuleView = {
  id: string;
  trigger: AlertTrigger;
  minLevel: EventLevel;
  spike: { count: number; minutes: number; scope: SpikeScope } | null;
  /** A webhook's URL is shown whole to owners; members see its origin only (a Slack or Discord URL is itself a credential). */
  channel: AlertChannelView;
  createdAt: string;
};

export type CreatedAlertRule = { rule: AlertRuleView; signingSecret?: string };

const ruleSelect = {
  id: true,
  trigger: true,
  minLevel: true,
  spikeCount: true,
  spikeMinutes: true,
  spikeScope: true,
  channel: true,
  emailUserIds: true,
  webhookUrl: true,
  webhookFormat: true,
  createdAt: true,
} satisfies Prisma.AlertRuleSelect;

type RuleRecord = Prisma.AlertRuleGetPayload<{ select: typeof ruleSelect }>;

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
    minLevel: rule.minLevel,
    spike: rule.trigger === "spike" ? { count: rule.spikeCount ?? 0, minutes: rule.spikeMinutes ?? 0, scope: rule.spikeScope ?? "issue" } : null,
    channel:
      rule.channel === "webhook"
        ? { type: "webhook", url: showSecrets ? (rule.webhookUrl ?? "") : redactedUrl(rule.webhookUrl ?? ""), format: rule.webhookFormat ?? "json" }
        : { type: "email", userIds: rule.emailUserIds },
    createdAt: rule.createdAt.toISOString(),
  };
}

/** A project's alert rules, oldest first (members read, owners see webhook URLs whole). */
export async function listAlertRules(access: ProjectAccess): Promise<AlertRuleView[]> {
  const rules = await prisma.alertRule.findMany({
    where: { projectId: access.projectId },
    orderBy: [{ createdAt: "asc" }, { id: "asc" }],
    select: ruleSelect,
  });
  return rules.map((rule) => toView(rule, access.role === "owner"));
}

/**
 * Creates a rule (owners). Email recipients must be members of the project;
 * a webhook gets a signing secret, returned here once and stored sealed.
 */
export async function createAlertRule(access: ProjectAccess, input: CreateAlertRuleInput): Promise<CreatedAlertRule> {
  requireOwner(access);
  const { projectId } = access;
  if (input.channel.type === "email") {
    const ids = input.channel.userIds;
    const known = await membersAmong(projectId, ids);
    const strangers = ids.flatMap((id, i) => (known.has(id) ? [] : [{ path: `channel.userIds.${i}`, message: "Not a member of this project." }]));
    if (strangers.length > 0) throw errors.validation(strangers);
  }
  const signing = input.channel.type === "webhook" ? newSigningSecret() : null;
  const rule = await prisma.$transaction(async (tx) => {
    // Serializes rule creation in one project so the cap holds; NO KEY UPDATE
    // leaves event inserts (KEY SHARE for their foreign key) unblocked.
    await tx.$queryRaw`SELECT id FROM projects WHERE id = ${projectId} FOR NO KEY UPDATE`;
    const count = await tx.alertRule.count({ where: { projectId } });
    if (count >= MAX_RULES_PER_PROJECT) throw errors.conflict(`A project has at most ${MAX_RULES_PER_PROJECT} alert rules. Delete one first.`);
    return tx.alertRule.create({
      data: {
        projectId,
        trigger: input.trigger,
        minLevel: input.minLevel,
        spikeCount: input.spike?.count ?? null,
        spikeMinutes: input.spike?.minutes ?? null,
        spikeScope: input.spike?.scope ?? null,
        channel: input.channel.type,
        emailUserIds: input.channel.type === "email" ? input.channel.userIds : [],
        webhookUrl: input.channel.type === "webhook" ? input.channel.url : null,
        webhookFormat: input.channel.type === "webhook" ? input.channel.format : null,
        webhookSecret: signing?.sealed ?? null,
      },
      select: ruleSelect,
    });
  });
  return { rule: toView(rule, true), ...(signing ? { signingSecret: signing.secret } : {}) };
}

/**
 * Deletes a rule (owners). Its notifications not yet sent are cancelled in
 * the same transaction; those sent stay in the log.
 */
export async function deleteAlertRule(access: ProjectAccess, ruleId: string): Promise<void> {
  requireOwner(access);
  const deleted = await prisma.$transaction(async (tx) => {
    await tx.alertDelivery.updateMany({
      where: { ruleId, projectId: access.projectId, status: "pending" },
      data: { status: "cancelled", answer: "its rule was deleted" },
    });
    return tx.alertRule.deleteMany({ where: { id: ruleId, projectId: access.projectId } });
  });
  if (deleted.count === 0) throw errors.notFound("No alert rule with this id in this project.");
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

/** Where a rule sends, in words for the log: the recipients, or the webhook's format and host. */
export function channelLabel(rule: { channel: "email" | "webhook"; webhookUrl: string | null; webhookFormat: WebhookFormat | null }, recipients?: string[]): string {
  if (rule.channel === "email") return recipients ? `email to ${recipients.join(", ") || "nobody"}` : "email";
  let host = "?";
  try {
    host = hostOf(new URL(rule.webhookUrl ?? ""));
  } catch {
    // shown as "?"
  }
  return `${rule.webhookFormat ?? "json"} webhook to ${host}`;
}
