import { configuredOrigin } from "@/lib/auth/public-origin";
import type { AlertTrigger, Role } from "@/lib/db/generated/kysely-enums";
import { membersOfProjects } from "@/lib/auth/memberships";
import { issuesForNotifications, type NotifiedIssueRow } from "@/lib/issues/reads";
import { projectNames } from "@/lib/projects/names";
import type { LatestFacts, Notification, NotifiedIssue, PausedWebhook } from "@/lib/alerts/messages";
import { latestEventsOfIssues } from "@/lib/events/latest";
import { topInAppFrame } from "@/lib/grouping/top-frame";
import type { ClaimedDelivery } from "@/lib/alerts/queue";

/** What the notifications of a batch of claimed rows need to say: project names, issues, members. */
export type DeliveryContext = {
  projects: Map<string, string>;
  issues: Map<string, NotifiedIssueRow>;
  /** Per project: userId -> {email, role}. */
  members: Map<string, Map<string, { email: string; role: Role }>>;
  /** The latest event of each issue a notification is about (not of digests' issues). */
  latest: Map<string, LatestFacts>;
};

/** Project names, issues and member addresses for a set of claimed rows, in three queries. */
export async function loadContext(claimed: ClaimedDelivery[]): Promise<DeliveryContext> {
  const projectIds = [...new Set(claimed.map((c) => c.projectId))];
  if (projectIds.length === 0) return { projects: new Map(), issues: new Map(), members: new Map(), latest: new Map() };
  const issueIds = new Set<string>();
  for (const c of claimed) {
    if (c.issueId) issueIds.add(c.issueId);
    for (const item of digestItems(c.detail)) if (item.issueId) issueIds.add(item.issueId);
  }
  const notifiedIds = [...new Set(claimed.flatMap((c) => (c.issueId && c.kind !== "digest" ? [c.issueId] : [])))];
  const [projects, issues, members, latest] = await Promise.all([
    projectNames(projectIds),
    issuesForNotifications([...issueIds], projectIds),
    membersOfProjects(projectIds),
    latestEventsOfIssues(notifiedIds),
  ]);
  const byProject = new Map<string, Map<string, { email: string; role: Role }>>();
  for (const m of members) {
    if (!byProject.has(m.projectId)) byProject.set(m.projectId, new Map());
    byProject.get(m.projectId)!.set(m.userId, { email: m.email, role: m.role });
  }
  const latestFacts = new Map(
    [...latest].map(([id, e]): [string, LatestFacts] => [id, { message: e.message, release: e.release, frame: topInAppFrame(e.stackContext) }]),
  );
  return { projects, issues: new Map(issues.map((i) => [i.id, i])), members: byProject, latest: latestFacts };
}

/** The mail recipients of a claimed row: the rule's chosen members, or, for a paused-webhook notice, the owners. */
export function recipientsOf(delivery: ClaimedDelivery, context: DeliveryContext): string[] {
  const members = context.members.get(delivery.projectId) ?? new Map<string, { email: string; role: Role }>();
  if (delivery.kind === "webhook_paused") return [...members.values()].filter((m) => m.role === "owner").map((m) => m.email);
  // Only people who are still members: a removed member's address is dropped.
  return delivery.rule.email_user_ids.flatMap((id) => (members.has(id) ? [members.get(id)!.email] : []));
}

function digestItems(detail: unknown): { trigger: AlertTrigger; issueId: string | null }[] {
  const items = (detail as { items?: unknown } | null)?.items;
  return Array.isArray(items) ? (items as { trigger: AlertTrigger; issueId: string | null }[]) : [];
}

function notifiedIssue(row: NotifiedIssueRow, origin: string): NotifiedIssue {
  return {
    id: row.id,
    title: row.title,
    level: row.level,
    count: Number(row.count),
    firstSeen: row.first_seen.toISOString(),
    lastSeen: row.last_seen.toISOString(),
    url: `${origin}/projects/${encodeURIComponent(row.project_id)}/issues/${row.id}`,
  };
}

/** What a claimed row says, for its channel. Null: the issue it is about is gone. */
export function notificationFor(delivery: ClaimedDelivery, context: DeliveryContext, now: Date): Notification | null {
  const origin = configuredOrigin();
  const projectUrl = `${origin}/projects/${encodeURIComponent(delivery.projectId)}`;
  const issueRow = delivery.issueId ? context.issues.get(delivery.issueId) : undefined;
  if (delivery.issueId && !issueRow) return null;
  const issue = issueRow ? { ...notifiedIssue(issueRow, origin), latest: context.latest.get(issueRow.id) ?? null } : null;
  const spike = delivery.kind === "spike" ? (delivery.detail as Notification["spike"]) : null;
  const paused = delivery.kind === "webhook_paused" ? (delivery.detail as PausedWebhook) : null;
  const digest =
    delivery.kind === "digest"
      ? {
          total: Number((delivery.detail as { total?: number } | null)?.total ?? 0),
          issues: digestItems(delivery.detail).flatMap((item) => {
            const row = item.issueId ? context.issues.get(item.issueId) : undefined;
            return row ? [{ ...notifiedIssue(row, origin), trigger: item.trigger }] : [];
          }),
        }
      : null;
  return {
    deliveryId: delivery.id,
    trigger: delivery.rule.trigger,
    test: delivery.kind === "test",
    project: { id: delivery.projectId, name: context.projects.get(delivery.projectId) ?? "", url: projectUrl },
    issue,
    spike,
    digest,
    paused,
    url: paused ? `${projectUrl}/settings` : (issue?.url ?? projectUrl),
    sentAt: now,
  };
}
