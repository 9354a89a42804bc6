import { sqlDb } from "@/lib/db/sql";
import type { SendOutcome } from "@/lib/alerts/channels/types";
import type { PausedWebhook } from "@/lib/alerts/messages";

/**
 * A webhook that keeps failing is paused: after PAUSE_AFTER_FAILURES failed
 * attempts in a row (any failure: no answer, a refused connection, an error
 * status) spanning at least PAUSE_AFTER_MS, with no success in between. Its
 * queued notifications are cancelled, new ones are cancelled as they come
 * (lib/alerts/policy.ts), and the project's owners get an email (a
 * `webhook_paused` row of the delivery log). An owner resumes it in the
 * settings (resumeAlertRule in lib/alerts/rules.ts).
 */
export const PAUSE_AFTER_FAILURES = 10;
export const PAUSE_AFTER_MS = 3_600_000;

/** What the log says of a notification its paused webhook will not send. */
export const PAUSED_ANSWER = "not sent: the rule's webhook was paused (an owner can resume it in the settings)";

/** Counts a webhook's answer towards its pause; returns true when this answer paused it. */
export async function noteWebhookOutcome(rule: { id: string; project_id: string }, outcome: SendOutcome, target: string, now: Date): Promise<boolean> {
  const db = sqlDb();
  if (outcome.ok) {
    await db.updateTable("alert_rules").set({ failures_in_row: 0, failing_since: null }).where("id", "=", rule.id).where("failures_in_row", ">", 0).execute();
    return false;
  }
  const counted = await db
    .updateTable("alert_rules")
    .set((eb) => ({ failures_in_row: eb("failures_in_row", "+", 1), failing_since: eb.fn.coalesce("failing_since", eb.val(now)) }))
    .where("id", "=", rule.id)
    .where("paused_at", "is", null)
    .returning(["failures_in_row", "failing_since"])
    .executeTakeFirst();
  if (!counted?.failing_since || counted.failures_in_row < PAUSE_AFTER_FAILURES) return false;
  if (now.getTime() - counted.failing_since.getTime() < PAUSE_AFTER_MS) return false;
  const notice: PausedWebhook = { target, failures: counted.failures_in_row, since: counted.failing_since.toISOString(), lastAnswer: outcome.answer };
  return pauseWebhook(rule, notice, now);
}

async function pauseWebhook(rule: { id: string; project_id: string }, notice: PausedWebhook, now: Date): Promise<boolean> {
  return sqlDb()
    .transaction()
    .execute(async (trx) => {
      const paused = await trx
        .updateTable("alert_rules")
        .set({ paused_at: now, pause_reason: `${notice.failures} failed attempts in a row since ${notice.since}; last answer: ${notice.lastAnswer}` })
        .where("id", "=", rule.id)
        .where("paused_at", "is", null)
        .returning("id")
        .executeTakeFirst();
      if (!paused) return false; // another processor paused it first
      await trx
        .updateTable("alert_deliveries")
        .set({ status: "cancelled", answer: PAUSED_ANSWER })
        .where("rule_id", "=", rule.id)
        .where("status", "=", "pending")
        .where("kind", "in", ["new_issue", "regression", "spike", "digest"])
        .execute();
      await trx
        .insertInto("alert_deliveries")
        .values({ project_id: rule.project_id, rule_id: rule.id, kind: "webhook_paused", detail: JSON.stringify(notice), created_at: now, next_attempt_at: now })
        .execute();
      return true;
    });
}
