import { settings } from "@/lib/config/settings";
import type { AlertChannel, AlertDeliveryKind, AlertTrigger, WebhookFormat } from "@/lib/db/generated/kysely-enums";
import { sqlDb } from "@/lib/db/sql";
import { admit, type Admission, type DueRow } from "@/lib/alerts/policy";
import type { SendOutcome } from "@/lib/alerts/channels/types";
import { PAUSED_ANSWER } from "@/lib/alerts/pause";

/**
 * The outbox queue: rows of alert_deliveries, written in the statement that
 * stored the events (new issues, regressions: lib/ingest/statement.ts), by the
 * spike check (lib/alerts/spikes.ts) or by the queue itself (digests,
 * paused-webhook notices). A claim takes due rows with FOR UPDATE SKIP
 * LOCKED, project by project in turns, and in that transaction the policy
 * decides each one (lib/alerts/policy.ts); those to send become
 * `sending`, with a lease in next_attempt_at. Two processors never claim the
 * same row, and a row is sent once unless its processor dies before
 * recording the answer: then the lease runs out and it is claimed again (at
 * least once).
 */

/** Rows per claim (default). */
export const CLAIM_SIZE = 50;
// Retry n waits RETRY_BASE_MS * 2^(n-1), at most RETRY_MAX_MS.
const RETRY_BASE_MS = 30_000;
const RETRY_MAX_MS = 3_600_000;
/** A mail's deadline, from connecting to the server's last answer (lib/mail/send-mail.ts). */
export const MAIL_TIMEOUT_MS = 20_000;

/** A send's full deadline by transport. */
export function sendDeadlineMs(transport: "email" | "webhook"): number {
  return transport === "email" ? MAIL_TIMEOUT_MS : settings().alerts.webhookTimeoutMs;
}

/** How long a claim holds a row before another processor may retry it: well past any send's deadline. */
export function leaseMs(): number {
  return Math.max(sendDeadlineMs("email"), sendDeadlineMs("webhook")) + 60_000;
}

export function retryDelayMs(attempts: number): number {
  return Math.min(RETRY_BASE_MS * 2 ** Math.max(0, attempts - 1), RETRY_MAX_MS);
}

const later = (now: Date, ms: number) => new Date(now.getTime() + ms);

/** What a claimed row's rule says about where it goes. */
export type ClaimedRule = {
  id: string;
  project_id: string;
  trigger: AlertTrigger;
  channel: AlertChannel;
  email_user_ids: string[];
  webhook_url: string | null;
  webhook_format: WebhookFormat | null;
  webhook_secret: string | null;
  paused_at: Date | null;
};

export const RULE_COLUMNS = ["id", "project_id", "trigger", "channel", "email_user_ids", "webhook_url", "webhook_format", "webhook_secret", "paused_at"] as const;

/** A row claimed for sending (status `sending`, this attempt counted), with its rule. */
export type ClaimedDelivery = {
  id: string;
  projectId: string;
  kind: AlertDeliveryKind;
  issueId: string | null;
  attempts: number;
  detail: unknown;
  rule: ClaimedRule;
  /** The attempt before this one, restored if this one is released unsent. */
  previousAttemptAt: Date | null;
};

export type Claim = { toSend: ClaimedDelivery[]; seen: number; decided: Omit<Admission, "send"> };

/**
 * Claims due rows: pending and due, or `sending` whose lease ran out (its
 * processor died mid-send). Rows are taken in turns, each project's oldest
 * first, then each one's second, and so on, so every project with something
 * due has its share of a claim however long another one's backlog is.
 * `skipRules`: rules held back for the rest of this pass.
 */
export async function claimDue(options: { now: Date; projectIds: string[] | null; skipRules: ReadonlySet<string>; size?: number }): Promise<Claim> {
  const { now, projectIds, size = CLAIM_SIZE } = options;
  const empty: Claim = { toSend: [], seen: 0, decided: { cancelled: 0, failed: 0, suppressed: 0, digested: 0 } };
  if (projectIds?.length === 0) return empty;
  const skip = [...options.skipRules];
  return sqlDb()
    .transaction()
    .execute(async (trx) => {
      const ranked = trx
        .selectFrom("alert_deliveries")
        .select([
          "id",
          "next_attempt_at",
          (eb) =>
            eb.fn
              .agg<string>("row_number")
              .over((ob) => ob.partitionBy("project_id").orderBy("next_attempt_at").orderBy("id"))
              .as("turn"),
        ])
        .where("status", "in", ["pending", "sending"])
        .where("next_attempt_at", "<=", now)
        .$if(projectIds !== null, (qb) => qb.where("project_id", "in", projectIds!))
        .$if(skip.length > 0, (qb) => qb.where((eb) => eb.or([eb("rule_id", "is", null), eb("rule_id", "not in", skip)])));
      const chosen = trx
        .selectFrom(ranked.as("r"))
        .select("r.id")
        .orderBy("r.turn")
        .orderBy("r.next_attempt_at")
        .orderBy("r.id")
        .limit(size);
      const due: DueRow[] = await trx
        .selectFrom("alert_deliveries")
        .select(["id", "project_id", "rule_id", "kind", "issue_id", "attempts", "detail", "created_at", "last_attempt_at", "admitted_at"])
        .where("id", "in", chosen)
        // Claimed by someone else between the choice and the lock: skipped.
        .where("status", "in", ["pending", "sending"])
        .where("next_attempt_at", "<=", now)
        .forUpdate()
        .skipLocked()
        .execute();
      if (due.length === 0) return empty;

      const ruleIds = [...new Set(due.flatMap((d) => (d.rule_id ? [d.rule_id] : [])))];
      const ruleRows = ruleIds.length === 0 ? [] : await trx.selectFrom("alert_rules").select(RULE_COLUMNS).where("id", "in", ruleIds).execute();
      const rules = new Map(ruleRows.map((r) => [r.id, r as ClaimedRule]));

      const { send, ...decided } = await admit(trx, due, rules, now);
      const claimed: ClaimedDelivery[] = send.map((row) => ({
        id: row.id,
        projectId: row.project_id,
        kind: row.kind,
        issueId: row.issue_id,
        attempts: row.attempts + 1,
        detail: row.detail,
        rule: rules.get(row.rule_id!)!,
        previousAttemptAt: row.last_attempt_at,
      }));
      if (claimed.length > 0) {
        await trx
          .updateTable("alert_deliveries")
          .set((eb) => ({
            status: "sending",
            attempts: eb("attempts", "+", 1),
            admitted_at: eb.fn.coalesce("admitted_at", eb.val(now)),
            last_attempt_at: now,
            next_attempt_at: later(now, leaseMs()),
          }))
          .where("id", "in", claimed.map((c) => c.id))
          .execute();
      }
      return { toSend: claimed, seen: due.length, decided };
    });
}

type Recorded = "sent" | "logged" | "pending" | "failed" | "cancelled";

/**
 * The answer, recorded only if this processor still holds the claim (the
 * same attempt, still `sending`): one that lost its lease records nothing.
 */
export async function recordOutcome(delivery: ClaimedDelivery, outcome: SendOutcome, target: string, now: Date): Promise<Recorded> {
  const maxAttempts = delivery.kind === "test" ? 1 : settings().alerts.maxAttempts;
  let status: Recorded;
  let nextAttemptAt = now;
  if (outcome.ok) status = outcome.logged ? "logged" : "sent";
  else if (outcome.retryable && delivery.attempts < maxAttempts) {
    status = "pending";
    nextAttemptAt = later(now, retryDelayMs(delivery.attempts));
  } else status = "failed";
  await sqlDb()
    .updateTable("alert_deliveries")
    .set({ status, answer: outcome.answer, target, next_attempt_at: nextAttemptAt, sent_at: outcome.ok ? now : null })
    .where("id", "=", delivery.id)
    .where("status", "=", "sending")
    .where("attempts", "=", delivery.attempts)
    .execute();
  if (status === "pending" && (await cancelIfPaused(delivery.id))) return "cancelled";
  return status;
}

/**
 * A retry of a notification whose webhook was paused while it was being
 * sent (another delivery of the same pass paused it) is not kept: pausing
 * cancels only the rows waiting, so this one is cancelled here, after it
 * was written back (whichever commits first, pause or retry, it ends cancelled).
 */
async function cancelIfPaused(deliveryId: string): Promise<boolean> {
  const cancelled = await sqlDb()
    .updateTable("alert_deliveries")
    .set({ status: "cancelled", answer: PAUSED_ANSWER })
    .where("id", "=", deliveryId)
    .where("status", "=", "pending")
    .where("kind", "in", ["new_issue", "regression", "spike", "digest"])
    .where(({ exists, selectFrom }) =>
      exists(selectFrom("alert_rules").select("alert_rules.id").whereRef("alert_rules.id", "=", "alert_deliveries.rule_id").where("alert_rules.paused_at", "is not", null)),
    )
    .executeTakeFirst();
  return Number(cancelled.numUpdatedRows) > 0;
}

/**
 * Gives claimed rows back unsent (the job's budget is spent, or their
 * webhook did not answer earlier in this pass): pending again at `at`, this
 * attempt not counted, still admitted (lib/alerts/policy.ts).
 */
export async function releaseUnsent(rows: ClaimedDelivery[], at: Date): Promise<void> {
  await Promise.all(
    rows.map((row) =>
      sqlDb()
        .updateTable("alert_deliveries")
        .set((eb) => ({ status: "pending", attempts: eb("attempts", "-", 1), last_attempt_at: row.previousAttemptAt, next_attempt_at: at }))
        .where("id", "=", row.id)
        .where("status", "=", "sending")
        .where("attempts", "=", row.attempts)
        .execute(),
    ),
  );
}
