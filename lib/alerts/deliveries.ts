import { prisma, type Prisma } from "@/lib/db/client";
import { CURSOR_MESSAGE, decodeCursor, encodeCursor } from "@/lib/events/cursor";
import { errors } from "@/lib/http/errors";
import { issueTitles } from "@/lib/issues/reads";
import { requireOwner, type ProjectAccess } from "@/lib/auth/access";
import type { AlertDeliveryKind, AlertDeliveryStatus } from "@/lib/db/generated/kysely-enums";
import { channelName, targetLabel } from "@/lib/alerts/channels";
import type { AlertDeliveriesQuery } from "@/lib/alerts/schemas";
import { sendTestNotification } from "@/lib/alerts/test-send";

export type { AlertDeliveryKind, AlertDeliveryStatus };

/** One line of the delivery log. */
export type AlertDeliveryView = {
  id: string;
  ruleId: string | null;
  kind: AlertDeliveryKind;
  issue: { id: string; title: string } | null;
  /** Where it went (or will go): recipients, or the webhook's format and host. */
  channel: string;
  status: AlertDeliveryStatus;
  /** What the receiver answered last ("HTTP 200", an SMTP reply, a timeout), or why it was not sent. */
  answer: string | null;
  attempts: number;
  createdAt: string;
  lastAttemptAt: string | null;
  sentAt: string | null;
  /** When it is tried (again); null once it is settled. */
  nextAttemptAt: string | null;
  /** Spike: {observed, count, minutes, scope}; digest: {total}. */
  detail: Record<string, unknown> | null;
};

export const DEFAULT_DELIVERIES_PAGE = 50;

const deliverySelect = {
  id: true,
  ruleId: true,
  kind: true,
  issueId: true,
  status: true,
  answer: true,
  target: true,
  attempts: true,
  createdAt: true,
  lastAttemptAt: true,
  sentAt: true,
  nextAttemptAt: true,
  detail: true,
  rule: { select: { channel: true, webhookUrl: true, webhookFormat: true } },
} satisfies Prisma.AlertDeliverySelect;

/** The project's notifications, newest first: {deliveries, nextCursor}. */
export async function listAlertDeliveries(access: ProjectAccess, query: AlertDeliveriesQuery = {}): Promise<{ deliveries: AlertDeliveryView[]; nextCursor: string | null }> {
  const limit = query.limit ?? DEFAULT_DELIVERIES_PAGE;
  const position = query.cursor === undefined ? null : decodeCursor(query.cursor);
  if (query.cursor !== undefined && !position) throw errors.validation([{ path: "cursor", message: CURSOR_MESSAGE }]);
  const rows = await prisma.alertDelivery.findMany({
    where: {
      projectId: access.projectId,
      ...(position ? { OR: [{ createdAt: { lt: position.at } }, { createdAt: position.at, id: { lt: position.id } }] } : {}),
    },
    orderBy: [{ createdAt: "desc" }, { id: "desc" }],
    take: limit + 1,
    select: deliverySelect,
  });
  const page = rows.slice(0, limit);
  const issueIds = [...new Set(page.flatMap((d) => (d.issueId ? [d.issueId] : [])))];
  const titles = await issueTitles(access.projectId, issueIds);
  const last = page.at(-1);
  return {
    deliveries: page.map((d) => toView(d, titles)),
    nextCursor: rows.length > limit && last ? encodeCursor({ at: last.createdAt, id: last.id }) : null,
  };
}

type DeliveryRecord = Prisma.AlertDeliveryGetPayload<{ select: typeof deliverySelect }>;

function toView(d: DeliveryRecord, titles: Map<string, string>): AlertDeliveryView {
  return {
    id: d.id,
    ruleId: d.ruleId,
    kind: d.kind,
    issue: d.issueId ? { id: d.issueId, title: titles.get(d.issueId) ?? "(deleted issue)" } : null,
    channel: d.target ?? (d.rule ? targetLabel(channelName({ channel: d.rule.channel, webhook_format: d.rule.webhookFormat }), { url: d.rule.webhookUrl }) : "(deleted rule)"),
    status: d.status,
    answer: d.answer,
    attempts: d.attempts,
    createdAt: d.createdAt.toISOString(),
    lastAttemptAt: d.lastAttemptAt?.toISOString() ?? null,
    sentAt: d.sentAt?.toISOString() ?? null,
    nextAttemptAt: d.status === "pending" || d.status === "sending" ? d.nextAttemptAt.toISOString() : null,
    detail: d.detail && typeof d.detail === "object" && !Array.isArray(d.detail) ? logDetail(d.kind, d.detail as Record<string, unknown>) : null,
  };
}

/** What the log shows of a row's detail (a digest's item list stays out). */
function logDetail(kind: AlertDeliveryKind, detail: Record<string, unknown>): Record<string, unknown> {
  return kind === "digest" ? { total: detail.total } : detail;
}

/**
 * Sends a test notification through a rule's channel now (owners), and logs
 * it like any other. Tried once: no retries, no cool-down, no cap.
 */
export async function sendTestAlert(access: ProjectAccess, ruleId: string, now = new Date()): Promise<AlertDeliveryView> {
  requireOwner(access);
  const id = await sendTestNotification(access.projectId, ruleId, now);
  if (!id) throw errors.notFound("No alert rule with this id in this project.");
  const sent = await prisma.alertDelivery.findFirstOrThrow({ where: { id, projectId: access.projectId }, select: deliverySelect });
  return toView(sent, new Map());
}
