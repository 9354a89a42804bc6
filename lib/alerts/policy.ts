import { sql, type Transaction } from "kysely";
import { settings } from "@/lib/config/settings";
import type { DB } from "@/lib/db/sql";
import type { AlertDeliveryKind, AlertDeliveryStatus } from "@/lib/db/generated/kysely-enums";

/**
 * The alert policy, decided in the transaction that claims due rows
 * (lib/alerts/queue.ts): a row whose rule is gone or paused is cancelled;
 * one per rule and subject per cool-down (the rest suppressed); at most
 * ALERTS_MAX_PER_PROJECT_PER_HOUR per project, the rest folded into one
 * digest per rule every DIGEST_INTERVAL_MS.
 */

// One digest per rule per this long, however many notifications it folds.
const DIGEST_INTERVAL_MS = 15 * 60_000;
const CAP_WINDOW_MS = 3_600_000;

/** A due row as the policy sees it. */
export type DueRow = {
  id: string;
  project_id: string;
  rule_id: string | null;
  kind: AlertDeliveryKind;
  issue_id: string | null;
  attempts: number;
  detail: unknown;
  created_at: Date;
  last_attempt_at: Date | null;
  admitted_at: Date | null;
};

/** What the policy needs of a row's rule. */
type PolicyRule = { id: string; paused_at: Date | null };

export type Admission = {
  /** Rows to send now (digests made here included). */
  send: DueRow[];
  cancelled: number;
  failed: number;
  suppressed: number;
  digested: number;
};

const later = (now: Date, ms: number) => new Date(now.getTime() + ms);

// Owner notices, tests and digests need no admission (digests were made by it).
const ADMITTED: ReadonlySet<AlertDeliveryKind> = new Set(["test", "digest", "webhook_paused"]);
// Sent on behalf of a rule's channel: not while its webhook is paused.
const PAUSABLE: ReadonlySet<AlertDeliveryKind> = new Set(["new_issue", "regression", "spike", "digest"]);

export async function admit(trx: Transaction<DB>, due: DueRow[], rules: Map<string, PolicyRule>, now: Date): Promise<Admission> {
  const { cooldownMinutes, maxPerProjectPerHour, maxAttempts } = settings().alerts;
  const result: Admission = { send: [], cancelled: 0, failed: 0, suppressed: 0, digested: 0 };

  const cancelled: DueRow[] = [];
  const paused: DueRow[] = [];
  const givenUp: DueRow[] = [];
  const candidates: DueRow[] = [];
  for (const row of due) {
    const rule = row.rule_id ? rules.get(row.rule_id) : undefined;
    if (!rule) cancelled.push(row);
    else if (rule.paused_at && PAUSABLE.has(row.kind)) paused.push(row);
    // A test is tried once; a row whose last lease ran out used its last attempt.
    else if (row.attempts >= (row.kind === "test" ? 1 : maxAttempts)) givenUp.push(row);
    // Retries, and rows given back unsent, were admitted already.
    else if (ADMITTED.has(row.kind) || row.admitted_at || row.attempts > 0) result.send.push(row);
    else candidates.push(row);
  }

  const budget = await projectBudgets(trx, [...new Set(candidates.map((d) => d.project_id))], now, maxPerProjectPerHour);

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
    const taken = await takeCooldowns(trx, attempt.map((r) => ({ ruleId: r.rule_id!, subject: r.issue_id ?? "project" })), now, cooldownMinutes * 60_000);
    let freed = false;
    for (const row of attempt) {
      if (taken.has(subjectKey(row))) {
        result.send.push(row);
        budget.set(row.project_id, budget.get(row.project_id)! - 1);
      } else {
        suppressed.push(row);
        freed = true;
      }
    }
    queue = freed ? wait : [];
    if (!freed) for (const row of wait) overflow.set(row.rule_id!, [...(overflow.get(row.rule_id!) ?? []), row]);
  }

  await setStatus(trx, cancelled, "cancelled", "its rule was deleted");
  await setStatus(trx, paused, "cancelled", "not sent: the rule's webhook is paused (an owner can resume it in the settings)");
  await setStatus(trx, givenUp, "failed", "gave up: the last attempt was interrupted (the process stopped mid-send)");
  await setStatus(trx, suppressed, "suppressed", `cool-down: this rule already notified about this within ${cooldownMinutes} min`);
  result.cancelled += cancelled.length + paused.length;
  result.failed += givenUp.length;
  result.suppressed += suppressed.length;

  for (const digest of await foldIntoDigests(trx, overflow, now, result)) result.send.push(digest);
  return result;
}

/**
 * What each project may still send this hour. Processors taking the same
 * project's rows count one after the other (a transaction-scoped advisory
 * lock per project, taken in a fixed order).
 */
async function projectBudgets(trx: Transaction<DB>, projects: string[], now: Date, perHour: number): Promise<Map<string, number>> {
  const budget = new Map(projects.map((p) => [p, perHour]));
  if (projects.length === 0) return budget;
  const keys = projects.map((p) => `telltale-alerts:${p}`).sort();
  await sql`SELECT pg_advisory_xact_lock(hashtextextended(k, 0)) FROM (SELECT k FROM unnest(${keys}::text[]) AS k ORDER BY k) AS ordered`.execute(trx);
  const counts = await trx
    .selectFrom("alert_deliveries")
    .select(["project_id", (eb) => eb.fn.countAll<string>().as("n")])
    .where("project_id", "in", projects)
    .where("kind", "in", ["new_issue", "regression", "spike"])
    .where("status", "in", ["sending", "sent", "failed", "logged"])
    .where("created_at", ">", later(now, -86_400_000))
    .where("last_attempt_at", ">", later(now, -CAP_WINDOW_MS))
    .groupBy("project_id")
    .execute();
  for (const c of counts) budget.set(c.project_id, perHour - Number(c.n));
  return budget;
}

/**
 * Takes the cool-down of each (rule, subject) that is free at `now`, until
 * `now + ms`; returns those taken. Concurrent processors serialize on the
 * cool-down row, so one of them gets it.
 */
async function takeCooldowns(trx: Transaction<DB>, keys: { ruleId: string; subject: string }[], now: Date, ms: number): Promise<Set<string>> {
  if (keys.length === 0) return new Set();
  const rows = await trx
    .insertInto("alert_cooldowns")
    .values(keys.map((k) => ({ rule_id: k.ruleId, subject: k.subject, until: later(now, ms) })))
    .onConflict((oc) =>
      oc
        .columns(["rule_id", "subject"])
        .doUpdateSet({ until: (eb) => eb.ref("excluded.until") })
        .where("alert_cooldowns.until", "<=", now),
    )
    .returning(["rule_id", "subject"])
    .execute();
  return new Set(rows.map((r) => `${r.rule_id}\u0000${r.subject}`));
}

async function setStatus(trx: Transaction<DB>, rows: DueRow[], status: AlertDeliveryStatus, answer: string): Promise<void> {
  if (rows.length === 0) return;
  await trx
    .updateTable("alert_deliveries")
    .set({ status, answer })
    .where("id", "in", rows.map((r) => r.id))
    .execute();
}

/**
 * Past the cap: one digest per rule, at most every DIGEST_INTERVAL_MS;
 * until the rule's digest is free, its rows wait for it. Returns the
 * digests made (due now).
 */
async function foldIntoDigests(trx: Transaction<DB>, overflow: Map<string, DueRow[]>, now: Date, result: Admission): Promise<DueRow[]> {
  const digests: DueRow[] = [];
  const taken = await takeCooldowns(trx, [...overflow.keys()].map((ruleId) => ({ ruleId, subject: "digest" })), now, DIGEST_INTERVAL_MS);
  for (const [ruleId, rows] of overflow) {
    const ids = rows.map((r) => r.id);
    if (!taken.has(`${ruleId}\u0000digest`)) {
      const wait = await trx.selectFrom("alert_cooldowns").select("until").where("rule_id", "=", ruleId).where("subject", "=", "digest").executeTakeFirst();
      await trx
        .updateTable("alert_deliveries")
        .set({ next_attempt_at: wait?.until ?? later(now, DIGEST_INTERVAL_MS) })
        .where("id", "in", ids)
        .execute();
      continue;
    }
    const detail = { total: rows.length, items: rows.slice(0, 50).map((r) => ({ trigger: r.kind, issueId: r.issue_id })) };
    const digest = await trx
      .insertInto("alert_deliveries")
      .values({ project_id: rows[0]!.project_id, rule_id: ruleId, kind: "digest", detail: JSON.stringify(detail), created_at: now, next_attempt_at: now })
      .returning(["id", "project_id", "rule_id", "kind", "issue_id", "attempts", "detail", "created_at", "last_attempt_at", "admitted_at"])
      .executeTakeFirstOrThrow();
    await trx
      .updateTable("alert_deliveries")
      .set({ status: "digested", digest_id: digest.id, answer: "held back by the per-project limit, sent in a digest" })
      .where("id", "in", ids)
      .execute();
    result.digested += rows.length;
    digests.push(digest);
  }
  return digests;
}
