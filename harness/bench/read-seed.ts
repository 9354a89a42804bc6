/**
 * The database of `npm run bench:read`: ~BENCH_EVENTS events (default 10
 * million) over 30 days in 20 projects, generated inside PostgreSQL
 * (INSERT ... SELECT generate_series), with the issues, per-minute and
 * per-hour counts the ingest statement (lib/events/store.ts) would have
 * written for them.
 *
 * The shape, seeded so that every build is the same:
 * - project sizes Zipf-like (s = 0.8): the largest holds ~14% of the events;
 * - 150-400 issues per project, volumes Zipf (s = 1.1) by rank; the top three
 *   are info noise, the rest drawn from the benchmark workload's ~1,000
 *   templates (errors, warnings, info);
 * - lifecycles: steady since some day; stopped days ago (open, resolved or
 *   ignored); first seen in the last 24 hours; first seen in the last hour
 *   (two error incidents per project); bursts of a few hours (some in the
 *   last day); regressions (resolved two weeks ago, back in the last day);
 * - a day-night cycle on every rate;
 * - events stored in time order (as they arrive), ids UUIDv7 like the
 *   server's, 70% with a client timestamp, errors with a stack in context;
 * - each with a release (a new one every two days, a tenth of the events on
 *   the one before), an environment (production 80%, staging, development),
 *   a user (of 50,000, the first ones busier) and five tags (region,
 *   service, http.method, customer_tier, server), counted by hour and day
 *   in issue_tag_hours / issue_tag_days with the ingest statement's bound
 *   (100 values per issue, key and bucket, the rest under "").
 *
 * Fast path: the events table's indexes and foreign-key triggers are off
 * while it fills and rebuilt after (CREATE INDEX sorts once instead of
 * 10 million scattered inserts); each day is one statement that appends its
 * events in time order and adds the GROUP BY of what it appended to the
 * minute and hour counts (days are whole hours, so no minute or hour spans
 * two days).
 * Issue totals, first and last seen, the latest message and the regression
 * time are then read back from the rollups and the events, so they agree
 * with them exactly. Then VACUUM (ANALYZE), as autovacuum would do.
 */
import pg from "pg";
import { progress } from "@/harness/bench/harness";
import { seededRandom } from "@/harness/bench/random";
import { templates, type Template } from "@/harness/bench/workload";

export const READ_PROJECTS = 20;
export const READ_DAYS = 30;
export const READ_USER_EMAIL = "reader@bench.example";
/** Kept in the database: the time the data ends at (the benchmark's "now"). */
export const META_TABLE = "bench_read_meta";

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

type Kind = "steady" | "stopped" | "new_day" | "new_hour" | "burst" | "regressed";
type Status = "open" | "resolved" | "ignored";

type PlannedIssue = {
  id: string;
  projectId: string;
  level: Template["level"];
  pattern: string;
  title: string;
  hash: string;
  kind: Kind;
  status: Status;
  /** regressed: events from here on are the regression. */
  resumeAt: number | null;
};

type Segment = { issueId: string; from: number; to: number; perHour: number };

function zipfShares(n: number, s: number): number[] {
  const w = Array.from({ length: n }, (_, i) => 1 / Math.pow(i + 1, s));
  const total = w.reduce((a, b) => a + b, 0);
  return w.map((x) => x / total);
}

function uuidFrom(random: () => number): string {
  const hex = Array.from({ length: 32 }, () => Math.floor(random() * 16).toString(16)).join("");
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-4${hex.slice(13, 16)}-a${hex.slice(17, 20)}-${hex.slice(20, 32)}`;
}

/** The issues and their activity (segments with an hourly rate), for `total` events ending at `now`. */
export async function plan(total: number, now: number, random: () => number) {
  const { issueGroupingKey } = await import("@/lib/grouping/key");
  const all = templates();
  const byLevel = (level: Template["level"]) => all.filter((t) => t.level === level);
  const projectShares = zipfShares(READ_PROJECTS, 0.8);
  const projects = projectShares.map((share, i) => ({ id: `cbenchread${String(i).padStart(2, "0")}${uuidFrom(random).slice(0, 8)}`, name: `bench-read-${String(i + 1).padStart(2, "0")}`, share }));
  const issues: PlannedIssue[] = [];
  const segments: Segment[] = [];
  const start = now - READ_DAYS * DAY;
  const uniform = (a: number, b: number) => a + random() * (b - a);
  const shuffle = <T>(items: T[]): T[] => {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(random() * (i + 1));
      [out[i], out[j]] = [out[j]!, out[i]!];
    }
    return out;
  };
  const fill = (pattern: string) =>
    pattern
      .replace(/\{n\}/g, () => String(1 + Math.floor(random() * 99_999)))
      .replace(/\{ms\}/g, () => `${1 + Math.floor(random() * 30_000)}ms`)
      .replace(/\{ip\}/g, () => `10.${Math.floor(random() * 255)}.${Math.floor(random() * 255)}.${Math.floor(random() * 255)}`)
      .replace(/\{id\}/g, () => `ord_${Math.floor(random() * 36 ** 8).toString(36).padStart(8, "0")}`);

  for (const project of projects) {
    const count = 150 + Math.floor(random() * 251);
    const shares = zipfShares(count, 1.1);
    const projectEvents = total * project.share;
    // Two error incidents first seen in the last hour, at mid ranks.
    const newHourRanks = new Set([7, 24].filter((r) => r < count));
    // Distinct issues: two patterns can mask to the same template (one issue).
    const used = new Set<string>();
    const take = (pool: Template[]) => {
      for (const t of shuffle(pool)) {
        const key = issueGroupingKey({ level: t.level, message: fill(t.pattern), fingerprint: null });
        if (!used.has(key.hash)) return used.add(key.hash), { ...t, ...key };
      }
      throw new Error("ran out of templates");
    };
    for (let rank = 0; rank < count; rank++) {
      const template = rank < 3 ? take(byLevel("info")) : newHourRanks.has(rank) ? take(byLevel("error")) : take(all);
      const expected = projectEvents * shares[rank]!;
      const r = random();
      let kind: Kind = rank < 3 ? "steady" : newHourRanks.has(rank) ? "new_hour" : r < 0.62 ? "steady" : r < 0.78 ? "stopped" : r < 0.85 ? "new_day" : r < 0.94 ? "burst" : "regressed";
      if (kind === "new_day" && rank < 15) kind = "steady"; // a top-15 issue appearing today is an incident: new_hour covers those
      const id = uuidFrom(random);
      let status: Status = "open";
      let resumeAt: number | null = null;
      const add = (from: number, to: number, events: number) => {
        if (to > from && events > 0) segments.push({ issueId: id, from, to, perHour: events / ((to - from) / HOUR) });
      };
      const since = random() < 0.6 ? start : uniform(start, now - 2 * DAY);
      switch (kind) {
        case "steady":
          add(since, now, expected);
          if (random() < 0.04) status = "ignored"; // ignored issues keep counting
          break;
        case "stopped": {
          // A tenth stopped in the last day (resolved since); the rest days ago.
          const recent = random() < 0.1;
          const stop = recent ? uniform(now - 20 * HOUR, now - 2 * HOUR) : uniform(start + 5 * DAY, now - 2 * DAY);
          add(Math.min(since, stop - DAY), stop, expected);
          const s = random();
          status = recent || s < 0.5 ? "resolved" : s < 0.7 ? "ignored" : "open";
          break;
        }
        case "new_day":
          add(uniform(now - 23 * HOUR, now - 1.5 * HOUR), now, Math.min(expected, 20_000));
          break;
        case "new_hour":
          add(uniform(now - 55 * 60_000, now - 5 * 60_000), now, Math.min(expected, 3_000));
          break;
        case "burst": {
          const at = random() < 0.4 ? uniform(now - 22 * HOUR, now - 2 * HOUR) : uniform(since, now - 3 * HOUR);
          add(since, now, expected * 0.7);
          add(at, Math.min(now, at + uniform(0.5, 3) * HOUR), expected * 0.3);
          break;
        }
        case "regressed": {
          const stop = uniform(now - 15 * DAY, now - 10 * DAY);
          resumeAt = uniform(now - 23 * HOUR, now - 15 * 60_000);
          add(uniform(start, stop - 5 * DAY), stop, expected * 0.7);
          add(resumeAt, now, expected * 0.3);
          break;
        }
      }
      const { hash, title } = template;
      issues.push({ id, projectId: project.id, level: template.level, pattern: template.pattern, title, hash, kind, status, resumeAt });
    }
  }
  return { projects, issues, segments };
}

/**
 * The INSERT of one day's tag counts per `bucket` from the CTE `pairs`: as
 * the ingest statement bounds them, at most MAX_TAG_VALUES_PER_BUCKET values
 * per issue, key and bucket, the rest counted under "" (here the most
 * frequent are kept; ingest keeps the first to arrive).
 */
function tagBucketInsert(table: string, column: string, width: string, cap: number): string {
  return `INSERT INTO ${table} (issue_id, ${column}, key, value, project_id, count)
          SELECT issue_id, b, key, CASE WHEN rn <= ${cap} THEN value ELSE '' END, project_id, sum(n)::int
          FROM (SELECT *, row_number() OVER (PARTITION BY issue_id, b, key ORDER BY n DESC, value) AS rn
                FROM (SELECT issue_id, project_id, date_bin('${width}', occurred_at, TIMESTAMPTZ 'epoch') AS b, key, value, count(*) AS n
                      FROM pairs GROUP BY 1, 2, 3, 4, 5) g) r
          GROUP BY 1, 2, 3, 4, 5`;
}

/** Fills an empty, migrated database at `url`. `total`: the events wanted (the result is within a few percent). */
export async function seedReadDatabase(url: string, total: number): Promise<void> {
  const random = seededRandom(20_261_122);
  // The data ends now; the benchmark reads "now" back from META_TABLE.
  const now = Date.now();
  const { projects, issues, segments } = await plan(total, now, random);
  const { MAX_TAG_VALUES_PER_BUCKET } = await import("@/lib/issues/ingest-sql");
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  const q = (text: string, values?: unknown[]) => client.query(text, values);
  try {
    await q("SET TimeZone = 'UTC'");
    await q("SET work_mem = '256MB'");
    await q("SET maintenance_work_mem = '1GB'");
    await q("SET temp_buffers = '1GB'");
    await q("SET synchronous_commit = off");
    // The generator's estimates are huge: JIT compiling each day's statement cost more than it saved.
    await q("SET jit = off");
    // No foreign-key triggers while filling (the generator only writes ids it made).
    await q("SET session_replication_role = replica");

    const userId = `cbenchreaduser${uuidFrom(random).slice(0, 8)}`;
    const projectCreated = new Date(now - 60 * DAY);
    await q("INSERT INTO users (id, email, created_at) VALUES ($1, $2, $3)", [userId, READ_USER_EMAIL, projectCreated]);
    for (const [i, p] of projects.entries()) {
      // Memberships in creation order: the summary across projects lists them so.
      const created = new Date(projectCreated.getTime() + i * 60_000);
      await q("INSERT INTO projects (id, name, created_at) VALUES ($1, $2, $3)", [p.id, p.name, created]);
      await q("INSERT INTO memberships (project_id, user_id, role, created_at) VALUES ($1, $2, 'owner', $3)", [p.id, userId, created]);
    }

    // Issues (totals and times filled in from the events at the end), and the generator's plan.
    await q(
      `INSERT INTO issues (id, project_id, fingerprint_hash, level, title, sample_message, first_seen, last_seen, count, status)
       SELECT id, project_id, hash, level::event_level, title, title, $2, $2, 0, status::issue_status
       FROM json_to_recordset($1::json) AS r(id uuid, project_id text, hash text, level text, title text, status text)`,
      [JSON.stringify(issues.map((i) => ({ id: i.id, project_id: i.projectId, hash: i.hash, level: i.level, title: i.title, status: i.status }))), new Date(now)],
    );
    await q(
      `CREATE TEMP TABLE bench_segments AS
       SELECT s.issue_id, i.project_id, i.level, r.pattern, s.seg_from, s.seg_to, s.per_hour
       FROM json_to_recordset($1::json) AS s(issue_id uuid, seg_from timestamptz, seg_to timestamptz, per_hour float8)
       JOIN issues i ON i.id = s.issue_id
       JOIN json_to_recordset($2::json) AS r(id uuid, pattern text) ON r.id = s.issue_id`,
      [
        JSON.stringify(segments.map((s) => ({ issue_id: s.issueId, seg_from: new Date(s.from), seg_to: new Date(s.to), per_hour: s.perHour }))),
        JSON.stringify(issues.map((i) => ({ id: i.id, pattern: i.pattern }))),
      ],
    );

    // Indexes off while filling: remembered here, rebuilt below.
    const tables = ["events", "issue_counts", "issue_hours", "issue_tag_hours", "issue_tag_days"];
    const constraints = (
      await q(
        `SELECT c.conrelid::regclass::text AS tbl, c.conname, pg_get_constraintdef(c.oid) AS def
         FROM pg_constraint c WHERE c.conrelid::regclass::text = ANY($1) AND c.contype IN ('p', 'u')`,
        [tables],
      )
    ).rows as { tbl: string; conname: string; def: string }[];
    const indexes = (
      await q(
        `SELECT i.indexrelid::regclass::text AS name, pg_get_indexdef(i.indexrelid) AS def
         FROM pg_index i WHERE i.indrelid::regclass::text = ANY($1)
           AND NOT EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = i.indexrelid)`,
        [tables],
      )
    ).rows as { name: string; def: string }[];
    for (const c of constraints) await q(`ALTER TABLE "${c.tbl}" DROP CONSTRAINT "${c.conname}"`);
    for (const i of indexes) await q(`DROP INDEX ${i.name}`);

    const firstHour = Math.floor(now / HOUR) * HOUR - READ_DAYS * DAY;
    // Whole UTC days (the first one from firstHour): each statement can then count its own tag days.
    const chunks: [number, number][] = [];
    for (let t = firstHour; t < now; t = Math.floor(t / DAY) * DAY + DAY) chunks.push([t, Math.min(Math.floor(t / DAY) * DAY + DAY, now)]);
    const expected = Math.round(segments.reduce((n, s) => n + s.perHour * ((Math.min(s.to, now) - Math.max(s.from, firstHour)) / HOUR), 0));
    const started = Date.now();
    let done = 0;
    for (const [from, to] of chunks) {
      // Each hour of each segment: n events (its rate x the part of the hour it
      // covers x a day-night cycle, rounded at random), at random whole
      // milliseconds inside that part, sorted by time on narrow rows, then
      // made whole and appended in that order; the same statement adds the
      // day's minute and hour rows, exactly the ingest statement's buckets
      // (countUpsertSql in lib/events/store.ts). OFFSET 0 keeps each event's
      // time a single value.
      const result = await q(
        `WITH ins AS (
           INSERT INTO events (id, project_id, issue_id, level, message, context, "timestamp", received_at, occurred_at, release, environment, tags, user_info)
           SELECT (lpad(to_hex((extract(epoch FROM t) * 1000)::bigint), 12, '0') || '7' || substr(h, 1, 3)
                   || substr('89ab', 1 + (get_byte(decode(substr(h, 4, 2), 'hex'), 0) % 4), 1) || substr(h, 6, 15))::uuid,
                  project_id, issue_id, level,
                  replace(replace(replace(replace(pattern,
                    '{n}', (1 + floor(random() * 99999))::int::text),
                    '{ms}', (1 + floor(random() * 30000))::int::text || 'ms'),
                    '{ip}', '10.' || floor(random() * 255)::int || '.' || floor(random() * 255)::int || '.' || floor(random() * 255)::int),
                    '{id}', 'ord_' || substr(h, 21, 8)),
                  CASE WHEN level = 'error'
                    THEN jsonb_build_object('region', CASE WHEN random() < 0.5 THEN 'eu-west-1' ELSE 'us-east-1' END,
                                            'requestId', substr(h, 1, 16), 'userId', floor(random() * 50000)::int,
                                            'stack', pattern || E'\n    at handle (/app/src/handlers/' || left(issue_id::text, 6) || '.ts:'
                                              || (10 + get_byte(decode(substr(h, 30, 2), 'hex'), 0)) || E':7)\n    at processTicksAndRejections (node:internal/process/task_queues:95:5)\n'
                                              || '    at async Router.dispatch (/app/node_modules/router/lib/route.js:144:13)')
                    ELSE jsonb_build_object('region', CASE WHEN random() < 0.5 THEN 'eu-west-1' ELSE 'us-east-1' END,
                                            'attempt', 1 + floor(random() * 3)::int)
                  END,
                  CASE WHEN with_ts THEN t END,
                  CASE WHEN with_ts THEN t + floor(random() * 1500) * interval '1 millisecond' ELSE t END,
                  t,
                  -- A release every two days (one in ten events still on the one before),
                  -- three environments, a user of 50,000 and five tags of a few values each.
                  'app@1.' || (floor(extract(epoch FROM t) / 172800)::int % 1000 - CASE WHEN r1 < 0.1 THEN 1 ELSE 0 END),
                  CASE WHEN r2 < 0.8 THEN 'production' WHEN r2 < 0.95 THEN 'staging' ELSE 'development' END,
                  jsonb_build_object('region', (ARRAY['eu-west-1', 'us-east-1', 'ap-south-1'])[1 + floor(r3 * 3)::int],
                                     'service', split_part(pattern, ' ', 1),
                                     'http.method', (ARRAY['GET', 'GET', 'GET', 'POST', 'PUT', 'DELETE'])[1 + floor(r4 * 6)::int],
                                     'customer_tier', CASE WHEN r5 < 0.7 THEN 'free' WHEN r5 < 0.95 THEN 'pro' ELSE 'enterprise' END,
                                     'server', 'web-' || (1 + floor(r1 * 12)::int)),
                  jsonb_build_object('id', 'u' || floor(power(r6, 2) * 50000)::int)
           FROM (
             SELECT *, md5(random()::text) AS h, random() < 0.7 AS with_ts,
                    random() AS r1, random() AS r2, random() AS r3, random() AS r4, random() AS r5, random() AS r6
             FROM (
               SELECT s.issue_id, s.project_id, s.level, s.pattern,
                      TIMESTAMPTZ 'epoch' + (hh.lo_ms + floor(random() * (hh.hi_ms - hh.lo_ms))::bigint) * interval '1 millisecond' AS t
               FROM bench_segments s
               CROSS JOIN LATERAL (
                 SELECT h, (extract(epoch FROM greatest(h, s.seg_from)) * 1000)::bigint AS lo_ms,
                           (extract(epoch FROM least(h + interval '1 hour', s.seg_to, $3::timestamptz)) * 1000)::bigint AS hi_ms
                 FROM generate_series(date_trunc('hour', greatest(s.seg_from, $1::timestamptz)), $2::timestamptz - interval '1 millisecond', interval '1 hour') AS h
               ) hh
               CROSS JOIN LATERAL generate_series(1, floor(
                 s.per_hour * (hh.hi_ms - hh.lo_ms) / 3600000.0
                 * (1 + 0.4 * sin(2 * pi() * (extract(hour FROM hh.h) - 9) / 24))
                 + random())::int) AS g(k)
               WHERE s.seg_from < $2::timestamptz AND s.seg_to > $1::timestamptz AND hh.hi_ms > hh.lo_ms AND g.k > 0
               OFFSET 0
             ) timed
             ORDER BY t
           ) e
           RETURNING issue_id, level, project_id, occurred_at, release, environment, tags, user_info
         ),
         -- The tag pairs the ingest statement counts (lib/events/event-tags.ts: the built-in ones and the event's own tags).
         pairs AS (
           SELECT i.issue_id, i.project_id, i.occurred_at, p.key, p.value
           FROM ins i CROSS JOIN LATERAL (
             SELECT 'environment', i.environment UNION ALL SELECT 'release', i.release UNION ALL SELECT 'user', i.user_info ->> 'id'
             UNION ALL SELECT key, value FROM jsonb_each_text(i.tags)
           ) p(key, value)
         ),
         tag_hours AS (${tagBucketInsert("issue_tag_hours", "hour", "1 hour", MAX_TAG_VALUES_PER_BUCKET)}),
         tag_days AS (${tagBucketInsert("issue_tag_days", "day", "1 day", MAX_TAG_VALUES_PER_BUCKET)}),
         minutes AS (
           INSERT INTO issue_counts (issue_id, minute, level, project_id, count)
           SELECT issue_id, date_bin('1 minute', occurred_at, TIMESTAMPTZ 'epoch'), level, project_id, count(*)::int
           FROM ins GROUP BY 1, 2, 3, 4
         ),
         hours AS (
           INSERT INTO issue_hours (issue_id, hour, level, project_id, count)
           SELECT issue_id, date_bin('1 hour', occurred_at, TIMESTAMPTZ 'epoch'), level, project_id, count(*)::int
           FROM ins GROUP BY 1, 2, 3, 4
         )
         SELECT count(*)::int AS n FROM ins`,
        [new Date(from), new Date(to), new Date(now)],
      );
      done += (result.rows[0] as { n: number }).n;
      progress("generating events", Math.min(done, expected), expected, started);
    }
    process.stdout.write("\n");
    console.log(`${done.toLocaleString("en-US")} events in ${((Date.now() - started) / 1000).toFixed(0)} s; rebuilding indexes…`);
    let t0 = Date.now();
    for (const c of constraints) await q(`ALTER TABLE "${c.tbl}" ADD CONSTRAINT "${c.conname}" ${c.def}`);
    for (const i of indexes) await q(i.def);
    console.log(`indexes rebuilt in ${((Date.now() - t0) / 1000).toFixed(0)} s; issue totals…`);

    t0 = Date.now();
    // Per-day counts: the days of the hours (the ingest statement keeps both).
    await q(`INSERT INTO issue_days (issue_id, day, level, project_id, count)
             SELECT issue_id, date_bin('1 day', hour, TIMESTAMPTZ 'epoch'), level, project_id, sum(count)::int FROM issue_hours GROUP BY 1, 2, 3, 4`);
    // Totals, first and last seen, the latest message: as the ingest statement leaves them.
    await q(`UPDATE issues i SET count = a.n FROM (SELECT issue_id, sum(count) AS n FROM issue_hours GROUP BY issue_id) a WHERE a.issue_id = i.id`);
    await q("DELETE FROM issues WHERE count = 0"); // planned, but its rate rounded to no event
    await q(`UPDATE issues i SET first_seen = x.first, last_seen = x.last, sample_message = x.message, created_at = x.first
             FROM (SELECT i2.id, f.occurred_at AS first, l.occurred_at AS last, l.message
                   FROM issues i2
                   CROSS JOIN LATERAL (SELECT occurred_at FROM events WHERE issue_id = i2.id ORDER BY occurred_at ASC, id ASC LIMIT 1) f
                   CROSS JOIN LATERAL (SELECT occurred_at, message FROM events WHERE issue_id = i2.id ORDER BY occurred_at DESC, id DESC LIMIT 1) l) x
             WHERE x.id = i.id`);
    // Regressions: resolved after their first run, reopened by the first event after resumeAt.
    const regressed = issues.filter((i) => i.resumeAt !== null).map((i) => ({ id: i.id, resume_at: new Date(i.resumeAt!) }));
    await q(
      `UPDATE issues i SET regressed_at = f.first, status_changed_at = f.first, reopened_txid = 1
       FROM json_to_recordset($1::json) AS r(id uuid, resume_at timestamptz)
       CROSS JOIN LATERAL (SELECT min(occurred_at) AS first FROM events WHERE issue_id = r.id AND occurred_at >= r.resume_at) f
       WHERE i.id = r.id AND f.first IS NOT NULL`,
      [JSON.stringify(regressed)],
    );
    await q(`UPDATE issues SET status_changed_at = last_seen + interval '1 hour' WHERE status = 'resolved'`);
    await q(`UPDATE issues SET status_changed_at = first_seen + interval '1 day' WHERE status = 'ignored'`);
    await q(`CREATE TABLE ${META_TABLE} (now timestamptz(3) NOT NULL, user_id text NOT NULL, events bigint NOT NULL)`);
    await q(`INSERT INTO ${META_TABLE} VALUES ($1, $2, $3)`, [new Date(now), userId, done]);
    console.log(`issues in ${((Date.now() - t0) / 1000).toFixed(0)} s; VACUUM (ANALYZE)…`);
    t0 = Date.now();
    await q("RESET session_replication_role");
    await q("VACUUM (ANALYZE)");
    console.log(`vacuumed in ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  } finally {
    await client.end().catch(() => {});
  }
}
