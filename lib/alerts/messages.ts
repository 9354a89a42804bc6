import type { EventLevel } from "@/lib/events/schema";
import { buttonMailHtml, inertMailText, type MailMessage } from "@/lib/mail/send-mail";
import type { AlertTrigger, SpikeScope, WebhookFormat } from "@/lib/alerts/schemas";
import { formatUtc } from "@/lib/text/format-utc";
import { plural } from "@/lib/text/plural";

/** An issue as a notification describes it. */
export type NotifiedIssue = {
  id: string;
  title: string;
  level: EventLevel;
  count: number;
  firstSeen: string;
  lastSeen: string;
  url: string;
};

/** Everything one notification says, whatever the channel. */
export type Notification = {
  deliveryId: string;
  trigger: AlertTrigger;
  test: boolean;
  project: { id: string; name: string; url: string };
  issue: NotifiedIssue | null;
  spike: { observed: number; count: number; minutes: number; scope: SpikeScope } | null;
  /** Notifications held back by the per-project cap, sent as one. */
  digest: { total: number; issues: (NotifiedIssue & { trigger: AlertTrigger })[] } | null;
  /** The dashboard page to open: the issue, or the project's issues. */
  url: string;
  sentAt: Date;
};

// Titles are the client's text: bounded in every channel.
const MAX_TITLE_CHARS = 200;
const DIGEST_LISTED = 20;

function clip(text: string, max = MAX_TITLE_CHARS): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

const TRIGGER_WORDS: Record<AlertTrigger, { one: string; many: string }> = {
  new_issue: { one: "New issue", many: "new issues" },
  regression: { one: "Regression", many: "regressions" },
  spike: { one: "Spike", many: "spikes" },
};

/**
 * The one-line summary every channel starts with. `quote` makes the
 * client's and owner's text safe for the channel (mail, Slack, Discord).
 */
export function headline(n: Notification, quote: (text: string) => string = (t) => t): string {
  const project = quote(n.project.name);
  if (n.test) return `Test notification for "${project}": this ${TRIGGER_WORDS[n.trigger].one.toLowerCase()} rule reaches you`;
  if (n.digest) return `${n.digest.total} more ${TRIGGER_WORDS[n.trigger].many} in "${project}" (held back by the per-project limit)`;
  if (n.spike) {
    const what = `${n.spike.observed.toLocaleString("en-US")} events in ${n.spike.minutes} min`;
    return n.issue ? `Spike in "${project}": ${what}: ${quote(clip(n.issue.title))}` : `Spike in "${project}": ${what} across the project`;
  }
  return `${TRIGGER_WORDS[n.trigger].one} in "${project}": ${quote(clip(n.issue?.title ?? ""))}`;
}

/** What a spike rule asked for, for the line under the headline. */
function spikeFacts(spike: NonNullable<Notification["spike"]>): string {
  return `Threshold: ${plural(spike.count, "event")} in ${spike.minutes} min (${spike.scope === "issue" ? "one issue" : "the whole project"}).`;
}

/** An ISO time as people read it in a mail or chat ("2026-11-27 05:05:33 UTC"); the JSON body keeps ISO. */
function peopleTime(iso: string): string {
  return formatUtc(new Date(iso), true);
}

function issueFacts(issue: NotifiedIssue): string {
  return `${issue.level} · ${plural(issue.count, "event")} · first seen ${peopleTime(issue.firstSeen)} · last seen ${peopleTime(issue.lastSeen)}`;
}

// ---------------------------------------------------------------------------
// Email

/** The mail: subject, plain text and HTML, with every quoted text made inert (no links but ours). */
export function alertMail(n: Notification, to: string): MailMessage {
  const line = headline(n, inertMailText);
  const details: string[] = [];
  if (n.issue) details.push(`${inertMailText(clip(n.issue.title))}`, issueFacts(n.issue));
  if (n.spike) details.push(spikeFacts(n.spike));
  if (n.digest) {
    for (const item of n.digest.issues.slice(0, DIGEST_LISTED)) details.push(`- ${inertMailText(clip(item.title))} (${item.level}, ${plural(item.count, "event")})`);
    if (n.digest.total > DIGEST_LISTED) details.push(`…and ${n.digest.total - DIGEST_LISTED} more.`);
  }
  const footnote = "You get this mail because of an alert rule in the project's settings on Telltale; an owner can change or delete it there.";
  return {
    to,
    subject: `[Telltale] ${line}`,
    text: [line, "", ...details, "", `Open in Telltale: ${n.url}`, "", footnote, ""].join("\n"),
    html: buttonMailHtml({ intro: [line, ...details].join(" — "), buttonLabel: n.issue ? "Open the issue" : "Open the project", url: n.url, footnote }),
  };
}

// ---------------------------------------------------------------------------
// Webhooks

function issueJson(issue: NotifiedIssue) {
  return { id: issue.id, title: issue.title, level: issue.level, count: issue.count, firstSeen: issue.firstSeen, lastSeen: issue.lastSeen, url: issue.url };
}

/** The generic body: the project, the trigger, the issue, and a dashboard link. */
export function genericBody(n: Notification) {
  return {
    id: n.deliveryId,
    trigger: n.trigger,
    test: n.test,
    project: n.project,
    issue: n.issue ? issueJson(n.issue) : null,
    spike: n.spike,
    digest: n.digest ? { total: n.digest.total, issues: n.digest.issues.map((i) => ({ trigger: i.trigger, ...issueJson(i) })) } : null,
    url: n.url,
    sentAt: n.sentAt.toISOString(),
  };
}

/** Slack's mrkdwn: &, < and > escaped, so client text can neither link nor mention (<!channel>). */
function slackText(text: string): string {
  return text.replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
}

/** A Slack incoming-webhook body: `text` (notifications, fallbacks) and blocks. */
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
  };
}

/** Discord markdown characters escaped; mentions are off anyway (allowed_mentions). */
function discordText(text: string): string {
  return text.replace(/([\\*_`~|>[\]()#@-])/g, "\\$1");
}

const DISCORD_COLORS: Record<EventLevel, number> = { error: 0xdc2626, warn: 0xd97706, info: 0x2563eb };

/** A Discord webhook body: `content` and one embed; no @everyone or role pings from client text. */
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
        title: clip(n.issue ? n.issue.title : n.project.name, 256),
        url: n.url,
        // Discord reads an empty description as none; some Discord-compatible receivers refuse it.
        ...(description ? { description: clip(description, 4_000) } : {}),
        color: DISCORD_COLORS[n.issue?.level ?? "info"],
        fields,
        timestamp: n.sentAt.toISOString(),
        footer: { text: clip(`Telltale · ${n.project.name}`, 2_000) },
      },
    ],
    allowed_mentions: { parse: [] },
  };
}

export function webhookBody(n: Notification, format: WebhookFormat): string {
  const body = format === "slack" ? slackBody(n) : format === "discord" ? discordBody(n) : genericBody(n);
  return JSON.stringify(body);
}
