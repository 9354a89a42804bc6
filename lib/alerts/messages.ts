import type { AlertSpikeScope, AlertTrigger, EventLevel } from "@/lib/db/generated/kysely-enums";
import { inertMailText } from "@/lib/mail/send-mail";
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
  /** Its latest event, for the mail: the message as sent, its release, where in the app's code it was raised. */
  latest?: LatestFacts | null;
};

export type LatestFacts = { message: string; release: string | null; frame: string | null };

/** A rule's webhook paused after failing (told to the project's owners by email). */
export type PausedWebhook = { target: string; failures: number; since: string; lastAnswer: string };

/** Everything one notification says, whatever the channel. */
export type Notification = {
  deliveryId: string;
  trigger: AlertTrigger;
  test: boolean;
  project: { id: string; name: string; url: string };
  issue: NotifiedIssue | null;
  spike: { observed: number; count: number; minutes: number; scope: AlertSpikeScope } | null;
  /** Notifications held back by the per-project cap, sent as one. */
  digest: { total: number; issues: (NotifiedIssue & { trigger: AlertTrigger })[] } | null;
  paused: PausedWebhook | null;
  /** The dashboard page to open: the issue, the project's issues, or its settings. */
  url: string;
  sentAt: Date;
};

// Titles are the client's text: bounded in every channel.
const MAX_TITLE_CHARS = 200;
export const DIGEST_LISTED = 20;

export function clip(text: string, max = MAX_TITLE_CHARS): string {
  return text.length <= max ? text : `${text.slice(0, max - 1)}…`;
}

/**
 * Text chosen by someone else (an issue title, a project name) with nothing
 * a mail, Slack or Discord client would turn into a link or a preview
 * ("https://evil.example/login", "evil.example", "a@b.example"): the only
 * links in a notification are ours.
 */
export const linkFree = inertMailText;

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
  if (n.paused) return `Webhook paused in "${project}": ${n.paused.target} failed ${n.paused.failures} times in a row`;
  if (n.test) return `Test notification for "${project}": this ${TRIGGER_WORDS[n.trigger].one.toLowerCase()} rule reaches you`;
  if (n.digest) return `${n.digest.total} more ${TRIGGER_WORDS[n.trigger].many} in "${project}" (held back by the per-project limit)`;
  if (n.spike) {
    const what = `${n.spike.observed.toLocaleString("en-US")} events in ${n.spike.minutes} min`;
    return n.issue ? `Spike in "${project}": ${what}: ${quote(clip(n.issue.title))}` : `Spike in "${project}": ${what} across the project`;
  }
  return `${TRIGGER_WORDS[n.trigger].one} in "${project}": ${quote(clip(n.issue?.title ?? ""))}`;
}

/** True when the headline already names the issue (so a body need not repeat its title). */
export function headlineNamesIssue(n: Notification): boolean {
  return !!n.issue && !n.paused && !n.test && !n.digest;
}

/** What a spike rule asked for, for the line under the headline. */
export function spikeFacts(spike: NonNullable<Notification["spike"]>): string {
  return `Threshold: ${plural(spike.count, "event")} in ${spike.minutes} min (${spike.scope === "issue" ? "one issue" : "the whole project"}).`;
}

/** Why a webhook was paused and how to resume it. */
export function pausedFacts(paused: PausedWebhook, quote: (text: string) => string = (t) => t): string[] {
  return [
    `Failing since ${peopleTime(paused.since)}; the last answer was: ${quote(paused.lastAnswer)}.`,
    "Its notifications are not sent while it is paused. Fix the receiver, then press Resume on the rule in the project's settings.",
  ];
}

/** An ISO time as people read it in a mail or chat ("2026-11-27 05:05:33 UTC"); the JSON body keeps ISO. */
export function peopleTime(iso: string): string {
  return formatUtc(new Date(iso), true);
}

/**
 * The latest event's lines: its message when it says more than the title
 * (the concrete values), its release, and the newest in-app frame.
 */
export function latestFacts(issue: NotifiedIssue, quote: (text: string) => string = (t) => t): string[] {
  const latest = issue.latest;
  if (!latest) return [];
  const message = firstLine(latest.message);
  return [
    ...(message !== "" && message !== firstLine(issue.title) ? [`Latest event: ${quote(clip(message, MAX_MESSAGE_CHARS))}`] : []),
    ...(latest.release ? [`Release: ${quote(clip(latest.release))}`] : []),
    ...(latest.frame ? [`In your code: ${quote(clip(latest.frame, MAX_MESSAGE_CHARS))}`] : []),
  ];
}

const MAX_MESSAGE_CHARS = 500;

/** A message's first line, spaces folded: its later lines (a stack) are not for a mail's summary. */
function firstLine(text: string): string {
  return (text.trim().split("\n", 1)[0] ?? "").replace(/\s+/g, " ").trim();
}

export function issueFacts(issue: NotifiedIssue): string {
  return `${issue.level} · ${plural(issue.count, "event")} · first seen ${peopleTime(issue.firstSeen)} · last seen ${peopleTime(issue.lastSeen)}`;
}
