import { sql, type QueryCreator } from "kysely";
import type { DB } from "@/lib/db/sql";

/** What the ingest statement knows of each row's release. */
export type ReleasedInput = { project_id: string; release: string | null; occurred_at: Date };
export type ReleaseSeen = { project_id: string; version: string; first_seen: Date };

/** The releases a statement's rows name, with their first event's time. */
export function releasesSeenCte(qc: QueryCreator<DB & { valid: ReleasedInput }>) {
  return qc
    .selectFrom("valid")
    .select((eb) => ["valid.project_id", sql<string>`${eb.ref("valid.release")}`.as("version"), eb.fn.min<Date>("valid.occurred_at").as("first_seen")])
    .where("valid.release", "is not", null)
    .groupBy(["valid.project_id", "valid.release"]);
}

/**
 * New releases, numbered after the project's last one in the order they
 * were first seen: that order is what "a newer release" means (resolve in
 * next release). Two statements adding releases to one project at once may
 * give two the same number; they then count as equally new.
 */
export function newReleasesCte(qc: QueryCreator<DB & { releases_seen: ReleaseSeen }>) {
  return qc
    .insertInto("releases")
    .columns(["project_id", "version", "seq", "first_seen"])
    .expression((eb) =>
      eb
        .selectFrom("releases_seen as s")
        .select((eb) => [
          "s.project_id",
          "s.version",
          sql<number>`coalesce((${eb.selectFrom("releases as x").select((x) => x.fn.max("x.seq").as("m")).whereRef("x.project_id", "=", "s.project_id")}), 0)
            + row_number() OVER (PARTITION BY ${eb.ref("s.project_id")} ORDER BY ${eb.ref("s.first_seen")}, ${eb.ref("s.version")})`.as("seq"),
          "s.first_seen",
        ])
        .where(({ not, exists, selectFrom }) =>
          not(exists(selectFrom("releases as x").select("x.seq").whereRef("x.project_id", "=", "s.project_id").whereRef("x.version", "=", "s.version"))),
        )
        .orderBy("s.project_id")
        .orderBy("s.version"),
    )
    .onConflict((oc) => oc.doNothing())
    .returning(["releases.project_id", "releases.version", "releases.seq"]);
}

/** Each named release's number, as one jsonb object `{project \x01 version: seq}` read once per row. */
export function releaseSeqsCte(qc: QueryCreator<DB & { releases_seen: ReleaseSeen; releases_new: { project_id: string; version: string; seq: number } }>) {
  const known = qc
    .selectFrom("releases")
    .select(["releases.project_id", "releases.version", "releases.seq"])
    .where(({ eb, refTuple, selectFrom }) =>
      eb(refTuple("releases.project_id", "releases.version"), "in", selectFrom("releases_seen").select(["releases_seen.project_id", "releases_seen.version"]).$asTuple("project_id", "version")),
    )
    .unionAll(qc.selectFrom("releases_new").select(["releases_new.project_id", "releases_new.version", "releases_new.seq"]));
  return qc
    .selectFrom(known.as("r"))
    .select((eb) => sql<Record<string, number> | null>`jsonb_object_agg(${eb.ref("r.project_id")} || chr(1) || ${eb.ref("r.version")}, ${eb.ref("r.seq")})`.as("seqs"));
}
