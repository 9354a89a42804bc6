import type { AlertChannel as ChannelKind, WebhookFormat } from "@/lib/db/generated/kysely-enums";
import { discordChannel } from "@/lib/alerts/channels/discord";
import { emailChannel } from "@/lib/alerts/channels/email";
import { slackChannel } from "@/lib/alerts/channels/slack";
import type { AlertChannel } from "@/lib/alerts/channels/types";
import { jsonWebhookChannel } from "@/lib/alerts/channels/webhook";
import { hostOf } from "@/lib/alerts/webhook-address";

/** A rule's channel: email, or a webhook in one of its formats (the schema's enums). */
export type ChannelName = Exclude<ChannelKind, "webhook"> | WebhookFormat;

/**
 * Every channel, one line each. Typed by the schema's enums, so a channel or
 * webhook format added to prisma/schema.prisma does not compile until it has
 * its module here.
 */
export const CHANNELS = {
  email: emailChannel,
  json: jsonWebhookChannel,
  slack: slackChannel,
  discord: discordChannel,
} satisfies Record<ChannelName, AlertChannel>;

export function channelName(rule: { channel: ChannelKind; webhook_format: WebhookFormat | null }): ChannelName {
  return rule.channel === "email" ? "email" : (rule.webhook_format ?? "json");
}

/** Where a rule sends, in words for the log: "email to ada@example.com", "slack webhook to hooks.slack.com". */
export function targetLabel(name: ChannelName, to: { recipients?: string[]; url?: string | null }): string {
  if (name === "email") return to.recipients ? `email to ${to.recipients.join(", ") || "nobody"}` : "email";
  let host = "?";
  try {
    host = hostOf(new URL(to.url ?? ""));
  } catch {
    // shown as "?"
  }
  return `${CHANNELS[name].label} to ${host}`;
}
