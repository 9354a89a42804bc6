import type { Notification, NotifiedIssue } from "@/lib/alerts/messages";
import { webhookChannel } from "@/lib/alerts/channels/signed-post";

function issueJson(issue: NotifiedIssue) {
  return { id: issue.id, title: issue.title, level: issue.level, count: issue.count, firstSeen: issue.firstSeen, lastSeen: issue.lastSeen, url: issue.url };
}

/** The generic body: the project, the trigger, the issue, and a dashboard link (docs/alerts.md). */
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

/** A webhook with the generic JSON body, for the receiver's own code. */
export const jsonWebhookChannel = webhookChannel("json webhook", genericBody);
