import { clip, DIGEST_LISTED, headline, issueFacts, linkFree, spikeFacts, type Notification } from "@/lib/alerts/messages";
import { webhookChannel } from "@/lib/alerts/channels/signed-post";

/**
 * Client text for Slack's mrkdwn: nothing Slack would link or preview
 * (linkFree), and &, < and > escaped, so it can neither make a link of its
 * own (<url|text>) nor mention (<!channel>).
 */
function slackText(text: string): string {
  return linkFree(text).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** A Slack incoming-webhook body: `text` (notifications, fallbacks) and blocks; no previews of any link. */
export function slackBody(n: Notification) {
  const line = headline(n, slackText);
  const lines = [`*<${n.url}|${line}>*`];
  if (n.issue) lines.push(slackText(issueFacts(n.issue)));
  if (n.spike) lines.push(spikeFacts(n.spike));
  if (n.digest) for (const item of n.digest.issues.slice(0, DIGEST_LISTED)) lines.push(`• <${item.url}|${slackText(clip(item.title))}> (${item.level})`);
  return {
    text: line,
    blocks: [
      { type: "section", text: { type: "mrkdwn", text: clip(lines.join("\n"), 2_900) } },
      { type: "context", elements: [{ type: "mrkdwn", text: `Telltale · ${slackText(n.project.name)}${n.test ? " · test" : ""}` }] },
    ],
    unfurl_links: false,
    unfurl_media: false,
  };
}

export const slackChannel = webhookChannel("slack webhook", slackBody);
