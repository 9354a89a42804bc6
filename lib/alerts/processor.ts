import { isDatabaseUnavailable } from "@/lib/db/errors";
import { logger } from "@/lib/log";
import { CHANNELS, channelName, targetLabel } from "@/lib/alerts/channels";
import type { SendOutcome } from "@/lib/alerts/channels/types";
import { loadContext, notificationFor, recipientsOf, type DeliveryContext } from "@/lib/alerts/context";
import { noteWebhookOutcome } from "@/lib/alerts/pause";
import { claimDue, recordOutcome, releaseUnsent, retryDelayMs, sendDeadlineMs, type ClaimedDelivery } from "@/lib/alerts/queue";
import { openSigningSecret } from "@/lib/alerts/signing";
import { queueSpikes } from "@/lib/alerts/spikes";

/**
 * Alert delivery: a pass claims due notifications (lib/alerts/queue.ts) and
 * sends them, fairly and within a budget:
 *
 * - a claim takes due rows project by project in turns (queue.ts);
 * - sends run in parallel (SEND_CONCURRENCY), at most PROJECT_CONCURRENCY
 *   per project, taken project by project in turn;
 * - every send has a deadline, never past the pass's budget; what cannot
 *   start in time goes back to the queue for the next pass;
 * - a rule whose webhook (or mail server) did not answer is not tried again
 *   in the same pass: its other notifications wait for their retry.
 *
 * So one project's dead webhooks cost that project its own sends, not
 * anyone else's, and a cron call returns within its budget.
 */

export type ProcessReport = {
  spikesQueued: number;
  sent: number;
  /** Development without EMAIL_SERVER: printed to the server log. */
  logged: number;
  retrying: number;
  failed: number;
  suppressed: number;
  digested: number;
  cancelled: number;
  /** Claimed but given back unsent (budget spent, or the rule's receiver did not answer earlier in this pass). */
  deferred: number;
  /** False when the budget ran out first: more may be due. */
  complete: boolean;
};

export type ProcessOptions = {
  /** The clock for due times and windows (tests inject one); default: the time of each statement. */
  now?: Date;
  /** Only these projects' notifications and spike rules (after an ingest); default: all. */
  projectIds?: string[];
  /** Stop within this long (a cron request's budget); default DEFAULT_BUDGET_MS. */
  budgetMs?: number;
  /** Rows claimed per transaction (default CLAIM_SIZE). */
  batchSize?: number;
  /** Check spike rules first (default true). */
  checkSpikes?: boolean;
  /** Milliseconds for the budget (tests inject one); default Date.now. */
  clock?: () => number;
};

const DEFAULT_BUDGET_MS = 20_000;
/** Sends in flight at once per pass, and per project. */
const SEND_CONCURRENCY = 8;
export const PROJECT_CONCURRENCY = 2;
// A send is not started with less than this left (after the margin kept for recording answers).
const MIN_SEND_MS = 250;

const emptyReport = (): ProcessReport => ({
  spikesQueued: 0,
  sent: 0,
  logged: 0,
  retrying: 0,
  failed: 0,
  suppressed: 0,
  digested: 0,
  cancelled: 0,
  deferred: 0,
  complete: true,
});

/** One pass's clock, budget and memory. */
type Pass = {
  now: () => Date;
  /** Milliseconds a send may take if started now (0: none may start). */
  sendWindow: () => number;
  /** Rules whose receiver did not answer in this pass. */
  unreachable: Set<string>;
  /** Rules paused in this pass. */
  paused: Set<string>;
  report: ProcessReport;
};

export async function processAlerts(options: ProcessOptions = {}): Promise<ProcessReport> {
  const clock = options.clock ?? Date.now;
  const budgetMs = options.budgetMs ?? DEFAULT_BUDGET_MS;
  const deadline = clock() + budgetMs;
  // Kept to record the last answers after the last send's deadline.
  const margin = Math.min(1_000, budgetMs / 5);
  const pass: Pass = {
    now: () => options.now ?? new Date(),
    sendWindow: () => Math.max(0, deadline - margin - clock()),
    unreachable: new Set(),
    paused: new Set(),
    report: emptyReport(),
  };
  const { report } = pass;
  const projectIds = options.projectIds ?? null;
  if (options.checkSpikes ?? true) report.spikesQueued = await queueSpikes(pass.now(), projectIds);
  for (;;) {
    if (pass.sendWindow() < MIN_SEND_MS) {
      report.complete = false;
      break;
    }
    const claim = await claimDue({ now: pass.now(), projectIds, skipRules: new Set([...pass.unreachable].filter((id) => !pass.paused.has(id))), size: options.batchSize });
    report.cancelled += claim.decided.cancelled;
    report.failed += claim.decided.failed;
    report.suppressed += claim.decided.suppressed;
    report.digested += claim.decided.digested;
    if (claim.seen === 0) break;
    await sendFairly(claim.toSend, pass);
  }
  return report;
}

/**
 * Sends claimed rows, SEND_CONCURRENCY at a time and at most
 * PROJECT_CONCURRENCY per project, visiting the projects in turn; records
 * each answer. Rows that may not be sent in this pass go back to the queue.
 */
async function sendFairly(claimed: ClaimedDelivery[], pass: Pass): Promise<void> {
  if (claimed.length === 0) return;
  const context = await loadContext(claimed);
  const queues = new Map<string, ClaimedDelivery[]>();
  for (const row of claimed) queues.set(row.projectId, [...(queues.get(row.projectId) ?? []), row]);
  const inFlight = new Map<string, number>();
  const running = new Set<Promise<void>>();
  const held: ClaimedDelivery[] = []; // their receiver did not answer in this pass: back at their retry time
  const late: ClaimedDelivery[] = []; // the budget is spent: back now, for the next pass
  const paused: ClaimedDelivery[] = []; // their webhook was paused in this pass: back now, for the policy to cancel

  const launch = (row: ClaimedDelivery, timeoutMs: number) => {
    inFlight.set(row.projectId, (inFlight.get(row.projectId) ?? 0) + 1);
    const sending = (async () => {
      const { outcome, target } = await sendOne(row, context, pass.now(), timeoutMs);
      if (!outcome.ok && outcome.unreachable) pass.unreachable.add(row.rule.id);
      await record(row, outcome, target, pass);
    })()
      .catch((error: unknown) => {
        // The database away (an outage, answered 503 and logged elsewhere): the claim lapses and
        // the delivery is tried again once it is back; not a fault of this delivery.
        const log = isDatabaseUnavailable(error) ? logger.warn : logger.error;
        log("recording an alert delivery failed", { deliveryId: row.id, error: error instanceof Error ? error.message.slice(0, 200) : String(error) });
      })
      .finally(() => {
        inFlight.set(row.projectId, inFlight.get(row.projectId)! - 1);
        running.delete(sending);
      });
    running.add(sending);
  };

  for (;;) {
    let progressed = false;
    for (const [projectId, rows] of queues) {
      if (running.size >= SEND_CONCURRENCY) break;
      if ((inFlight.get(projectId) ?? 0) >= PROJECT_CONCURRENCY) continue;
      const row = rows.shift();
      if (!row) {
        queues.delete(projectId);
        continue;
      }
      progressed = true;
      // (A paused-webhook notice goes by mail: the webhook's state is not its concern.)
      if (row.kind !== "webhook_paused" && pass.unreachable.has(row.rule.id)) {
        (pass.paused.has(row.rule.id) ? paused : held).push(row);
        continue;
      }
      const timeoutMs = Math.min(sendDeadlineMs(transportOf(row)), pass.sendWindow());
      if (timeoutMs < MIN_SEND_MS) late.push(row);
      else launch(row, timeoutMs);
    }
    if (queues.size === 0 && running.size === 0) break;
    if (!progressed) await Promise.race(running);
  }

  const now = pass.now();
  await releaseUnsent(held, new Date(now.getTime() + retryDelayMs(1)));
  await releaseUnsent([...late, ...paused], now);
  pass.report.deferred += held.length + late.length + paused.length;
  if (late.length > 0) pass.report.complete = false;
}

/** Owners hear about a paused webhook by email, whatever the rule's channel. */
const channelOf = (row: ClaimedDelivery) => (row.kind === "webhook_paused" ? "email" : channelName(row.rule));
const transportOf = (row: ClaimedDelivery) => CHANNELS[channelOf(row)].transport;

async function sendOne(delivery: ClaimedDelivery, context: DeliveryContext, now: Date, timeoutMs: number): Promise<{ outcome: SendOutcome; target: string }> {
  const { rule } = delivery;
  const name = channelOf(delivery);
  const channel = CHANNELS[name];
  const recipients = channel.transport === "email" ? recipientsOf(delivery, context) : [];
  const target = targetLabel(name, { recipients, url: rule.webhook_url });
  const notification = notificationFor(delivery, context, now);
  if (!notification) return { outcome: { ok: false, retryable: false, answer: "the issue no longer exists" }, target };
  try {
    if (channel.transport === "email") return { outcome: await channel.send(notification, { transport: "email", recipients }, { timeoutMs }), target };
    let secret: string;
    try {
      secret = openSigningSecret(rule.webhook_secret ?? "");
    } catch {
      return { outcome: { ok: false, retryable: false, answer: "the signing secret cannot be read with this TELLTALE_SECRET: create the rule again" }, target };
    }
    return { outcome: await channel.send(notification, { transport: "webhook", url: rule.webhook_url ?? "", secret }, { timeoutMs }), target };
  } catch (error) {
    logger.error("alert delivery failed unexpectedly", { deliveryId: delivery.id, error: error instanceof Error ? error.name : "error" });
    return { outcome: { ok: false, retryable: true, answer: "internal error while sending" }, target };
  }
}

async function record(delivery: ClaimedDelivery, outcome: SendOutcome, target: string, pass: Pass): Promise<void> {
  const now = pass.now();
  const status = await recordOutcome(delivery, outcome, target, now);
  pass.report[status === "pending" ? "retrying" : status]++;
  // A webhook's health: notifications about issues only (a test says nothing about the receiver's routine).
  // Paused now: its other notifications in this pass are not sent (the next claim cancels them).
  if (transportOf(delivery) === "webhook" && delivery.kind !== "test" && (await noteWebhookOutcome(delivery.rule, outcome, target, now))) {
    pass.unreachable.add(delivery.rule.id);
    pass.paused.add(delivery.rule.id);
  }
}

/**
 * Sends rows claimed outside a pass (the "send test" button) with full
 * deadlines, and records their answers.
 */
export async function sendClaimed(claimed: ClaimedDelivery[], now: Date): Promise<void> {
  const pass: Pass = { now: () => now, sendWindow: () => Number.POSITIVE_INFINITY, unreachable: new Set(), paused: new Set(), report: emptyReport() };
  await sendFairly(claimed, pass);
}
