/**
 * How events become issues and counts: the issue upsert and the per-minute,
 * per-hour and per-day count upserts, as Kysely common table expressions
 * over a source of events. The backfill of old events uses them
 * (lib/issues/backfill.ts); they are what ingestion's one statement does too.
 *
 * Each piece reads its source under a fixed name and adds its own tables to
 * the statement. Kysely's builders are invariant in the statement's tables:
 * a statement with other tables before passes its creator as the piece's
 * (`qc as unknown as QueryCreator<IssueSourceDB>`), the source being what
 * the piece needs.
 */
import { expressionBuilder, sql, type QueryCreator } from "kysely";
import type { DB } from "@/lib/db/sql";
import type { EventLevel } from "@/lib/events/schema";
import type { IssueStatus } from "@/lib/issues/filters";

/** An event to group: its issue's key (hash) and title come from lib/issues/template.ts. */
export type IssueSourceRow = { id: string; project_id: string; hash: string; title: string; level: EventLevel; message: string; occurred_at: Date };
export type IssueSourceDB = DB & { issue_source: IssueSourceRow };

/**
 * CTEs `issue_groups` (the source's events per project and hash) and
 * `issues_up`: each issue created, or updated (count, most severe level,
 * first and last seen, the latest message), in (project, hash) order, the
 * order every writer takes issue row locks in. A resolved issue that gets an
 * event reopens: a regression dated by its first new event, marked by the
 * transaction (`regressed`). `created` tells a new issue.
 */
export function withIssueUpsert(qc: QueryCreator<IssueSourceDB>) {
  return qc
    .with("issue_groups", (db) =>
      db
        .selectFrom("issue_source")
        .select((eb) => [
          "project_id",
          "hash",
          eb.fn.min("level").as("level"),
          sql<string>`(${eb.fn.agg<string[]>("array_agg", ["title"]).orderBy("occurred_at", "desc").orderBy("id", "desc")})[1]`.as("title"),
          sql<string>`(${eb.fn.agg<string[]>("array_agg", ["message"]).orderBy("occurred_at", "desc").orderBy("id", "desc")})[1]`.as("sample"),
          eb.fn.min("occurred_at").as("first_seen"),
          eb.fn.max("occurred_at").as("last_seen"),
          eb.fn.countAll<string>().as("n"),
        ])
        .groupBy(["project_id", "hash"]),
    )
    .with("issues_up", (db) =>
      db
        .insertInto("issues")
        .columns(["project_id", "fingerprint_hash", "level", "title", "sample_message", "first_seen", "last_seen", "count"])
        .expression(
          db
            .selectFrom("issue_groups")
            .select(["project_id", "hash", "level", "title", "sample", "first_seen", "last_seen", "n"])
            .orderBy("project_id")
            .orderBy("hash"),
        )
        .onConflict((oc) =>
          oc.columns(["project_id", "fingerprint_hash"]).doUpdateSet((eb) => {
            const resolved = eb("issues.status", "=", "resolved");
            return {
              count: sql<string>`${eb.ref("issues.count")} + ${eb.ref("excluded.count")}`,
              level: eb.fn("least", [eb.ref("issues.level"), eb.ref("excluded.level")]),
              first_seen: eb.fn("least", [eb.ref("issues.first_seen"), eb.ref("excluded.first_seen")]),
              last_seen: eb.fn("greatest", [eb.ref("issues.last_seen"), eb.ref("excluded.last_seen")]),
              sample_message: eb
                .case()
                .when("excluded.last_seen", ">=", eb.ref("issues.last_seen"))
                .then(eb.ref("excluded.sample_message"))
                .else(eb.ref("issues.sample_message"))
                .end(),
              status: eb.case().when(resolved).then(sql<IssueStatus>`'open'::issue_status`).else(eb.ref("issues.status")).end(),
              status_changed_at: eb.case().when(resolved).then(sql<Date>`now()`).else(eb.ref("issues.status_changed_at")).end(),
              regressed_at: eb.case().when(resolved).then(eb.ref("excluded.first_seen")).else(eb.ref("issues.regressed_at")).end(),
              reopened_txid: eb.case().when(resolved).then(sql<string>`txid_current()`).else(eb.ref("issues.reopened_txid")).end(),
            };
          }),
        )
        .returning((eb) => [
          "issues.id",
          "issues.project_id",
          "issues.fingerprint_hash",
          "issues.level",
          sql<boolean>`(${sql.ref("issues.xmax")} = 0)`.as("created"),
          sql<boolean>`(${eb.ref("issues.reopened_txid")} IS NOT DISTINCT FROM txid_current())`.as("regressed"),
        ]),
    );
}

/** An event counted: its issue, level, project and time. */
export type CountSourceRow = { issue_id: string; level: EventLevel; project_id: string; occurred_at: Date };
export type CountSourceDB = DB & { count_source: CountSourceRow };

/** The source's events per issue, bucket (date_bin from the epoch), level and project, in key order. */
function countsPer(width: "1 minute" | "1 hour" | "1 day") {
  return expressionBuilder<CountSourceDB, never>()
    .selectFrom("count_source")
    .select((eb) => [
      "issue_id",
      sql<Date>`date_bin(${sql.lit(width)}, ${eb.ref("occurred_at")}, TIMESTAMPTZ 'epoch')`.as("at"),
      "level",
      "project_id",
      sql<number>`count(*)::int`.as("n"),
    ])
    .groupBy(["issue_id", "at", "level", "project_id"])
    .orderBy("issue_id")
    .orderBy("at")
    .orderBy("level");
}

/**
 * CTEs `counts_up`, `hours_up` and `days_up`: the source's events added to
 * their issue's per-minute, per-hour and per-day counts. Only the holder of
 * an issue's row lock writes its counts, so these upserts never wait on each
 * other.
 */
export function withCountUpserts(qc: QueryCreator<CountSourceDB>) {
  return qc
    .with("counts_up", (db) =>
      db
        .insertInto("issue_counts")
        .columns(["issue_id", "minute", "level", "project_id", "count"])
        .expression(countsPer("1 minute"))
        .onConflict((oc) => oc.columns(["issue_id", "minute", "level"]).doUpdateSet((eb) => ({ count: sql<number>`${eb.ref("issue_counts.count")} + ${eb.ref("excluded.count")}` })))
        .returning(sql<number>`1`.as("one")),
    )
    .with("hours_up", (db) =>
      db
        .insertInto("issue_hours")
        .columns(["issue_id", "hour", "level", "project_id", "count"])
        .expression(countsPer("1 hour"))
        .onConflict((oc) => oc.columns(["issue_id", "hour", "level"]).doUpdateSet((eb) => ({ count: sql<number>`${eb.ref("issue_hours.count")} + ${eb.ref("excluded.count")}` })))
        .returning(sql<number>`1`.as("one")),
    )
    .with("days_up", (db) =>
      db
        .insertInto("issue_days")
        .columns(["issue_id", "day", "level", "project_id", "count"])
        .expression(countsPer("1 day"))
        .onConflict((oc) => oc.columns(["issue_id", "day", "level"]).doUpdateSet((eb) => ({ count: sql<number>`${eb.ref("issue_days.count")} + ${eb.ref("excluded.count")}` })))
        .returning(sql<number>`1`.as("one")),
    );
}
