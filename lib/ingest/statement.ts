import { sql } from "kysely";
import { part, placeholder, sqlBuilder, statementOnce } from "@/lib/db/sql";
import { queueIssueAlertsCte, spikeProjectsCte } from "@/lib/alerts/ingest-outbox";
import { insertEventsCte } from "@/lib/events/ingest-sql";
import type { EventLevel, EventUser } from "@/lib/events/schema";
import { claimInputCte, claimKey, claimsCte, firstAnswers } from "@/lib/ingest/idempotency";
import {
  countUpsertCte,
  eventIssuesCte,
  groupedCte,
  placedCte,
  issueIdsCte,
  issueUpsertCte,
  ingestActivityCte,
  stackKeysCte,
  tagBacklogCte,
  tagRowsCte,
} from "@/lib/issues/ingest-sql";
import { activeKeysCte } from "@/lib/keys/ingest-sql";
import { newReleasesCte, releaseSeqsCte, releasesSeenCte } from "@/lib/releases/ingest-sql";

/** An accepted event about to be stored, with what the statement needs besides it. */
export type NewEvent = {
  id: string;
  projectId: string;
  level: EventLevel;
  message: string;
  context: Record<string, unknown> | null;
  timestamp: Date | null;
  receivedAt: Date;
  occurredAt: Date;
  release: string | null;
  environment: string | null;
  tags: Record<string, string> | null;
  user: EventUser | null;
  /** The API key that sent it: checked again by the statement, not stored. */
  keyId: string;
  /**
   * Grouping: hex SHA-256 of the issue's key; the version 1 key and the key
   * before source lines counted, when they differ (issues made before those
   * changes keep their events); and the title.
   */
  issueHash: string;
  fallbackHash: string | null;
  previousHash: string | null;
  issueTitle: string;
  /** [key, value] pairs counted for the issue's tag breakdowns. */
  tagPairs: [string, string][] | null;
};

/** An issue the statement created, or reopened (a resolved issue that got a new event). */
export type IssueTransition = { issueId: string; projectId: string; level: EventLevel; kind: "new_issue" | "regression" };

/** One request's share of a statement: its rows, and the idempotency claim that guards them. */
export type WriteRequest = {
  rows: NewEvent[];
  /** Scoped key (per project and endpoint) and the answer to keep for retries. */
  idempotency?: { key: string; response: object };
};

export type StatementResult = {
  stored: number;
  refusedKeys: Set<string>;
  /** Idempotency claims another request had made: these requests stored nothing. */
  unclaimed: Set<string>;
  replays: Map<string, object>;
  transitions: IssueTransition[];
  /** Projects this statement queued notifications for; projects with spike rules it stored events of. */
  alertProjects: Set<string>;
  spikeProjects: Set<string>;
  /** The statement appended tag counts to the backlog (lib/issues/tag-backlog.ts). */
  tagged: boolean;
};

/** A row decoded from the statement's `requests` parameter (see storeBatch). */
type InputRow = {
  id: string;
  project_id: string;
  hash: string;
  fallback_hash: string | null;
  previous_hash: string | null;
  title: string;
  level: EventLevel;
  message: string;
  context: unknown;
  ts: Date | null;
  received_at: Date;
  occurred_at: Date;
  key_id: string;
  idem: string | null;
  release: string | null;
  environment: string | null;
  tags: unknown;
  user_info: unknown;
  tag_pairs: unknown;
};

/**
 * One statement for a whole flush, composed of the tables' owners' parts.
 * The order in which it takes row locks is fixed: every idempotency claim
 * first (`valid` reads them through a scalar subquery, which forces them
 * before any event is looked at), then new releases in (project, version)
 * order (`keyed` reads their numbers the same way), then issues in
 * (project, key) order, then the counts of issues it already holds.
 */
export const buildIngestStatement = () =>
  sqlBuilder
    // Compact input: per request its project, key, claim and arrival once,
    // then its events as arrays; titles once per key. jsonb, not json: a json
    // value is text that every ->> parses again. The titles are cast in a
    // subquery: once per statement, where a generic plan would cast per row.
    .with(
      "input",
      () => sql<InputRow>`(
        SELECT (ev->>0)::uuid AS id, r->>'p' AS project_id, ev->>1 AS hash, ev->>8 AS fallback_hash,
               ((SELECT ${placeholder("titles")}::jsonb) ->> (ev->>1)) AS title,
               (ev->>2)::event_level AS level, ev->>3 AS message,
               CASE WHEN jsonb_typeof(ev->4) = 'object' THEN ev->4 END AS context,
               (ev->>5)::timestamptz AS ts, coalesce(ev->>7, r->>'r')::timestamptz AS received_at,
               coalesce(ev->>6, ev->>7, r->>'r')::timestamptz AS occurred_at,
               r->>'k' AS key_id, r->>'i' AS idem,
               ev->>9 AS release, ev->>10 AS environment,
               CASE WHEN jsonb_typeof(ev->11) = 'object' THEN ev->11 END AS tags,
               CASE WHEN jsonb_typeof(ev->12) = 'object' THEN ev->12 END AS user_info,
               CASE WHEN jsonb_typeof(ev->13) = 'array' THEN ev->13 END AS tag_pairs, ev->>14 AS previous_hash
        FROM jsonb_array_elements(${placeholder("requests")}::jsonb) AS r, jsonb_array_elements(r->'e') AS ev)`,
    )
    .with("active_keys", part(activeKeysCte))
    .with("claim_input", () => claimInputCte())
    .with("claims", part(claimsCte))
    .with("claimed", (qc) => qc.selectFrom("claims").select(sql<string[]>`coalesce(array_agg(claim), '{}')`.as("claims")))
    .with("valid", (qc) =>
      qc
        .selectFrom("input as i")
        // Only what grouping and counting read: the large columns go from `input` to the events table directly.
        .select(["i.id", "i.project_id", "i.hash", "i.fallback_hash", "i.previous_hash", "i.title", "i.level", "i.message", "i.occurred_at", "i.release", "i.tag_pairs"])
        .where(({ eb, refTuple, selectFrom }) => eb(refTuple("i.key_id", "i.project_id"), "in", selectFrom("active_keys").select(["active_keys.id", "active_keys.project_id"]).$asTuple("id", "project_id")))
        .where((eb) =>
          eb.or([
            eb("i.idem", "is", null),
            sql<boolean>`${eb.ref("i.project_id")} || chr(1) || ${eb.ref("i.idem")} = ANY((${eb.selectFrom("claimed").select("claimed.claims")})::text[])`,
          ]),
        ),
    )
    .with("releases_seen", part(releasesSeenCte))
    .with("releases_new", part(newReleasesCte))
    .with("release_seqs", part(releaseSeqsCte))
    .with("stack_keys", part(stackKeysCte))
    .with("keyed", (qc) =>
      qc.selectFrom("valid as v").selectAll("v").select((eb) => [
        sql<string>`coalesce((${eb.selectFrom("stack_keys").select("stack_keys.keys")}) ->> (${eb.ref("v.project_id")} || chr(1) || ${eb.ref("v.hash")}), ${eb.ref("v.hash")})`.as("group_hash"),
        sql<number | null>`((${eb.selectFrom("release_seqs").select("release_seqs.seqs")}) ->> (${eb.ref("v.project_id")} || chr(1) || ${eb.ref("v.release")}))::int`.as("release_seq"),
      ]),
    )
    .with("grouped", part(groupedCte))
    .with("issues_up", part(issueUpsertCte))
    .with("issue_ids", part(issueIdsCte))
    .with("placed", part(placedCte))
    .with("event_issues", part(eventIssuesCte))
    .with("events_in", part(insertEventsCte))
    .with("counts_up", part(countUpsertCte("issue_counts")))
    .with("hours_up", part(countUpsertCte("issue_hours")))
    .with("days_up", part(countUpsertCte("issue_days")))
    .with("tag_rows", part(tagRowsCte))
    .with("tag_backlog_in", part(tagBacklogCte))
    .with("alerts_queued", part(queueIssueAlertsCte))
    .with("activities_logged", part(ingestActivityCte))
    .with("spike_projects", part(spikeProjectsCte))
    .selectNoFrom(() => [
      sql<number>`(SELECT count(*)::int FROM events_in)`.as("stored"),
      sql<number>`(SELECT count(*)::int FROM counts_up) + (SELECT count(*)::int FROM hours_up) + (SELECT count(*)::int FROM days_up)
        + (SELECT count(*)::int FROM activities_logged)`.as("counters"),
      sql<boolean>`EXISTS (SELECT FROM tag_backlog_in)`.as("tagged"),
      sql<string[]>`(SELECT coalesce(json_agg(DISTINCT key_id), '[]') FROM input
        WHERE (key_id, project_id) NOT IN (SELECT id, project_id FROM active_keys))`.as("refused_keys"),
      sql<{ projectId: string; key: string }[]>`(SELECT coalesce(json_agg(json_build_object('projectId', project_id, 'key', idem)), '[]')
        FROM (SELECT DISTINCT project_id, idem FROM input WHERE idem IS NOT NULL) r
        WHERE project_id || chr(1) || idem <> ALL((SELECT claims FROM claimed)::text[]))`.as("unclaimed"),
      sql<IssueTransition[]>`(SELECT coalesce(json_agg(json_build_object('issueId', id, 'projectId', project_id, 'level', level,
        'kind', CASE WHEN created THEN 'new_issue' ELSE 'regression' END)), '[]')
        FROM issues_up WHERE created OR regressed)`.as("transitions"),
      sql<string[]>`(SELECT coalesce(json_agg(DISTINCT project_id), '[]') FROM alerts_queued)`.as("alert_projects"),
      sql<string[]>`(SELECT coalesce(json_agg(project_id), '[]') FROM spike_projects)`.as("spike_projects"),
    ]);

const runStatement = statementOnce(buildIngestStatement);

/** Stores a flush's requests in one statement; what became of each is in the result. */
export async function storeBatch(batch: WriteRequest[]): Promise<StatementResult> {
  // Arrays rather than objects, shared values once: JSON.stringify time,
  // bytes on the wire and PostgreSQL's parsing all scale with the text.
  const requests: unknown[] = [];
  const titles: Record<string, string> = {};
  const claims: unknown[] = [];
  for (const request of batch) {
    const first = request.rows[0]!;
    const receivedAt = first.receivedAt.getTime();
    requests.push({
      p: first.projectId,
      k: first.keyId,
      i: request.idempotency?.key ?? null,
      r: first.receivedAt.toISOString(),
      e: request.rows.map((row) => encodeRow(row, receivedAt, titles)),
    });
    if (request.idempotency) {
      claims.push({ project_id: first.projectId, key: request.idempotency.key, response: request.idempotency.response, key_id: first.keyId });
    }
  }
  const [row] = await runStatement({ requests: JSON.stringify(requests), claims: JSON.stringify(claims), titles: JSON.stringify(titles) });
  return {
    stored: row!.stored,
    refusedKeys: new Set(row!.refused_keys),
    unclaimed: new Set(row!.unclaimed.map((u) => claimKey(u.projectId, u.key))),
    replays: await firstAnswers(row!.unclaimed),
    transitions: row!.transitions,
    alertProjects: new Set(row!.alert_projects),
    spikeProjects: new Set(row!.spike_projects),
    tagged: row!.tagged,
  };
}

/**
 * One event as the statement's input array: id, key, level, message,
 * context, client timestamp; then, only when needed, its own occurredAt and
 * receivedAt (when they differ from the request's arrival: seeding stores
 * events of many arrival times at once) and the fields most native events
 * lack (version 1 grouping key, release, environment, tags, user, tag
 * pairs, then the key before source lines counted).
 */
function encodeRow(row: NewEvent, requestReceivedAt: number, titles: Record<string, string>): unknown[] {
  titles[row.issueHash] = row.issueTitle;
  const received = row.receivedAt.getTime() === requestReceivedAt ? null : row.receivedAt.toISOString();
  const occurred = row.occurredAt.getTime() === row.receivedAt.getTime() ? null : row.occurredAt.toISOString();
  const event: unknown[] = [row.id, row.issueHash, row.level, row.message, row.context, row.timestamp?.toISOString() ?? null];
  const extra =
    row.fallbackHash !== null || row.previousHash !== null || row.release !== null || row.environment !== null || row.tags !== null || row.user !== null || row.tagPairs !== null;
  if (occurred || received || extra) event.push(occurred, received);
  if (extra) event.push(row.fallbackHash, row.release, row.environment, row.tags, row.user, row.tagPairs);
  if (row.previousHash !== null) event.push(row.previousHash);
  return event;
}
