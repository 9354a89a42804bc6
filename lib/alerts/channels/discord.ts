import type { EventLevel } from "@/lib/db/generated/kysely-enums";
import { clip, DIGEST_LISTED, headline, linkFree, peopleTime, spikeFacts, type Notification } from "@/lib/alerts/messages";
import { webhookChannel } from "@/lib/alerts/channels/signed-post";

/**
 * Client text for Discord: nothing Discord would link or preview (linkFree),
 * and its Markdown characters escaped; mentions are off anyway (allowed_mentions).
 */
function discordText(text: string): string {
  return linkFree(text).replace(/([\\*_`~|>[\]()#@-])/g, "\\$1");
}

const DISCORD_COLORS: Record<EventLevel, number> = { error: 0xdc2626, warn: 0xd97706, info: 0x2563eb };

/** A Discord webhook body: `content` and one embed; no @everyone or role pings, no link from client text. */
export function discordBody(n: Notification) {
  const line = headline(n, discordText);
  const fields = n.issue
    ? [
        { name: "Level", value: n.issue.level, inline: true },
        { name: "Events", value: n.issue.count.toLocaleString("en-US"), inline: true },
        { name: "First seen", value: peopleTime(n.issue.firstSeen), inline: false },
      ]
    : [];
  const description = [
    n.digest ? n.digest.issues.slice(0, DIGEST_LISTED).map((i) => `• ${discordText(clip(i.title))} (${i.level})`).join("\n") : null,
    !n.digest && n.issue ? discordText(clip(n.issue.title, 1_000)) : null,
    n.spike ? spikeFacts(n.spike) : null,
  ]
    .filter(Boolean)
    .join("\n");
  return {
    content: clip(line, 2_000),
    embeds: [
      {
        title: clip(discordText(n.issue ? n.issue.title : n.project.name), 256),
        url: n.url,
        // Discord reads an empty description as none; some Discord-compatible receivers refuse it.
        ...(description ? { description: clip(description, 4_000) } : {}),
        color: DISCORD_COLORS[n.issue?.level ?? "info"],
        fields,
        timestamp: n.sentAt.toISOString(),
        footer: { text: clip(`Telltale · ${linkFree(n.project.name)}`, 2_000) },
      },
    ],
    allowed_mentions: { parse: [] },
  };
}

export const discordChannel = webhookChannel("discord webhook", discordBody);
