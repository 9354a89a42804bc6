import type pg from "pg";
import { settings } from "@/lib/config/settings";
import { dbPool } from "@/lib/db/client";
import type { EventLevel } from "@/lib/events/schema";
import { logger } from "@/lib/log";
import { sendAlertMail, sendAlertWebhook, type SendOutcome } from "@/lib/alerts/channels";
import type { Notification, NotifiedIssue } from "@/lib/alerts/messages";
import { channelLabel } from "@/lib/alerts/rules";
import type { AlertTrigger, SpikeScope, WebhookFormat } from "@/lib/alerts/schemas";
import { openSigningSecret } from "@/lib/alerts/signing";

/**
 * The outbox processor. Notifications are rows of alert_deliveries, written
 * in the statement that stored the events (new issues, regressions:
 * lib/events/store.ts) or by queueSpikes below. A pass:
 *
 *   1. queues spikes from the per-minute counts (one INSERT … SELECT);
 *   2. claims due rows with FOR UPDATE SKIP LOCKED and, in that transaction,
 *      decides each one: its rule is gone (cancelled), its rule and issue are
 *      in their cool-down (suppressed), the project's hourly cap is reached
 *      (folded into one digest per rule), or it is sent: status `sending`,
 *      with a lease in next_attempt_at;
 *   3. sends outside any transaction, each with its deadline, and records
 *      the answer: sent, retry later (exponential backoff), or failed.
 *
 * Two processors never claim the same row (row locks, SKIP LOCKED), and a
 * claimed row is `sending` once the claim commits, so it is sent once unless
 * its processor dies before recording the answer: then the lease expires
 * and the row is claimed again (at least once).
 */

export type ProcessReport = {
  spikesQueued: number;
  sent: number;
  retrying: number;
  failed: number;
  suppressed: number;
  digested: number;
  cancelled: number;
};

export type ProcessOptions = {
  /** The clock (tests inject one); every due time and window is computed from it. */
  now?: Date;
  /** Only these projects' notifications and spike rules (after an ingest); default: all. */
  projectIds?: string[];
  /** Rows claimed per transaction. */
  batchSize?: number;
  /** Stop claiming after this long (a cron request's budget). */
  budgetMs?: number;
};

const DEFAULT_BATCH = 50;
const DEFAULT_BUDGET_MS = 20_000;
// Retry n waits RETRY_BASE_MS * 2^(n-1), at most RETRY_MAX_MS.
const RETRY_BASE_MS = 30_000;
const RETRY_MAX_MS = 3_600_000;
// One digest per rule per this long, however many notifications it folds.
export const DIGEST_INTERVAL_MS = 15 * 60_000;
const CAP_WINDOW_MS = 3_600_000;
// Sends in flight at once per processor.
const SEND_CONCURRENCY = 4;

/** How long a claim holds a row before another processor may retry it: past any send's deadline. */
function leaseMs(): number {
  return settings().alerts.webhookTimeoutMs + 60_000;
}

export function retryDelayMs(attempts: number): number {
  return Math.min(RETRY_BASE_MS * 2 ** Math.max(0, attempts - 1), RETRY_MAX_MS);
}

const later = (now: Date, ms: number) => new Date(now.getTime() + ms);

const emptyReport = (): ProcessReport => ({ spikesQueued: 0, sent: 0, retrying: 0, failed: 0, suppressed: 0, digested: 0, cancelled: 0 });

export async function processAlerts(options: ProcessOptions = {}): Promise<ProcessReport> {
  const now = options.now ?? new Date();
  const projectIds = options.projectIds ?? null;
  const batchSize = options.batchSize ?? DEFAULT_BATCH;
  const deadline = Date.now() + (options.budgetMs ?? DEFAULT_BUDGET_MS);
  const report = emptyReport();
  report.spikesQueued = await queueSpikes(now, projectIds);
  for (;;) {
    const { toSend, touched } = await claimDue(now, projectIds, batchSize, report);
    await sendClaimed(toSend, now, report);
    if (touched < batchSize || Date.now() > deadline) break;
  }
  return report;
}

// ---------------------------------------------------------------------------
// 1. Spikes

/**
 * Queues a spike notification for each spike rule whose threshold is met:
 * per issue, or over the whole project, the events at or above the rule's
 * level in the current minute and the M-1 before it, from the exact
 * per-minute counts (ignored issues left out). Not while the rule and
 * subject are in their cool-down, nor while one is already queued.
 */
export async function queueSpikes(now: Date, projectIds: string[] | null): Promise<number> {
  const { rowCount } = await dbPool().query(
    `WITH rules AS (
       SELECT id, project_id, min_level, spike_count, spike_minutes, spike_scope
       FROM alert_rules WHERE "trigger" = 'spike' AND ($2::text[] IS NULL OR project_id = ANY($2::text[]))
     ),
     counted AS (
       SELECT r.id AS rule_id, r.project_id, CASE WHEN r.spike_scope = 'issue' THEN c.issue_id END AS issue_id,
              sum(c.count)::bigint AS observed, r.spike_count, r.spike_minutes, r.spike_scope
       FROM rules r
       JOIN issue_counts c ON c.project_id = r.project_id
        AND c.minute > date_bin('1 minute', $1::timestamptz, TIMESTAMPTZ 'epoch') - make_interval(mins => r.spike_minutes)
        AND c.minute <= $1::timestamptz
        AND c.level <= r.min_level
       JOIN issues i ON i.id = c.issue_id AND i.status <> 'ignored'
       GROUP BY 1, 2, 3, r.spike_count, r.spike_minutes, r.spike_scope
       HAVING sum(c.count) >= r.spike_count
     )
     INSERT INTO alert_deliveries (project_id, rule_id, kind, issue_id, detail, created_at, next_attempt_at)
     SELECT k.project_id, k.rule_id, 'spike', k.issue_id,
            jsonb_build_object('observed', k.observed, 'count', k.spike_count, 'minutes', k.spike_minutes, 'scope', k.spike_scope), $1, $1
     FROM counted k
     WHERE NOT EXISTS (SELECT 1 FROM alert_cooldowns w
                       WHERE w.rule_id = k.rule_id AND w.subject = coalesce(k.issue_id::text, 'project') AND w.until > $1)
       AND NOT EXISTS (SELECT 1 FROM alert_deliveries d
                       WHERE d.rule_id = k.rule_id AND d.kind = 'spike' AND d.issue_id IS NOT DISTINCT FROM k.issue_id
                         AND d.status IN ('pending', 'sending'))`,
    [now, projectIds],
  );
  return rowCount ?? 0;
}

// ---------------------------------------------------------------------------
// 2. Claims

type Kind = "new_issue" | "regression" | "spike" | "digest" | "test";

type DueRow = { id: string; project_id: string; rule_id: string | null; kind: Kind; issue_id: string | null; attempts: number; detail: unknown; created_at: Date };

type RuleRow = {
  id: string;
  project_id: string;
  trigger: AlertTrigger;
  channel: "email" | "webhook";
  email_user_ids: string[] | null;
  webhook_url: string | null;
  webhook_format: WebhookFormat | null;
  webhook_secret: string | null;
};

/** A row claimed for sending, with its rule. */
export type ClaimedDelivery = { id: string; projectId: string; kind: Kind; issueId: string | null; attempts: number; detail: unknown; rule: RuleRow };

const RULE_COLUMNS = `id, project_id, "trigger", channel, email_user_ids, webhook_url, webhook_format, webhook_secret`;

async function inTransaction<T>(work: (client: pg.PoolClient) => Promise<T>): Promise<T> {
  const client = await dbPool().connect();
  // A checked-out client whose connection drops emits "error"; unheard, it
  // would be an uncaught exception. The failed query rejects anyway, and the
  // broken client is destroyed on release instead of going back to the pool.
  let broken: Error | undefined;
  const ignore = (error: Error) => void (broken = error);
  client.on("error", ignore);
  try {
    await client.query("BEGIN");
    const result = await work(client);
    await client.query("COMMIT");
    return result;
  } catch (error) {
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  } finally {
    client.off("error", ignore);
    client.release(broken);
  }
}

/**
 * Takes the cool-down of each (rule, subject) that is free at `now`, until
 * `now + ms`; returns those taken. Concurrent processors serialize on the
 * cool-down row, so one of them gets it.
 */
async function takeCooldowns(client: pg.PoolClient, keys: { ruleId: string; subject: string }[], now: Date, ms: number): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  const { rows } = await client.query<{ rule_id: string; subject: string }>(
    `INSERT INTO alert_cooldowns AS w (rule_id, subject, until)
     SELECT k.rule_id, k.subject, $2 FROM unnest($1::text[], $3::text[]) AS k(rule_id, subject)
     ON CONFLICT (rule_id, subject) DO UPDATE SET until = EXCLUDED.until WHERE w.until <= $4
     RETURNING w.rule_id, w.subject`,
    [keys.map((k) => k.ruleId), later(now, ms), keys.map((k) => k.subject), now],
  );
  return new Set(rows.map((r) => `${r.rule_id}\u0000${r.subject}`));
}

async function setStatus(client: pg.PoolClient, ids: string[], status: string, answer: string | null, extra = ""): Promise<void> {
  if (ids.length === 0) return;
  await client.query(`UPDATE alert_deliveries SET status = $2::alert_delivery_status, answer = $3 ${extra} WHERE id = ANY($1::uuid[])`, [ids, status, answer]);
}

async function claimDue(now: Date, projectIds: string[] | null, batchSize: number, report: ProcessReport): Promise<{ toSend: ClaimedDelivery[]; touched: number }> {
  const { cooldownMinutes, maxPerProjectPerHour, maxAttempts } = settings().alerts;
  return inTransaction(async (client) => {
    // Due: pending and due, or claimed by a processor whose lease ran out (it died mid-send).
    const { rows: due } = await client.query<DueRow>(
      `SELECT id, project_id, rule_id, kind, issue_id, attempts, detail, created_at FROM alert_deliveries
       WHERE status IN ('pending', 'sending') AND next_attempt_at <= $1 AND ($2::text[] IS NULL OR project_id = ANY($2::text[]))
       ORDER BY next_attempt_at, id LIMIT $3
       FOR UPDATE SKIP LOCKED`,
      [now, projectIds, batchSize],
    );
    if (due.length === 0) return { toSend: [], touched: 0 };

    const ruleIds = [...new Set(due.flatMap((d) => (d.rule_id ? [d.rule_id] : [])))];
    const { rows: ruleRows } = await client.query<RuleRow>(`SELECT ${RULE_COLUMNS} FROM alert_rules WHERE id = ANY($1::text[])`, [ruleIds]);
    const rules = new Map(ruleRows.map((r) => [r.id, r]));

    // The hourly cap is per project: processors taking the same project's
    // rows count one after the other.
    const projects = [...new Set(due.map((d) => d.project_id))].sort();
    for (const projectId of projects) await client.query(`SELECT pg_advisory_xact_lock(hashtextextended('telltale-alerts:' || $1, 0))`, [projectId]);
    const { rows: counts } = await client.query<{ project_id: string; n: number }>(
      `SELECT project_id, count(*)::int AS n FROM alert_deliveries
       WHERE project_id = ANY($1::text[]) AND kind IN ('new_issue', 'regression', 'spike') AND status IN ('sending', 'sent', 'failed')
         AND created_at > $2::timestamptz - interval '1 day' AND last_attempt_at > $3
       GROUP BY project_id`,
      [projects, now, new Date(now.getTime() - CAP_WINDOW_MS)],
    );
    const budget = new Map(projects.map((p) => [p, maxPerProjectPerHour]));
    for (const c of counts) budget.set(c.project_id, maxPerProjectPerHour - c.n);

    const send: DueRow[] = [];
    const cancelled: string[] = [];
    const givenUp: DueRow[] = [];
    const candidates: DueRow[] = [];
    for (const row of due) {
      const rule = row.rule_id ? rules.get(row.rule_id) : undefined;
      if (!rule) cancelled.push(row.id);
      // A test is tried once; a row whose last lease ran out used its last attempt.
      else if (row.attempts >= (row.kind === "test" ? 1 : maxAttempts)) givenUp.push(row);
      // Tests, digests and retries were admitted already.
      else if (row.kind === "test" || row.kind === "digest" || row.attempts > 0) send.push(row);
      else candidates.push(row);
    }

    // New notifications, oldest first: as many as each project's budget
    // allows go through the cool-down; those it suppresses free budget for
    // the next round; what is left over the budget waits for a digest.
    const suppressed: DueRow[] = [];
    const overflow = new Map<string, DueRow[]>(); // by rule
    const seen = new Set<string>();
    const subjectKey = (row: DueRow) => `${row.rule_id}\u0000${row.issue_id ?? "project"}`;
    let queue = candidates.sort((a, b) => a.created_at.getTime() - b.created_at.getTime() || a.id.localeCompare(b.id));
    while (queue.length > 0) {
      const room = new Map(budget);
      const attempt: DueRow[] = [];
      const wait: DueRow[] = [];
      for (const row of queue) {
        if (seen.has(subjectKey(row))) suppressed.push(row); // another one for the same rule and subject
        else if ((room.get(row.project_id) ?? 0) > 0) {
          room.set(row.project_id, room.get(row.project_id)! - 1);
          seen.add(subjectKey(row));
          attempt.push(row);
        } else wait.push(row);
      }
      const taken = await takeCooldowns(client, attempt.map((r) => ({ ruleId: r.rule_id!, subject: r.issue_id ?? "project" })), now, cooldownMinutes * 60_000);
      let freed = false;
      for (const row of attempt) {
        if (taken.has(subjectKey(row))) {
          send.push(row);
          budget.set(row.project_id, budget.get(row.project_id)! - 1);
        } else {
          suppressed.push(row);
          freed = true;
        }
      }
      queue = freed ? wait : [];
      if (!freed) for (const row of wait) overflow.set(row.rule_id!, [...(overflow.get(row.rule_id!) ?? []), row]);
    }

    await setStatus(client, cancelled, "cancelled", "its rule was deleted");
    await setStatus(client, givenUp.map((r) => r.id), "failed", "gave up: the last attempt was interrupted (the process stopped mid-send)");
    await setStatus(client, suppressed.map((r) => r.id), "suppressed", `cool-down: this rule already notified about this within ${cooldownMinutes} min`);
    report.cancelled += cancelled.length;
    report.failed += givenUp.length;
    report.suppressed += suppressed.length;

    // Past the cap: one digest per rule, at most every DIGEST_INTERVAL_MS;
    // until the rule's digest is free, its rows wait for it.
    const digestsTaken = await takeCooldowns(client, [...overflow.keys()].map((ruleId) => ({ ruleId, subject: "digest" })), now, DIGEST_INTERVAL_MS);
    for (const [ruleId, rows] of overflow) {
      const ids = rows.map((r) => r.id);
      if (!digestsTaken.has(`${ruleId}\u0000digest`)) {
        const { rows: wait } = await client.query<{ until: Date }>(`SELECT until FROM alert_cooldowns WHERE rule_id = $1 AND subject = 'digest'`, [ruleId]);
        await client.query(`UPDATE alert_deliveries SET next_attempt_at = $2 WHERE id = ANY($1::uuid[])`, [ids, wait[0]?.until ?? later(now, DIGEST_INTERVAL_MS)]);
        continue;
      }
      const detail = { total: rows.length, items: rows.slice(0, 50).map((r) => ({ trigger: r.kind, issueId: r.issue_id })) };
      const { rows: digest } = await client.query<DueRow>(
        `INSERT INTO alert_deliveries (project_id, rule_id, kind, detail, created_at, next_attempt_at)
         VALUES ($1, $2, 'digest', $3, $4, $4)
         RETURNING id, project_id, rule_id, kind, issue_id, attempts, detail, created_at`,
        [rows[0]!.project_id, ruleId, JSON.stringify(detail), now],
      );
      await client.query(`UPDATE alert_deliveries SET status = 'digested', answer = 'held back by the per-project limit, sent in a digest', digest_id = $2 WHERE id = ANY($1::uuid[])`, [ids, digest[0]!.id]);
      report.digested += rows.length;
      send.push(digest[0]!);
    }

    // The claim: `sending`, with a lease, and where it goes (for the log).
    const claimed: ClaimedDelivery[] = [];
    for (const row of send) {
      const rule = rules.get(row.rule_id!)!;
      claimed.push({ id: row.id, projectId: row.project_id, kind: row.kind, issueId: row.issue_id, attempts: row.attempts + 1, detail: row.detail, rule });
    }
    if (claimed.length > 0) {
      await client.query(
        `UPDATE alert_deliveries SET status = 'sending', attempts = attempts + 1, last_attempt_at = $2, next_attempt_at = $3
         WHERE id = ANY($1::uuid[])`,
        [claimed.map((c) => c.id), now, later(now, leaseMs())],
      );
    }
    const touched = due.length;
    return { toSend: claimed, touched };
  });
}

// ---------------------------------------------------------------------------
// 3. Sending

type IssueRow = { id: string; project_id: string; title: string; level: EventLevel; count: string; first_seen: Date; last_seen: Date };

/** The dashboard's origin for links: AUTH_URL, else this server on localhost. */
export function dashboardOrigin(): string {
  const configured = settings().auth.url;
  if (configured) {
    try {
      return new URL(configured).origin;
    } catch {
      // fall through
    }
  }
  return `http://localhost:${settings().port}`;
}

/** Sends claimed rows (SEND_CONCURRENCY at a time) and records each answer. */
export async function sendClaimed(claimed: ClaimedDelivery[], now: Date, report: ProcessReport): Promise<Map<string, SendOutcome>> {
  const outcomes = new Map<string, SendOutcome>();
  if (claimed.length === 0) return outcomes;
  const context = await loadContext(claimed);
  let next = 0;
  const worker = async () => {
    while (next < claimed.length) {
      const delivery = claimed[next++]!;
      const { outcome, target } = await sendOne(delivery, context, now);
      outcomes.set(delivery.id, outcome);
      await record(delivery, outcome, target, now, report);
    }
  };
  await Promise.all(Array.from({ length: Math.min(SEND_CONCURRENCY, claimed.length) }, worker));
  return outcomes;
}

type Context = { projects: Map<string, string>; issues: Map<string, IssueRow>; emails: Map<string, Map<string, string>> };

/** Project names, issues and member addresses for a set of claimed rows, in three queries. */
async function loadContext(claimed: ClaimedDelivery[]): Promise<Context> {
  const projectIds = [...new Set(claimed.map((c) => c.projectId))];
  const issueIds = new Set<string>();
  for (const c of claimed) {
    if (c.issueId) issueIds.add(c.issueId);
    for (const item of digestItems(c.detail)) if (item.issueId) issueIds.add(item.issueId);
  }
  const [projects, issues, members] = await Promise.all([
    dbPool().query<{ id: string; name: string }>(`SELECT id, name FROM projects WHERE id = ANY($1::text[])`, [projectIds]),
    dbPool().query<IssueRow>(
      `SELECT id, project_id, title, level, count::text AS count, first_seen, last_seen FROM issues WHERE id = ANY($1::uuid[]) AND project_id = ANY($2::text[])`,
      [[...issueIds], projectIds],
    ),
    dbPool().query<{ project_id: string; user_id: string; email: string }>(
      `SELECT m.project_id, m.user_id, u.email FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.project_id = ANY($1::text[])`,
      [projectIds],
    ),
  ]);
  const emails = new Map<string, Map<string, string>>();
  for (const m of members.rows) {
    if (!emails.has(m.project_id)) emails.set(m.project_id, new Map());
    emails.get(m.project_id)!.set(m.user_id, m.email);
  }
  return { projects: new Map(projects.rows.map((p) => [p.id, p.name])), issues: new Map(issues.rows.map((i) => [i.id, i])), emails };
}

function digestItems(detail: unknown): { trigger: AlertTrigger; issueId: string | null }[] {
  const items = (detail as { items?: unknown } | null)?.items;
  return Array.isArray(items) ? (items as { trigger: AlertTrigger; issueId: string | null }[]) : [];
}

function notifiedIssue(row: IssueRow, origin: string): NotifiedIssue {
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
export function notificationFor(delivery: ClaimedDelivery, context: Context, now: Date): Notification | null {
  const origin = dashboardOrigin();
  const projectUrl = `${origin}/projects/${encodeURIComponent(delivery.projectId)}`;
  const issueRow = delivery.issueId ? context.issues.get(delivery.issueId) : undefined;
  if (delivery.issueId && !issueRow) return null;
  const issue = issueRow ? notifiedIssue(issueRow, origin) : null;
  const spike = delivery.kind === "spike" ? (delivery.detail as Notification["spike"]) : null;
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
    url: issue?.url ?? projectUrl,
    sentAt: now,
  };
}

async function sendOne(delivery: ClaimedDelivery, context: Context, now: Date): Promise<{ outcome: SendOutcome; target: string }> {
  const { rule } = delivery;
  const members = context.emails.get(delivery.projectId) ?? new Map<string, string>();
  // Only people who are still members: a removed member's address is dropped.
  const recipients = rule.channel === "email" ? (rule.email_user_ids ?? []).flatMap((id) => (members.has(id) ? [members.get(id)!] : [])) : [];
  const target = channelLabel({ channel: rule.channel, webhookUrl: rule.webhook_url, webhookFormat: rule.webhook_format }, recipients);
  const notification = notificationFor(delivery, context, now);
  if (!notification) return { outcome: { ok: false, retryable: false, answer: "the issue no longer exists" }, target };
  try {
    if (rule.channel === "email") return { outcome: await sendAlertMail(recipients, notification), target };
    let secret: string;
    try {
      secret = openSigningSecret(rule.webhook_secret ?? "");
    } catch {
      return { outcome: { ok: false, retryable: false, answer: "the signing secret cannot be read with this TELLTALE_SECRET: create the rule again" }, target };
    }
    return { outcome: await sendAlertWebhook({ url: rule.webhook_url ?? "", format: rule.webhook_format ?? "json", secret }, notification), target };
  } catch (error) {
    logger.error("alert delivery failed unexpectedly", { deliveryId: delivery.id, error: error instanceof Error ? error.name : "error" });
    return { outcome: { ok: false, retryable: true, answer: "internal error while sending" }, target };
  }
}

/**
 * The answer, recorded only if this processor still holds the claim (the
 * same attempt, still `sending`): one that lost its lease records nothing.
 */
async function record(delivery: ClaimedDelivery, outcome: SendOutcome, target: string, now: Date, report: ProcessReport): Promise<void> {
  const maxAttempts = delivery.kind === "test" ? 1 : settings().alerts.maxAttempts;
  let status: "sent" | "pending" | "failed";
  let nextAttemptAt = now;
  if (outcome.ok) status = "sent";
  else if (outcome.retryable && delivery.attempts < maxAttempts) {
    status = "pending";
    nextAttemptAt = later(now, retryDelayMs(delivery.attempts));
  } else status = "failed";
  report[status === "sent" ? "sent" : status === "pending" ? "retrying" : "failed"]++;
  await dbPool().query(
    `UPDATE alert_deliveries SET status = $2::alert_delivery_status, answer = $3, target = $4, next_attempt_at = $5,
            sent_at = CASE WHEN $2 = 'sent' THEN $6::timestamptz END
     WHERE id = $1 AND status = 'sending' AND attempts = $7`,
    [delivery.id, status, outcome.answer, target, nextAttemptAt, now, delivery.attempts],
  );
}

/**
 * A test notification through a rule's channel, sent now and logged like
 * any other (the "send test" button). Tried once: no retries, no cool-down,
 * no cap. Returns its delivery id, or null when the project has no such rule.
 */
export async function sendTestNotification(projectId: string, ruleId: string, now: Date): Promise<string | null> {
  const { rows } = await dbPool().query<RuleRow & { delivery_id: string }>(
    `WITH rule AS (SELECT ${RULE_COLUMNS} FROM alert_rules WHERE id = $1 AND project_id = $2),
     claim AS (
       INSERT INTO alert_deliveries (project_id, rule_id, kind, status, attempts, created_at, last_attempt_at, next_attempt_at)
       SELECT project_id, id, 'test', 'sending', 1, $3, $3, $4 FROM rule
       RETURNING id
     )
     SELECT rule.*, claim.id AS delivery_id FROM rule, claim`,
    [ruleId, projectId, now, later(now, leaseMs())],
  );
  const row = rows[0];
  if (!row) return null;
  const { delivery_id: id, ...rule } = row;
  await sendClaimed([{ id, projectId, kind: "test", issueId: null, attempts: 1, detail: null, rule }], now, emptyReport());
  return id;
}
