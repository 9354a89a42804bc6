import { settings } from "@/lib/config/settings";
import { dbPool } from "@/lib/db/client";
import { queryPrepared } from "@/lib/db/prepared";
import { isDatabaseUnavailable, isForeignKeyViolation, isRetryableConflict } from "@/lib/db/errors";
import type { EventLevel, ValidEvent } from "@/lib/events/schema";
import { errors } from "@/lib/http/errors";
import { forgetApiKey } from "@/lib/keys/service";
import { alertsAfterIngest, type AlertsQueued } from "@/lib/alerts/background";
import { logger } from "@/lib/log";

/** An accepted event about to be stored, with what the statement needs besides it. */
export type NewEvent = ValidEvent & {
  id: string;
  receivedAt: Date;
  occurredAt: Date;
  /** The API key that sent it: checked again by the statement, not stored. */
  keyId: string;
  /** Grouping: hex SHA-256 of the issue's key, and its title (the template). */
  issueHash: string;
  issueTitle: string;
};

/** An issue the statement created, or reopened (a resolved issue that got a new event). */
export type IssueTransition = { issueId: string; projectId: string; level: EventLevel; kind: "new_issue" | "regression" };

/** One request's share of a flush: its rows, and the idempotency claim that guards them. */
export type WriteRequest = {
  rows: NewEvent[];
  /** Scoped key (per project and endpoint) and the answer to keep for retries. */
  idempotency?: { key: string; response: object };
};

export type WriteOutcome = { replayed: false } | { replayed: true; response: object };

type Settled = { outcome: WriteOutcome; alerts?: AlertsQueued };
type Pending = WriteRequest & { resolve: (settled: Settled) => void; reject: (error: unknown) => void };

// Rows per statement: large enough to amortise a round trip and a commit,
// small enough that one statement's JSON stays a few MiB.
const MAX_ROWS_PER_FLUSH = 2_000;
// Queued rows that start a statement beside one in flight.
const PARALLEL_FLUSH_ROWS = MAX_ROWS_PER_FLUSH / 4;
// A statement in flight this long starts another beside it for the requests
// waiting: a flush of single events takes a few milliseconds.
const STALLED_STATEMENT_MS = 50;
// No request arrived for this long while some wait behind a statement in
// flight: the process has nothing else to do, so they start their own.
const QUIET_ARRIVALS_MS = 2;
// A flush that lost a deadlock or serialization race is tried again, whole.
const MAX_CONFLICT_RETRIES = 3;

const transitionListeners = new Set<(transitions: IssueTransition[]) => void>();

/** Called after each commit that created or reopened issues (alert rules listen). */
export function onIssueTransitions(listener: (transitions: IssueTransition[]) => void): () => void {
  transitionListeners.add(listener);
  return () => transitionListeners.delete(listener);
}

/** What the writer knows when it decides whether to start a statement. */
export type WriterState = {
  /** Requests waiting, and their rows. */
  queued: number;
  queuedRows: number;
  /** Statements in flight, and how many may be (INGEST_MAX_CONCURRENT_WRITES). */
  inFlight: number;
  maxInFlight: number;
  /** Milliseconds since the newest statement in flight started. */
  newestStatementMs: number;
  /** Milliseconds since the last request joined the queue. */
  sinceLastArrivalMs: number;
};

/**
 * One statement at a time, each taking every request that arrived while the
 * previous one committed: statements side by side each pay their own round
 * trip, plan and commit for fewer rows (at 16 connections, four at a time
 * reached 75-79% of the no-database route, one at a time 79-88%: npm run
 * bench:ingest). Another starts alongside, up to the limit, when
 * - the backlog would fill much of a statement (large batches);
 * - the newest statement in flight has run STALLED_STATEMENT_MS (a row lock,
 *   a checkpoint's disk): one slow statement must not hold up the rest;
 * - no request has arrived for QUIET_ARRIVALS_MS: the process would sit idle
 *   until the statement in flight ends, with requests it could be storing.
 *   When the database answers slower than usual (a busy host), every
 *   connection's request ended up waiting on one statement. Two servers
 *   on one database, loaded in turn for 6 rounds of 8 s at 16 connections:
 *   76% of the no-database route without this rule, 82% with it.
 */
export function mayStartStatement(s: WriterState): boolean {
  if (s.queued === 0 || s.inFlight >= s.maxInFlight) return false;
  return s.inFlight === 0 || s.queuedRows >= PARALLEL_FLUSH_ROWS || s.newestStatementMs >= STALLED_STATEMENT_MS || s.sinceLastArrivalMs >= QUIET_ARRIVALS_MS;
}

/**
 * Requests waiting behind statements in flight: in how many milliseconds
 * time alone could let the next one start (null: only a statement ending can).
 */
export function msUntilStatementMayStart(s: WriterState): number | null {
  if (s.queued === 0 || s.inFlight === 0 || s.inFlight >= s.maxInFlight) return null;
  return Math.max(1, Math.min(STALLED_STATEMENT_MS - s.newestStatementMs, QUIET_ARRIVALS_MS - s.sinceLastArrivalMs));
}

/**
 * Group commit: concurrent requests share one statement (one round trip, one
 * commit) that stores their events, upserts their issues and per-minute
 * counts, and claims their idempotency keys. A request's promise settles only
 * after that statement has committed, so the caller acknowledges nothing that
 * is not durable. Requests are never split across statements, so each stays
 * all-or-nothing.
 */
class EventWriter {
  private queue: Pending[] = [];
  private queuedRows = 0;
  private scheduled = false;
  /** When the last request joined the queue: performance.now(). */
  private lastArrival = 0;
  /** When each statement in flight (by its requests) started: performance.now(). */
  private inFlightSince = new Map<Pending[], number>();
  /** Idempotency claims that statements in flight hold: a retry of one waits for it to end. */
  private inFlightClaims = new Set<string>();
  private stallTimer: NodeJS.Timeout | null = null;

  write(request: WriteRequest): Promise<WriteOutcome> {
    const committed = new Promise<Settled>((resolve, reject) => {
      // Not `{ ...request, resolve, reject }`: a V8 slow path (lib/events/ingest.ts toRows).
      this.queue.push({ rows: request.rows, idempotency: request.idempotency, resolve, reject });
      this.queuedRows += request.rows.length;
      this.lastArrival = performance.now();
      this.schedule();
    });
    // Chained here, so it runs in the caller's own async context: alert
    // delivery is scheduled with Next's after() of this request.
    return committed.then(({ outcome, alerts }) => {
      if (alerts) alertsAfterIngest(alerts);
      return outcome;
    });
  }

  private state(): WriterState {
    let newest = -Infinity;
    for (const since of this.inFlightSince.values()) newest = Math.max(newest, since);
    const now = performance.now();
    return {
      queued: this.queue.length,
      queuedRows: this.queuedRows,
      inFlight: this.inFlightSince.size,
      maxInFlight: settings().ingest.maxConcurrentWrites,
      newestStatementMs: now - newest,
      sinceLastArrivalMs: now - this.lastArrival,
    };
  }

  private mayStartFlush(): boolean {
    return mayStartStatement(this.state());
  }

  private schedule(): void {
    if (this.scheduled) return;
    if (!this.mayStartFlush()) {
      this.watchForStall();
      return;
    }
    this.scheduled = true;
    // Let the requests that arrive in this turn of the event loop join.
    setImmediate(() => {
      this.scheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    while (this.mayStartFlush()) {
      const batch = this.takeBatch();
      // Every request waiting retries a claim a statement in flight holds:
      // they go when it ends (its completion schedules again).
      if (batch.length === 0) return;
      this.start(batch);
    }
    this.watchForStall();
  }

  private start(batch: Pending[]): void {
    const claims = batch.flatMap((p) => (p.idempotency ? [claimKey(p.rows[0]!.projectId, p.idempotency.key)] : []));
    this.inFlightSince.set(batch, performance.now());
    for (const claim of claims) this.inFlightClaims.add(claim);
    void this.commit(batch).finally(() => {
      this.inFlightSince.delete(batch);
      for (const claim of claims) this.inFlightClaims.delete(claim);
      this.schedule();
    });
  }

  /** Requests wait behind statements in flight: look again when time alone could let them start. */
  private watchForStall(): void {
    if (this.stallTimer) return;
    const wait = msUntilStatementMayStart(this.state());
    // null: the next statement to end schedules again.
    if (wait === null) return;
    this.stallTimer = setTimeout(() => {
      this.stallTimer = null;
      this.schedule();
    }, wait);
    this.stallTimer.unref();
  }

  /**
   * The next requests, in arrival order, up to MAX_ROWS_PER_FLUSH rows. Two
   * requests with the same idempotency key never share a statement, nor run
   * side by side: the second waits for the first to end, then replays its
   * answer (or, if it failed, is stored itself).
   */
  private takeBatch(): Pending[] {
    const batch: Pending[] = [];
    const claims = new Set<string>();
    let rows = 0;
    const rest: Pending[] = [];
    let full = false;
    for (const p of this.queue) {
      full ||= batch.length > 0 && rows + p.rows.length > MAX_ROWS_PER_FLUSH;
      const claim = p.idempotency ? claimKey(p.rows[0]!.projectId, p.idempotency.key) : null;
      if (full || (claim && (claims.has(claim) || this.inFlightClaims.has(claim)))) {
        rest.push(p);
        continue;
      }
      if (claim) claims.add(claim);
      rows += p.rows.length;
      batch.push(p);
    }
    this.queue = rest;
    this.queuedRows -= rows;
    return batch;
  }

  private async commit(batch: Pending[]): Promise<void> {
    let result: FlushResult;
    try {
      result = await storeWithRetries(batch);
    } catch (error) {
      if (batch.length === 1 || isDatabaseUnavailable(error)) {
        for (const p of batch) p.reject(keyGoneOr(error));
        return;
      }
      // One request's rows failed the statement (e.g. its project was deleted
      // in the same instant): each half again, and so on, so the others land
      // in a few statements rather than one each.
      const middle = batch.length >> 1;
      await Promise.all([this.commit(batch.slice(0, middle)), this.commit(batch.slice(middle))]);
      return;
    }
    settle(batch, result);
  }
}

async function storeWithRetries(batch: WriteRequest[]): Promise<FlushResult> {
  for (let attempt = 0; ; attempt++) {
    try {
      return await storeBatch(batch);
    } catch (error) {
      if (attempt >= MAX_CONFLICT_RETRIES || !isRetryableConflict(error)) throw error;
    }
  }
}

function settle(batch: Pending[], result: FlushResult): void {
  for (const p of batch) {
    const { keyId, projectId } = p.rows[0]!;
    if (result.refusedKeys.has(keyId)) {
      forgetApiKey(keyId);
      p.reject(errors.invalidApiKey());
    } else if (p.idempotency && result.unclaimed.has(claimKey(projectId, p.idempotency.key))) {
      const first = result.replays.get(claimKey(projectId, p.idempotency.key));
      // No first answer to give: that claim vanished meanwhile. Nothing was stored; a retry settles it.
      if (first) p.resolve({ outcome: { replayed: true, response: first } });
      else p.reject(errors.serviceUnavailable("Another request with this Idempotency-Key was being stored at the same time; nothing was stored. Retry.", 1));
    } else {
      const queued = result.alertProjects.has(projectId);
      const spikes = result.spikeProjects.has(projectId);
      p.resolve({ outcome: { replayed: false }, alerts: queued || spikes ? { projectId, queued, spikes } : undefined });
    }
  }
  if (result.transitions.length > 0) {
    for (const listener of transitionListeners) {
      try {
        listener(result.transitions);
      } catch (error) {
        // The events are stored and answered; a listener's fault is only logged.
        logger.error("issue transition listener failed", { error: String(error) });
      }
    }
  }
}

/** The project vanished between the key check and the insert: the key is gone too. */
function keyGoneOr(error: unknown): unknown {
  return isForeignKeyViolation(error) ? errors.invalidApiKey() : error;
}

const claimKey = (projectId: string, key: string) => `${projectId}\u0000${key}`;

type FlushResult = {
  stored: number;
  refusedKeys: Set<string>;
  /** Idempotency keys another request had claimed: these requests stored nothing. */
  unclaimed: Set<string>;
  replays: Map<string, object>;
  transitions: IssueTransition[];
  /** Projects this statement queued notifications for; projects with spike rules it stored events of. */
  alertProjects: Set<string>;
  spikeProjects: Set<string>;
};

// Statement parts shared with the backfill of events stored before issues
// (tools/db/backfill-issues.ts). `$source` rows carry project_id, hash,
// title, level, message, occurred_at, id.

/**
 * Issues upserted from the rows of CTE `source`, in (project, hash) order so
 * that concurrent statements lock issue rows in the same order and never
 * deadlock. A resolved issue that gets an event reopens (a regression);
 * `reopened_txid` lets RETURNING tell this statement's regressions apart.
 */
export function issueUpsertSql(source: string): string {
  return `
  grouped AS (
    SELECT project_id, hash, min(level) AS level,
           (array_agg(title ORDER BY occurred_at DESC, id DESC))[1] AS title,
           (array_agg(message ORDER BY occurred_at DESC, id DESC))[1] AS sample,
           min(occurred_at) AS first_seen, max(occurred_at) AS last_seen, count(*) AS n
    FROM ${source} GROUP BY project_id, hash
  ),
  issues_up AS (
    INSERT INTO issues AS i (project_id, fingerprint_hash, level, title, sample_message, first_seen, last_seen, count)
    SELECT project_id, hash, level, title, sample, first_seen, last_seen, n FROM grouped ORDER BY project_id, hash
    ON CONFLICT (project_id, fingerprint_hash) DO UPDATE SET
      count = i.count + EXCLUDED.count,
      level = LEAST(i.level, EXCLUDED.level),
      first_seen = LEAST(i.first_seen, EXCLUDED.first_seen),
      last_seen = GREATEST(i.last_seen, EXCLUDED.last_seen),
      sample_message = CASE WHEN EXCLUDED.last_seen >= i.last_seen THEN EXCLUDED.sample_message ELSE i.sample_message END,
      status = CASE WHEN i.status = 'resolved' THEN 'open'::issue_status ELSE i.status END,
      status_changed_at = CASE WHEN i.status = 'resolved' THEN now() ELSE i.status_changed_at END,
      regressed_at = CASE WHEN i.status = 'resolved' THEN EXCLUDED.first_seen ELSE i.regressed_at END,
      reopened_txid = CASE WHEN i.status = 'resolved' THEN txid_current() ELSE i.reopened_txid END
    RETURNING i.id, i.project_id, i.fingerprint_hash, i.level, (i.xmax = 0) AS created,
              (i.reopened_txid IS NOT DISTINCT FROM txid_current()) AS regressed
  )`;
}

/**
 * The upserted issues' ids by (project, hash), as one jsonb object read once
 * per row. A join of the rows with issues_up would do the same, but the
 * planner cannot know how many rows a JSON parameter holds and picks a
 * nested loop: 5,000 events x 800 issues took 800 ms where this takes 2.
 */
export function issueIdMapSql(): string {
  return `
  issue_ids AS (SELECT jsonb_object_agg(project_id || chr(1) || fingerprint_hash, id) AS ids FROM issues_up)`;
}

/**
 * Per-minute, per-hour and per-day counts added from the rows of CTE `source`
 * (issue_id, level, project_id, occurred_at). Only the holder of an issue's
 * row lock writes its counts, so these upserts never wait on each other.
 */
export function countUpsertSql(source: string): string {
  return COUNT_TABLES.map(
    ({ cte, table, bucket, width }) => `
  ${cte} AS (
    INSERT INTO ${table} AS t (issue_id, ${bucket}, level, project_id, count)
    SELECT issue_id, date_bin('${width}', occurred_at, TIMESTAMPTZ 'epoch'), level, project_id, count(*)::int
    FROM ${source} GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3
    ON CONFLICT (issue_id, ${bucket}, level) DO UPDATE SET count = t.count + EXCLUDED.count
    RETURNING 1
  )`,
  ).join(",");
}

const COUNT_TABLES = [
  { cte: "counts_up", table: "issue_counts", bucket: "minute", width: "1 minute" },
  { cte: "hours_up", table: "issue_hours", bucket: "hour", width: "1 hour" },
  { cte: "days_up", table: "issue_days", bucket: "day", width: "1 day" },
] as const;

/**
 * One statement for a whole flush. The order in which it takes row locks is
 * fixed: every idempotency claim first (the scalar subquery forces them
 * before any event is looked at), then issues in (project, hash) order, then
 * the counts of issues it already holds. Keys are checked again inside it, so
 * a key rotated (or a project deleted) by another instance stops working at
 * once, whatever this process's key cache says.
 */
const STORE_SQL = `
WITH input AS (
  -- Compact input (see storeBatch): per request its project, key, claim and
  -- arrival time once, then its events as arrays; titles once per issue.
  -- jsonb, not json: a json value is text that every ->> parses again, so
  -- reading a request's fields once per event made a statement's cost grow
  -- with the square of its events (5,000 in one request: minutes).
  SELECT (ev->>0)::uuid AS id, r->>'p' AS project_id, ev->>1 AS hash, ($3::jsonb ->> (ev->>1)) AS title,
         (ev->>2)::event_level AS level, ev->>3 AS message,
         CASE WHEN jsonb_typeof(ev->4) = 'object' THEN ev->4 END AS context,
         (ev->>5)::timestamptz AS ts, coalesce(ev->>7, r->>'r')::timestamptz AS received_at,
         coalesce(ev->>6, ev->>7, r->>'r')::timestamptz AS occurred_at,
         r->>'k' AS key_id, r->>'i' AS idem
  FROM jsonb_array_elements($1::jsonb) AS r, jsonb_array_elements(r->'e') AS ev
),
active_keys AS (
  SELECT k.id, k.project_id FROM api_keys k
  WHERE k.id IN (SELECT DISTINCT key_id FROM input) AND k.revoked_at IS NULL
),
claims AS (
  INSERT INTO idempotency_keys AS ik (project_id, key, response, created_at)
  SELECT c.project_id, c.key, c.response, now()
  FROM json_to_recordset($2::json) AS c(project_id text, key text, response jsonb, key_id text)
  WHERE (c.key_id, c.project_id) IN (SELECT id, project_id FROM active_keys)
  ORDER BY c.project_id, c.key
  ON CONFLICT (project_id, key) DO UPDATE SET response = EXCLUDED.response, created_at = EXCLUDED.created_at
    WHERE ik.created_at < now() - interval '24 hours'
  RETURNING ik.project_id || chr(1) || ik.key AS claim
),
claimed AS (SELECT coalesce(array_agg(claim), '{}') AS claims FROM claims),
valid AS (
  SELECT i.* FROM input i
  WHERE (i.key_id, i.project_id) IN (SELECT id, project_id FROM active_keys)
    AND (i.idem IS NULL OR i.project_id || chr(1) || i.idem = ANY((SELECT claims FROM claimed)::text[]))
),${issueUpsertSql("valid")},
${issueIdMapSql()},
events_in AS (
  INSERT INTO events (id, project_id, issue_id, level, message, context, "timestamp", received_at, occurred_at)
  SELECT v.id, v.project_id, ((SELECT ids FROM issue_ids) ->> (v.project_id || chr(1) || v.hash))::uuid,
         v.level, v.message, v.context, v.ts, v.received_at, v.occurred_at
  FROM valid v
  RETURNING issue_id, project_id, level, occurred_at
),${countUpsertSql("events_in")},
-- Alert rules' notifications about the issues this statement created or
-- reopened, in the same transaction as the events (the outbox); a project
-- without rules costs one index probe per new or reopened issue.
alerts_queued AS (
  INSERT INTO alert_deliveries (project_id, rule_id, kind, issue_id)
  SELECT u.project_id, r.id, r."trigger"::text::alert_delivery_kind, u.id
  FROM issues_up u
  JOIN alert_rules r ON r.project_id = u.project_id
   AND r."trigger" = (CASE WHEN u.created THEN 'new_issue' ELSE 'regression' END)::alert_trigger
   AND u.level <= r.min_level
  WHERE u.created OR u.regressed
  RETURNING project_id
)
SELECT
  (SELECT count(*)::int FROM events_in) AS stored,
  (SELECT count(*)::int FROM counts_up) + (SELECT count(*)::int FROM hours_up) + (SELECT count(*)::int FROM days_up) AS counters,
  (SELECT coalesce(json_agg(DISTINCT key_id), '[]') FROM input
     WHERE (key_id, project_id) NOT IN (SELECT id, project_id FROM active_keys)) AS refused_keys,
  (SELECT coalesce(json_agg(json_build_object('projectId', project_id, 'key', idem)), '[]')
     FROM (SELECT DISTINCT project_id, idem FROM input WHERE idem IS NOT NULL) r
     WHERE project_id || chr(1) || idem <> ALL((SELECT claims FROM claimed)::text[])) AS unclaimed,
  (SELECT coalesce(json_agg(json_build_object('issueId', id, 'projectId', project_id, 'level', level,
     'kind', CASE WHEN created THEN 'new_issue' ELSE 'regression' END)), '[]')
     FROM issues_up WHERE created OR regressed) AS transitions,
  (SELECT coalesce(json_agg(DISTINCT project_id), '[]') FROM alerts_queued) AS alert_projects,
  (SELECT coalesce(json_agg(DISTINCT project_id), '[]') FROM alert_rules
     WHERE "trigger" = 'spike' AND project_id IN (SELECT project_id FROM issues_up)) AS spike_projects`;

type StoreRow = {
  stored: number;
  refused_keys: string[];
  unclaimed: { projectId: string; key: string }[];
  transitions: IssueTransition[];
  alert_projects: string[];
  spike_projects: string[];
};

async function storeBatch(batch: WriteRequest[]): Promise<FlushResult> {
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
      // Each event: id, hash, level, message, context, client timestamp, and
      // only when they differ from the request's arrival: its own occurredAt
      // and receivedAt (seeding stores events of many arrival times at once).
      e: request.rows.map((row) => {
        titles[row.issueHash] = row.issueTitle;
        const received = row.receivedAt.getTime() === receivedAt ? null : row.receivedAt.toISOString();
        const occurred = row.occurredAt.getTime() === row.receivedAt.getTime() ? null : row.occurredAt.toISOString();
        const event: unknown[] = [row.id, row.issueHash, row.level, row.message, row.context, row.timestamp?.toISOString() ?? null];
        if (occurred || received) event.push(occurred, received);
        return event;
      }),
    });
    if (request.idempotency) {
      claims.push({ project_id: first.projectId, key: request.idempotency.key, response: request.idempotency.response, key_id: first.keyId });
    }
  }
  const { rows: result } = await queryPrepared<StoreRow>(STORE_SQL, [JSON.stringify(requests), JSON.stringify(claims), JSON.stringify(titles)]);
  const row = result[0]!;
  return {
    stored: row.stored,
    refusedKeys: new Set(row.refused_keys),
    unclaimed: new Set(row.unclaimed.map((u) => claimKey(u.projectId, u.key))),
    replays: await firstAnswers(row.unclaimed),
    transitions: row.transitions,
    alertProjects: new Set(row.alert_projects),
    spikeProjects: new Set(row.spike_projects),
  };
}

/**
 * The answers kept for idempotency keys another request claimed first. Read
 * by a statement of its own: the claim that won may have committed after the
 * flush's statement took its snapshot (its insert waited for that commit).
 */
async function firstAnswers(keys: { projectId: string; key: string }[]): Promise<Map<string, object>> {
  if (keys.length === 0) return new Map();
  const { rows } = await dbPool().query<{ project_id: string; key: string; response: object }>(
    `SELECT k.project_id, k.key, k.response FROM idempotency_keys k
     JOIN json_to_recordset($1::json) AS r("projectId" text, key text) ON k.project_id = r."projectId" AND k.key = r.key`,
    [JSON.stringify(keys)],
  );
  return new Map(rows.map((r) => [claimKey(r.project_id, r.key), r.response]));
}

/**
 * Stores rows at once in one statement, without the group-commit queue: for
 * seeding (tests, benchmarks) and tools. Ingestion goes through eventWriter().
 */
export async function storeEventsNow(rows: NewEvent[]): Promise<{ stored: number; transitions: IssueTransition[] }> {
  if (rows.length === 0) return { stored: 0, transitions: [] };
  const result = await storeBatch([{ rows }]);
  return { stored: result.stored, transitions: result.transitions };
}

const globalForWriter = globalThis as unknown as { __telltaleEventWriter?: EventWriter };

export function eventWriter(): EventWriter {
  globalForWriter.__telltaleEventWriter ??= new EventWriter();
  return globalForWriter.__telltaleEventWriter;
}
