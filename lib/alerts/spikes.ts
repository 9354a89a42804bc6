import { sql } from "kysely";
import { sqlDb } from "@/lib/db/sql";
import { unignoredMinuteCounts } from "@/lib/issues/reads";

/**
 * Queues a spike notification for each spike rule whose threshold is met:
 * per issue, or over the whole project, the events at or above the rule's
 * level in the current minute and the M-1 before it, from the exact
 * per-minute counts (ignored issues left out). Not while the rule and
 * subject are in their cool-down, nor while one is already queued. One
 * statement; returns how many were queued.
 */
export async function queueSpikes(now: Date, projectIds: string[] | null): Promise<number> {
  if (projectIds?.length === 0) return 0;
  const db = sqlDb();
  const result = await db
    .with("rules", (q) =>
      q
        .selectFrom("alert_rules")
        .select(["id", "project_id", "min_level", "spike_count", "spike_minutes", "spike_scope"])
        .where("trigger", "=", "spike")
        .$if(projectIds !== null, (qb) => qb.where("project_id", "in", projectIds!)),
    )
    .with("counted", (q) =>
      q
        .selectFrom("rules as r")
        .innerJoin(unignoredMinuteCounts(now).as("c"), (join) =>
          join
            .onRef("c.project_id", "=", "r.project_id")
            // Whole minutes: the current one and the M-1 before it.
            .on(sql<boolean>`c.minute > date_bin('1 minute', ${now}::timestamptz, TIMESTAMPTZ 'epoch') - make_interval(mins => r.spike_minutes)`)
            .onRef("c.level", "<=", "r.min_level"),
        )
        .select((eb) => [
          "r.id as rule_id",
          "r.project_id",
          eb.case().when("r.spike_scope", "=", "issue").then(eb.ref("c.issue_id")).end().as("issue_id"),
          sql<string>`sum(c.count)::bigint`.as("observed"),
          "r.spike_count",
          "r.spike_minutes",
          "r.spike_scope",
        ])
        .groupBy(["r.id", "r.project_id", sql`3`, "r.spike_count", "r.spike_minutes", "r.spike_scope"])
        .having(sql<boolean>`sum(c.count) >= r.spike_count`),
    )
    .insertInto("alert_deliveries")
    .columns(["project_id", "rule_id", "kind", "issue_id", "detail", "created_at", "next_attempt_at"])
    .expression((eb) =>
      eb
        .selectFrom("counted as k")
        .select((s) => [
          "k.project_id",
          "k.rule_id",
          sql<"spike">`'spike'::alert_delivery_kind`.as("kind"),
          "k.issue_id",
          sql`jsonb_build_object('observed', k.observed, 'count', k.spike_count, 'minutes', k.spike_minutes, 'scope', k.spike_scope)`.as("detail"),
          s.val(now).as("created_at"),
          s.val(now).as("next_attempt_at"),
        ])
        .where((w) =>
          w.not(
            w.exists(
              w
                .selectFrom("alert_cooldowns as w")
                .select(sql`1`.as("one"))
                .whereRef("w.rule_id", "=", "k.rule_id")
                .where(sql<boolean>`w.subject = coalesce(k.issue_id::text, 'project')`)
                .where("w.until", ">", now),
            ),
          ),
        )
        .where((w) =>
          w.not(
            w.exists(
              w
                .selectFrom("alert_deliveries as d")
                .select(sql`1`.as("one"))
                .whereRef("d.rule_id", "=", "k.rule_id")
                .where("d.kind", "=", "spike")
                .where(sql<boolean>`d.issue_id IS NOT DISTINCT FROM k.issue_id`)
                .where("d.status", "in", ["pending", "sending"]),
            ),
          ),
        ),
    )
    .executeTakeFirst();
  return Number(result.numInsertedOrUpdatedRows ?? 0);
}
