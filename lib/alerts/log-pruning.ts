import { sqlDb } from "@/lib/db/sql";

/** Days the delivery log keeps settled notifications. */
const ALERT_LOG_DAYS = 30;
const BATCH = 1_000;

type AlertLogPruned = { deliveries: number; cooldowns: number; complete: boolean };

/**
 * Deletes settled notifications (sent, logged, failed, suppressed,
 * digested, cancelled) older than ALERT_LOG_DAYS, in batches, until done
 * or `deadline` (ms by `clock`), then ended cool-downs. Pending and sending
 * rows stay, whatever their age.
 */
export async function pruneAlertLog({ now, deadline, clock = Date.now }: { now: Date; deadline: number; clock?: () => number }): Promise<AlertLogPruned> {
  const db = sqlDb();
  const cutoff = new Date(now.getTime() - ALERT_LOG_DAYS * 86_400_000);
  const pruned: AlertLogPruned = { deliveries: 0, cooldowns: 0, complete: false };
  for (;;) {
    if (clock() >= deadline) return pruned;
    const doomed = db
      .selectFrom("alert_deliveries")
      .select("id")
      .where("created_at", "<", cutoff)
      .where("status", "in", ["sent", "logged", "failed", "suppressed", "digested", "cancelled"])
      .orderBy("created_at")
      .limit(BATCH);
    const { numDeletedRows } = await db.deleteFrom("alert_deliveries").where("id", "in", doomed).executeTakeFirst();
    pruned.deliveries += Number(numDeletedRows);
    if (Number(numDeletedRows) < BATCH) break;
  }
  // A cool-down that has ended holds nothing back any more (the next one is a new row).
  const { numDeletedRows } = await db.deleteFrom("alert_cooldowns").where("until", "<", now).executeTakeFirst();
  pruned.cooldowns = Number(numDeletedRows);
  pruned.complete = true;
  return pruned;
}
