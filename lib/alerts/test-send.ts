import { sqlDb } from "@/lib/db/sql";
import { sendClaimed } from "@/lib/alerts/processor";
import { leaseMs, RULE_COLUMNS, type ClaimedRule } from "@/lib/alerts/queue";

/**
 * A test notification through a rule's channel, sent now and logged like
 * any other (the "send test" button). Tried once: no retries, no cool-down,
 * no cap; also while the rule's webhook is paused (to see whether it works
 * again). Returns its delivery id, or null when the project has no such rule.
 */
export async function sendTestNotification(projectId: string, ruleId: string, now: Date): Promise<string | null> {
  const db = sqlDb();
  const rule = await db.selectFrom("alert_rules").select(RULE_COLUMNS).where("id", "=", ruleId).where("project_id", "=", projectId).executeTakeFirst();
  if (!rule) return null;
  const { id } = await db
    .insertInto("alert_deliveries")
    .values({
      project_id: projectId,
      rule_id: rule.id,
      kind: "test",
      status: "sending",
      attempts: 1,
      created_at: now,
      last_attempt_at: now,
      next_attempt_at: new Date(now.getTime() + leaseMs()),
    })
    .returning("id")
    .executeTakeFirstOrThrow();
  await sendClaimed([{ id, projectId, kind: "test", issueId: null, attempts: 1, detail: null, rule: rule as ClaimedRule, previousAttemptAt: null }], now);
  return id;
}
