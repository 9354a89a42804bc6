import { sql, type Expression, type ExpressionBuilder, type QueryCreator, type SqlBool } from "kysely";
import type { DB } from "@/lib/db/sql";
import type { EventLevel } from "@/lib/events/schema";

/**
 * The issues' parts of the ingest statement: which issue each row joins,
 * the issue upsert (counts, regressions, ignore-until), the per-minute, hour
 * and day counts, the tag counts and the regression activity. Only the
 * holder of an issue's row lock writes its counts, so those upserts never
 * wait on each other.
 */

/** A row as the statement's grouping sees it. */
export type GroupingInput = { project_id: string; hash: string; fallback_hash: string | null; previous_hash: string | null };

/** A row with its issue key decided (see stackKeysCte) and its release's number. */
export type KeyedRow = {
  id: string;
  project_id: string;
  group_hash: string;
  title: string;
  level: EventLevel;
  message: string;
  occurred_at: Date;
  release_seq: number | null;
  tag_pairs: unknown;
};

/** A row of a count upsert's input: an event as stored. */
export type CountedRow = { issue_id: string | null; project_id: string; level: EventLevel; occurred_at: Date | null };

export type UpsertedIssue = {
  id: string;
  project_id: string;
  fingerprint_hash: string;
  level: EventLevel;
  created: boolean;
  regressed: boolean;
  /** An ignored issue this statement opened again (its time or event allowance ran out). */
  unignored: boolean;
  regressed_at: Date | null;
};

/** Distinct values kept per issue, tag key and hour, the rest counted under "" (a day holds what its hours admitted). */
export const MAX_TAG_VALUES_PER_BUCKET = 100;

/**
 * Rows whose key has no issue yet but whose older key names an issue made
 * before their key changed join that issue, so an upgrade never splits one:
 * the key before anonymous in-app functions added their source line
 * (`previous_hash`), then the message template for an issue created before
 * stack-aware grouping (`fallback_hash`, `pre_stack`). Since the change, an
 * older key names only an issue of events that sent no source line, which
 * this event would have joined before. One jsonb object `{project \x01
 * hash: key to use}`, only for rows that change.
 */
export function stackKeysCte(qc: QueryCreator<DB & { valid: GroupingInput }>) {
  // Each key once: a statement's rows share few issue keys, and each costs up to three index probes.
  const keys = qc
    .selectFrom("valid")
    .where((eb) => eb.or([eb("valid.fallback_hash", "is not", null), eb("valid.previous_hash", "is not", null)]))
    .select(["valid.project_id", "valid.hash", "valid.fallback_hash", "valid.previous_hash"])
    .distinct();
  const issueWith = (eb: ExpressionBuilder<DB & { v: GroupingInput }, "v">, hash: "v.hash" | "v.previous_hash") =>
    eb.exists(eb.selectFrom("issues").select("issues.id").whereRef("issues.project_id", "=", "v.project_id").whereRef("issues.fingerprint_hash", "=", hash));
  const candidates = qc
    .selectFrom(keys.as("v"))
    .select((eb) => [
      "v.project_id",
      "v.hash",
      eb
        .case()
        .when(issueWith(eb, "v.hash"))
        .then(eb.ref("v.hash"))
        .when(eb.and([eb("v.previous_hash", "is not", null), issueWith(eb, "v.previous_hash")]))
        .then(sql<string>`${eb.ref("v.previous_hash")}`)
        .when(
          eb.exists(
            eb
              .selectFrom("issues")
              .select("issues.id")
              .whereRef("issues.project_id", "=", "v.project_id")
              .whereRef("issues.fingerprint_hash", "=", "v.fallback_hash")
              .where("issues.pre_stack", "=", true),
          ),
        )
        .then(sql<string>`${eb.ref("v.fallback_hash")}`)
        .else(eb.ref("v.hash"))
        .end()
        .as("chosen"),
    ]);
  return qc
    .selectFrom(candidates.as("c"))
    .whereRef("c.chosen", "<>", "c.hash")
    .select((eb) => sql<Record<string, string> | null>`jsonb_object_agg(${eb.ref("c.project_id")} || chr(1) || ${eb.ref("c.hash")}, ${eb.ref("c.chosen")})`.as("keys"));
}

/** Per (project, issue key): what the statement adds to the issue. */
export function groupedCte(qc: QueryCreator<DB & { keyed: KeyedRow }>) {
  return qc
    .selectFrom("keyed as k")
    .groupBy(["k.project_id", "k.group_hash"])
    .select((eb) => [
      "k.project_id",
      sql<string>`${eb.ref("k.group_hash")}`.as("hash"),
      eb.fn.min<EventLevel>("k.level").as("level"),
      sql<string>`(array_agg(${eb.ref("k.title")} ORDER BY ${eb.ref("k.occurred_at")} DESC, ${eb.ref("k.id")} DESC))[1]`.as("title"),
      sql<string>`(array_agg(${eb.ref("k.message")} ORDER BY ${eb.ref("k.occurred_at")} DESC, ${eb.ref("k.id")} DESC))[1]`.as("sample"),
      eb.fn.min<Date>("k.occurred_at").as("first_seen"),
      eb.fn.max<Date>("k.occurred_at").as("last_seen"),
      sql<string>`count(*)`.as("n"),
      eb.fn.min<number | null>("k.release_seq").as("first_release_seq"),
      eb.fn.max<number | null>("k.release_seq").as("last_release_seq"),
    ]);
}

type Grouped = {
  project_id: string;
  hash: string;
  level: EventLevel;
  title: string;
  sample: string;
  first_seen: Date;
  last_seen: Date;
  n: string;
  first_release_seq: number | null;
  last_release_seq: number | null;
};

/**
 * Issues upserted from `grouped`, in (project, hash) order so that
 * concurrent statements lock issue rows in the same order and never
 * deadlock. A resolved issue reopens (a regression) only for an event that
 * happened after it was resolved, or, resolved in a release, for an event of
 * a newer release; other events are counted as late, also when the same
 * statement brings events that reopen it. An ignored issue whose
 * time or event allowance ran out opens again. `reopened_txid` lets
 * RETURNING tell this statement's regressions apart.
 */
export function issueUpsertCte(qc: QueryCreator<DB & { grouped: Grouped; keyed: KeyedRow }>) {
  return qc
    .insertInto("issues")
    .columns(["project_id", "fingerprint_hash", "level", "title", "sample_message", "first_seen", "last_seen", "count", "first_release_seq", "last_release_seq"])
    .expression((eb) =>
      eb
        .selectFrom("grouped as g")
        .select(["g.project_id", "g.hash", "g.level", "g.title", "g.sample", "g.first_seen", "g.last_seen", "g.n", "g.first_release_seq", "g.last_release_seq"])
        .orderBy("g.project_id")
        .orderBy("g.hash"),
    )
    .onConflict((oc) =>
      oc.columns(["project_id", "fingerprint_hash"]).doUpdateSet((eb) => {
        const status = eb.ref("issues.status");
        // Whether an event of this time and release would reopen the resolved issue.
        const reopensFor = (time: Expression<unknown>, releaseSeq: Expression<unknown>) => sql<SqlBool>`CASE ${eb.ref("issues.resolve_mode")}
            WHEN 'now' THEN ${time} > ${eb.ref("issues.resolved_at")}
            WHEN 'next_release' THEN coalesce(${releaseSeq} > ${eb.ref("issues.resolved_seq")}, false)
            WHEN 'in_release' THEN coalesce(${releaseSeq} > ${eb.ref("issues.resolved_seq")}, false)
            ELSE ${time} > coalesce(${eb.ref("issues.status_changed_at")}, '-infinity') END`;
        const reopens: Expression<SqlBool> = sql<SqlBool>`(${status} = 'resolved' AND ${reopensFor(eb.ref("excluded.last_seen"), eb.ref("excluded.last_release_seq"))})`;
        // When the group reopens the issue, its events that alone would not have are late all the same;
        // read from `keyed` only then (a regression is rare, the statement's hot path is not).
        const lateInReopening = eb
          .selectFrom("keyed as k")
          .whereRef("k.project_id", "=", "issues.project_id")
          .whereRef("k.group_hash", "=", "issues.fingerprint_hash")
          .where((k) => k.not(reopensFor(k.ref("k.occurred_at"), k.ref("k.release_seq"))))
          .select(sql<string>`count(*)`.as("n"));
        const unignores: Expression<SqlBool> = sql<SqlBool>`(${status} = 'ignored' AND (${eb.ref("issues.ignored_until")} <= now()
            OR ${eb.ref("issues.count")} + ${eb.ref("excluded.count")} >= ${eb.ref("issues.ignored_until_count")}))`;
        return {
          count: eb(eb.ref("issues.count"), "+", eb.ref("excluded.count")),
          level: eb.fn<EventLevel>("least", [eb.ref("issues.level"), eb.ref("excluded.level")]),
          first_seen: eb.fn<Date>("least", [eb.ref("issues.first_seen"), eb.ref("excluded.first_seen")]),
          last_seen: eb.fn<Date>("greatest", [eb.ref("issues.last_seen"), eb.ref("excluded.last_seen")]),
          sample_message: eb
            .case()
            .when(eb.ref("excluded.last_seen"), ">=", eb.ref("issues.last_seen"))
            .then(eb.ref("excluded.sample_message"))
            .else(eb.ref("issues.sample_message"))
            .end(),
          // LEAST and GREATEST skip nulls: an event without a release changes neither.
          first_release_seq: eb.fn<number | null>("least", [eb.ref("issues.first_release_seq"), eb.ref("excluded.first_release_seq")]),
          last_release_seq: eb.fn<number | null>("greatest", [eb.ref("issues.last_release_seq"), eb.ref("excluded.last_release_seq")]),
          status: sql`CASE WHEN ${reopens} OR ${unignores} THEN 'open'::issue_status ELSE ${status} END`,
          status_changed_at: sql`CASE WHEN ${reopens} OR ${unignores} THEN now() ELSE ${eb.ref("issues.status_changed_at")} END`,
          ignored_until: sql`CASE WHEN ${unignores} THEN NULL ELSE ${eb.ref("issues.ignored_until")} END`,
          ignored_until_count: sql`CASE WHEN ${unignores} THEN NULL ELSE ${eb.ref("issues.ignored_until_count")} END`,
          // The first event after the resolution when the group holds only
          // such events; with late ones mixed in, its newest.
          regressed_at: sql`CASE WHEN ${reopens} THEN
              CASE WHEN ${eb.ref("excluded.first_seen")} > ${eb.ref("issues.resolved_at")} THEN ${eb.ref("excluded.first_seen")} ELSE ${eb.ref("excluded.last_seen")} END
            ELSE ${eb.ref("issues.regressed_at")} END`,
          late_count: sql`${eb.ref("issues.late_count")} + CASE WHEN ${status} <> 'resolved' THEN 0 WHEN ${reopens} THEN (${lateInReopening}) ELSE ${eb.ref("excluded.count")} END`,
          reopened_txid: sql`CASE WHEN ${reopens} THEN txid_current() ELSE ${eb.ref("issues.reopened_txid")} END`,
          unignored_txid: sql`CASE WHEN ${unignores} THEN txid_current() ELSE ${eb.ref("issues.unignored_txid")} END`,
        };
      }),
    )
    .returning((eb) => [
      "issues.id",
      "issues.project_id",
      "issues.fingerprint_hash",
      "issues.level",
      "issues.regressed_at",
      sql<boolean>`(${eb.ref("issues.xmax" as "issues.id")} = 0)`.as("created"),
      sql<boolean>`(${eb.ref("issues.reopened_txid")} IS NOT DISTINCT FROM txid_current())`.as("regressed"),
      sql<boolean>`(${eb.ref("issues.unignored_txid")} IS NOT DISTINCT FROM txid_current())`.as("unignored"),
    ]);
}

/**
 * The upserted issues' ids by (project, key), as one jsonb object read once
 * per row. A join of the rows with issues_up would do the same, but the
 * planner cannot know how many rows a JSON parameter holds and picks a
 * nested loop ([why](../../docs/performance.md#group-commit-one-statement-at-a-time)).
 */
export function issueIdsCte(qc: QueryCreator<DB & { issues_up: UpsertedIssue }>) {
  return qc
    .selectFrom("issues_up as u")
    .select((eb) => sql<Record<string, string> | null>`jsonb_object_agg(${eb.ref("u.project_id")} || chr(1) || ${eb.ref("u.fingerprint_hash")}, ${eb.ref("u.id")})`.as("ids"));
}

/** Each keyed row with the id of the issue it joined (from issue_ids). */
export function placedCte(qc: QueryCreator<DB & { issue_ids: { ids: Record<string, string> | null }; keyed: KeyedRow }>) {
  return qc
    .selectFrom("keyed as k")
    .selectAll("k")
    .select((eb) =>
      sql<string>`((${eb.selectFrom("issue_ids").select("issue_ids.ids")}) ->> (${eb.ref("k.project_id")} || chr(1) || ${eb.ref("k.group_hash")}))::uuid`.as("issue_id"),
    );
}

/** Each placed row's issue, as one jsonb object `{event id: issue id}` (see insertEventsCte). */
export function eventIssuesCte(qc: QueryCreator<DB & { placed: { id: string; issue_id: string } }>) {
  return qc.selectFrom("placed as k").select((eb) => sql<Record<string, string> | null>`jsonb_object_agg(${eb.ref("k.id")}::text, ${eb.ref("k.issue_id")})`.as("ids"));
}

const COUNT_BUCKETS = {
  issue_counts: { bucket: "minute", width: "1 minute" },
  issue_hours: { bucket: "hour", width: "1 hour" },
  issue_days: { bucket: "day", width: "1 day" },
} as const;

/** Per-minute, per-hour or per-day counts added from the stored rows of `events_in`. */
export const countUpsertCte = (table: keyof typeof COUNT_BUCKETS) => (qc: QueryCreator<DB & { events_in: CountedRow }>) => {
  const { bucket, width } = COUNT_BUCKETS[table];
  // The three tables have the same shape but for the bucket column's name.
  const t = table as "issue_counts";
  const b = bucket as "minute";
  return qc
    .insertInto(t)
    .columns(["issue_id", b, "level", "project_id", "count"])
    .expression((eb) =>
      eb
        .selectFrom("events_in as e")
        .select((eb) => [
          "e.issue_id",
          sql<Date>`date_bin(${sql.lit(width)}, ${eb.ref("e.occurred_at")}, TIMESTAMPTZ 'epoch')`.as("bucket"),
          "e.level",
          "e.project_id",
          sql<number>`count(*)::int`.as("n"),
        ])
        .groupBy(sql`1, 2, 3, 4`)
        .orderBy(sql`1, 2, 3`),
    )
    .onConflict((oc) => oc.columns(["issue_id", b, "level"]).doUpdateSet((eb) => ({ count: sql<number>`${sql.id(table, "count")} + ${eb.ref("excluded.count")}` })))
    .returning(sql<number>`1`.as("one"));
};

/** The statement's tag pairs per issue, hour, key and value, with how many rows have each. */
export type TagRow = { issue_id: string; project_id: string; hour: Date; key: string; value: string; n: number };

/**
 * The statement's rows' tag pairs, counted once per issue, hour, key and
 * value: both tag count tables (hours, and days summed from these) start from
 * this one aggregate rather than each from every row's pairs.
 */
export function tagRowsCte(qc: QueryCreator<DB & { placed: KeyedRow & { issue_id: string } }>) {
  return qc
    .selectFrom(["placed as k", sql<{ value: unknown }>`jsonb_array_elements(${sql.ref("k.tag_pairs")})`.as("t")])
    .where("k.tag_pairs", "is not", null)
    .select((eb) => [
      "k.issue_id",
      "k.project_id",
      sql<Date>`date_bin('1 hour', ${eb.ref("k.occurred_at")}, TIMESTAMPTZ 'epoch')`.as("hour"),
      sql<string>`${eb.ref("t.value")} ->> 0`.as("key"),
      sql<string>`${eb.ref("t.value")} ->> 1`.as("value"),
      sql<number>`count(*)::int`.as("n"),
    ])
    .groupBy(sql`1, 2, 3, 4, 5`);
}

/**
 * The statement's tag rows appended to the backlog as one row of parallel
 * arrays, rather than added to the tag count tables here: adding them
 * (deciding which values an hour admits, then two upserts of every distinct
 * value) was half of the statement's database work, and the backlog adds
 * many statements' rows at once (lib/issues/tag-backlog.ts), where the same
 * values recur.
 */
export function tagBacklogCte(qc: QueryCreator<DB & { tag_rows: TagRow }>) {
  return qc
    .insertInto("tag_count_backlog")
    .columns(["issue_ids", "project_ids", "hours", "keys", "tag_values", "counts", "tag_rows"])
    .expression((eb) =>
      eb
        .selectFrom("tag_rows as t")
        .select([
          sql<string[]>`array_agg(t.issue_id)`.as("issue_ids"),
          sql<string[]>`array_agg(t.project_id)`.as("project_ids"),
          sql<Date[]>`array_agg(t.hour)`.as("hours"),
          sql<string[]>`array_agg(t.key)`.as("keys"),
          sql<string[]>`array_agg(t.value)`.as("tag_values"),
          sql<number[]>`array_agg(t.n)`.as("counts"),
          sql<number>`count(*)::int`.as("tag_rows"),
        ])
        .having(sql<boolean>`count(*) > 0`),
    )
    .returning(sql<number>`1`.as("one"));
}

/**
 * The statement's tag rows as the hourly counts will hold them: the values
 * an hour already holds counted as usual, new ones admitted while the
 * hour has room (MAX_TAG_VALUES_PER_BUCKET, the most frequent first), the
 * rest under "". Concurrent statements decide from their own snapshot, so
 * an hour may end up a few values over the bound, never unboundedly.
 */
export function tagAdmittedCte(qc: QueryCreator<DB & { tag_rows: TagRow }>) {
  return (
    qc
      // Per issue, hour and key: how many values the statement brings, and the room the hour has left.
      .with("room", (qc) =>
        qc
          .selectFrom("tag_rows as k")
          .groupBy(["k.issue_id", "k.hour", "k.key"])
          .select((eb) => [
            "k.issue_id",
            "k.hour",
            "k.key",
            sql<number>`count(*)::int`.as("values_here"),
            sql<number>`${sql.lit(MAX_TAG_VALUES_PER_BUCKET)} - (${eb
              .selectFrom("issue_tag_hours as s")
              .select((s) => s.fn.countAll<number>().as("n"))
              .whereRef("s.issue_id", "=", "k.issue_id")
              .whereRef("s.hour", "=", "k.hour")
              .whereRef("s.key", "=", "k.key")
              .where("s.value", "<>", "")})`.as("room"),
          ]),
      )
      // Whether each value is admitted for sure: every value fits in the
      // hour's room, or the hour already holds it (only looked up when
      // they do not all fit).
      .with("known", (qc) =>
        qc
          .selectFrom("tag_rows as k")
          .innerJoin("room as r", (join) => join.onRef("r.issue_id", "=", "k.issue_id").onRef("r.hour", "=", "k.hour").onRef("r.key", "=", "k.key"))
          .selectAll("k")
          .select((eb) => [
            "r.room",
            sql<boolean>`CASE WHEN ${eb.ref("r.values_here")} <= ${eb.ref("r.room")} THEN true ELSE ${eb.exists(
              eb
                .selectFrom("issue_tag_hours as s")
                .select("s.count")
                .whereRef("s.issue_id", "=", "k.issue_id")
                .whereRef("s.hour", "=", "k.hour")
                .whereRef("s.key", "=", "k.key")
                .whereRef("s.value", "=", "k.value"),
            )} END`.as("sure"),
          ]),
      )
      // The others are admitted while the room lasts, the most frequent first; the rest are counted under "".
      .selectFrom("known as k")
      .select((eb) => [
        "k.issue_id",
        "k.project_id",
        "k.hour",
        "k.key",
        sql<string>`CASE WHEN ${eb.ref("k.sure")} OR row_number() OVER (PARTITION BY ${eb.ref("k.issue_id")}, ${eb.ref("k.hour")}, ${eb.ref("k.key")}, ${eb.ref("k.sure")}
            ORDER BY ${eb.ref("k.n")} DESC, ${eb.ref("k.value")}) <= ${eb.ref("k.room")} THEN ${eb.ref("k.value")} ELSE '' END`.as("value"),
        "k.n",
      ])
  );
}

const TAG_BUCKETS = {
  issue_tag_hours: { bucket: "hour", width: "1 hour" },
  issue_tag_days: { bucket: "day", width: "1 day" },
} as const;

/**
 * Tag counts per issue, key, value and hour or day, added from
 * `tag_admitted`. A day counts what its hours admitted, so each day row is
 * the sum of its hours' rows: a day holds at most 24 times the hourly bound
 * of distinct values, and deciding admission once costs half of deciding it
 * per table.
 */
export const tagCountUpsertCte = (table: keyof typeof TAG_BUCKETS) => (qc: QueryCreator<DB & { tag_admitted: TagRow }>) => {
  const { bucket, width } = TAG_BUCKETS[table];
  // The two tables have the same shape but for the bucket column's name.
  const t = table as "issue_tag_hours";
  const b = bucket as "hour";
  return qc
    .insertInto(t)
    .columns(["issue_id", b, "key", "value", "project_id", "count"])
    .expression((eb) =>
      eb
        .selectFrom("tag_admitted as a")
        .select((eb) => [
          "a.issue_id",
          sql<Date>`date_bin(${sql.lit(width)}, ${eb.ref("a.hour")}, TIMESTAMPTZ 'epoch')`.as("bucket"),
          "a.key",
          "a.value",
          "a.project_id",
          sql<number>`sum(${eb.ref("a.n")})::int`.as("n"),
        ])
        .groupBy(sql`1, 2, 3, 4, 5`)
        .orderBy(sql`1, 2, 3, 4`),
    )
    .onConflict((oc) => oc.columns(["issue_id", b, "key", "value"]).doUpdateSet((eb) => ({ count: sql<number>`${sql.id(table, "count")} + ${eb.ref("excluded.count")}` })))
    .returning(sql<number>`1`.as("one"));
};

/**
 * The activity of each issue this statement reopened: a "regression", or,
 * for an ignored issue whose allowance ran out, a status change by Telltale.
 */
export function ingestActivityCte(qc: QueryCreator<DB & { issues_up: UpsertedIssue }>) {
  return qc
    .insertInto("issue_activities")
    .columns(["issue_id", "project_id", "kind", "detail"])
    .expression((eb) =>
      eb
        .selectFrom("issues_up as u")
        .where((eb) => eb.or([eb("u.regressed", "=", true), eb("u.unignored", "=", true)]))
        .select((eb) => [
          "u.id",
          "u.project_id",
          sql<"regression" | "status">`(CASE WHEN ${eb.ref("u.regressed")} THEN 'regression' ELSE 'status' END)::issue_activity_kind`.as("kind"),
          sql<unknown>`CASE WHEN ${eb.ref("u.regressed")} THEN jsonb_build_object('at', to_char(${eb.ref("u.regressed_at")} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'))
            ELSE jsonb_build_object('from', 'ignored', 'to', 'open', 'reason', 'ignore_ended') END`.as("detail"),
        ]),
    )
    .returning(sql<number>`1`.as("one"));
}
