/**
 * The tag count backlog (tag_count_backlog): the tag counts ingest
 * statements stored, waiting to be added to issue_tag_hours and
 * issue_tag_days. Each ingest statement appends one row in the same
 * transaction as its events (ingest-sql.ts tagBacklogCte), so a count is
 * never lost nor added twice: a fold deletes the rows it adds, in one
 * statement. Folding many statements' rows at once is what makes it cheap:
 * their values recur, and each distinct one is looked up and upserted once.
 *
 * One fold runs at a time in the whole installation (an advisory lock,
 * taken before the fold's statement so that its snapshot includes the
 * previous fold's counts): which values an hour admits is decided from the
 * counts as they are. Counts stay exact for readers: every read of the tag
 * counts first folds what was committed before it (settleTagCounts). After
 * ingestion, a fold runs in the background (foldTagBacklogSoon); the
 * schedule's `tag-counts` job folds what a stopped process left.
 */
import type pg from "pg";
import { sql } from "kysely";
import { dbPool } from "@/lib/db/client";
import { isPastDeadline, isRetryableConflict } from "@/lib/db/errors";
import { part, placeholder, sqlBuilder, statementOnce } from "@/lib/db/sql";
import { vacuumWhereAutovacuumIsOff } from "@/lib/db/statistics";
import { tagAdmittedCte, tagCountUpsertCte, type TagRow } from "@/lib/issues/ingest-sql";
import { sendInBackground } from "@/lib/jobs/background";

/**
 * Tag rows one fold takes at most, summed over its backlog rows (the first
 * is taken whatever its size): well within a statement's deadline on the
 * hosts measured. A fold that passes the deadline is tried again with half
 * as many, and the process keeps the smaller budget (nextFoldBudget).
 */
export const TAG_ROWS_PER_FOLD = 100_000;

/**
 * Between background folds: lets a busy server's statements gather, so that
 * each fold adds more of them at once (their values recur: a fold of 160
 * statements cost half as much per event as one of 10). Readers do not wait
 * for it: they fold what is left themselves.
 */
const FOLD_DELAY_MS = 2_000;
/** One background run folds for at most this long, then ends (the next ingestion starts another): a serverless host's after() is not held open. */
const BACKGROUND_RUN_MS = 10_000;
export const MAX_FOLD_TRIES = 6;
const FOLD_LOCK = "telltale:tag-count-fold";

export type FoldReport = { statements: number; tagRows: number; busy: boolean };

/**
 * Takes backlog rows in id order up to `budget` tag rows (and, with
 * `up_to`, ids up to it), locks their issues against deletion in id order
 * (a project's deletion locks them in the same order first,
 * lib/issues/project-deletion.ts; the rows of a project deleted meanwhile
 * are dropped here), sums their counts per issue, hour, key and
 * value, and adds them as ingest used to: values admitted while the hour
 * has room, the rest under "".
 */
const runFold = statementOnce(() =>
  sqlBuilder
    .with(
      "picked",
      () => sql<{ id: string }>`(
        SELECT id FROM (
          SELECT id, sum(tag_rows) OVER (ORDER BY id) - tag_rows AS before
          FROM tag_count_backlog
          WHERE ${placeholder("up_to")}::bigint IS NULL OR id <= ${placeholder("up_to")}::bigint) w
        WHERE before < ${placeholder("budget")}::int)`,
    )
    .with("taken", (qc) =>
      qc
        .deleteFrom("tag_count_backlog")
        .where("id", "in", (eb) => eb.selectFrom("picked").select("picked.id"))
        .returning(["issue_ids", "project_ids", "hours", "keys", "tag_values", "counts"]),
    )
    .with("issues_held", () => sql<{ id: string }>`(SELECT i.id FROM issues i WHERE i.id IN (SELECT unnest(t.issue_ids) FROM taken t) ORDER BY i.id FOR KEY SHARE)`)
    .with(
      "tag_rows",
      () => sql<TagRow>`(
        SELECT u.issue_id, u.project_id, u.hour, u.key, u.value, sum(u.n)::int AS n
        FROM taken t, unnest(t.issue_ids, t.project_ids, t.hours, t.keys, t.tag_values, t.counts) AS u(issue_id, project_id, hour, key, value, n)
        WHERE u.issue_id IN (SELECT id FROM issues_held)
        GROUP BY 1, 2, 3, 4, 5)`,
    )
    .with("tag_admitted", part(tagAdmittedCte))
    .with("tag_hours_up", part(tagCountUpsertCte("issue_tag_hours")))
    .with("tag_days_up", part(tagCountUpsertCte("issue_tag_days")))
    .selectNoFrom(() => [
      sql<number>`(SELECT count(*)::int FROM taken)`.as("statements"),
      sql<number>`(SELECT count(*)::int FROM tag_rows)`.as("tag_rows"),
    ]),
);

/** One fold in its own transaction, after the fold lock: waiting for it (`wait`), or none when another fold holds it. */
async function foldOnce(options: { wait: boolean; upTo: string | null; budget: number }): Promise<FoldReport> {
  const client: pg.PoolClient = await dbPool().connect();
  let failed = false;
  try {
    await client.query("BEGIN");
    const lock = options.wait
      ? await client.query<{ held: boolean }>("SELECT true AS held FROM pg_advisory_xact_lock(hashtext($1))", [FOLD_LOCK])
      : await client.query<{ held: boolean }>("SELECT pg_try_advisory_xact_lock(hashtext($1)) AS held", [FOLD_LOCK]);
    if (!lock.rows[0]?.held) {
      await client.query("ROLLBACK");
      return { statements: 0, tagRows: 0, busy: true };
    }
    const [row] = await runFold({ up_to: options.upTo, budget: options.budget }, client);
    await client.query("COMMIT");
    return { statements: row!.statements, tagRows: row!.tag_rows, busy: false };
  } catch (error) {
    failed = true;
    await client.query("ROLLBACK").catch(() => {});
    throw error;
  } finally {
    // A connection whose statement failed is not reused: it may be mid-protocol after a client deadline.
    client.release(failed);
  }
}

const globalForBudget = globalThis as unknown as { __telltaleFoldBudget?: { rows: number } };

/**
 * Folds backlog rows into the tag count tables, at most this process's
 * budget of tag rows (`budget`, when given; ids up to `upTo` only, when
 * given). Without `wait`, does nothing (`busy`) while another fold runs.
 */
export async function foldTagBacklog(options: { wait?: boolean; upTo?: string | null; budget?: number } = {}): Promise<FoldReport> {
  const fold = (budget: number) => foldOnce({ wait: options.wait ?? true, upTo: options.upTo ?? null, budget });
  if (options.budget !== undefined) return withFoldRetries(options.budget, fold);
  return withKeptBudget((globalForBudget.__telltaleFoldBudget ??= { rows: TAG_ROWS_PER_FOLD }), fold);
}

/**
 * `fold` through withFoldRetries with the budget `kept` holds, which keeps
 * what the retries halved it to, or grows by nextFoldBudget after a fold
 * that fitted at once.
 */
export async function withKeptBudget(kept: { rows: number }, fold: (budget: number) => Promise<FoldReport>): Promise<FoldReport> {
  const start = kept.rows;
  const report = await withFoldRetries(start, fold, (rows) => (kept.rows = rows));
  if (kept.rows === start) kept.rows = nextFoldBudget(start);
  return report;
}

/**
 * The budget after a fold that fitted its deadline: a tenth more, up to
 * TAG_ROWS_PER_FOLD. A fold that did not fit halves it (withFoldRetries),
 * and the process keeps the smaller budget: on a host slower than those
 * measured, folds settle near what fits rather than each running into the
 * deadline first while readers wait for the fold lock.
 */
export function nextFoldBudget(rows: number): number {
  return Math.min(TAG_ROWS_PER_FOLD, rows + Math.ceil(rows / 10));
}

/**
 * Runs `fold` with `budget` tag rows, up to MAX_FOLD_TRIES times: after a
 * deadlock with the same budget, after passing the statement's deadline
 * with half (the fold rolled back whole), told to `halved`; any other error
 * is thrown at once.
 */
export async function withFoldRetries(budget: number, fold: (budget: number) => Promise<FoldReport>, halved: (budget: number) => void = () => {}): Promise<FoldReport> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await fold(budget);
    } catch (error) {
      if (attempt >= MAX_FOLD_TRIES) throw error;
      if (isPastDeadline(error)) halved((budget = Math.max(1, Math.floor(budget / 2))));
      else if (!isRetryableConflict(error)) throw error;
    }
  }
}

const globalForSettle = globalThis as unknown as { __telltaleTagSettle?: { current: Promise<void> | null; next: Promise<void> | null } };

/**
 * Before reading the tag counts: everything ingested before this call is in
 * them. One settle at a time per process: readers that call while one runs
 * share the next, which starts after their calls, so concurrent page views
 * hold one pooled connection waiting for the fold lock, not one each.
 */
export function settleTagCounts(): Promise<void> {
  const settling = (globalForSettle.__telltaleTagSettle ??= { current: null, next: null });
  if (!settling.current) {
    const run = settleNow().finally(() => {
      settling.current = null;
    });
    settling.current = run;
    return run;
  }
  settling.next ??= settling.current
    .catch(() => {})
    .then(() => {
      settling.next = null;
      return settleTagCounts();
    });
  return settling.next;
}

async function settleNow(): Promise<void> {
  const { rows } = await dbPool().query<{ last: string | null }>("SELECT max(id)::text AS last FROM tag_count_backlog");
  const upTo = rows[0]?.last ?? null;
  if (upTo === null) return;
  while ((await foldTagBacklog({ wait: true, upTo })).statements > 0);
}

/** Folds until the backlog is empty or the deadline passes (the schedule's `tag-counts` job). */
export async function foldTagBacklogWithin(options: { deadline: number; clock: () => number }): Promise<{ statements: number; tagRows: number; complete: boolean }> {
  const total = { statements: 0, tagRows: 0 };
  let complete = false;
  while (options.clock() < options.deadline) {
    const report = await foldTagBacklog({ wait: true });
    total.statements += report.statements;
    total.tagRows += report.tagRows;
    if (report.statements === 0) {
      complete = true;
      break;
    }
  }
  // Every ingest statement adds a row here and a fold deletes it: without autovacuum (the embedded database) the table would only grow.
  await vacuumWhereAutovacuumIsOff("tag_count_backlog");
  return { ...total, complete };
}

type BackgroundFold = { running: boolean; again: boolean; startedAt: number };
const globalForFold = globalThis as unknown as { __telltaleTagFold?: BackgroundFold };

/**
 * Called after an ingest statement that appended tag counts committed: one
 * run at a time per process, folding FOLD_DELAY_MS after the call and again
 * while statements keep coming, for up to BACKGROUND_RUN_MS; a fold another
 * process or a reader is running is left to it.
 */
export function foldTagBacklogSoon(): void {
  const state = (globalForFold.__telltaleTagFold ??= { running: false, again: false, startedAt: 0 });
  state.again = true;
  // A run frozen with its host (a serverless instance) does not hold this process's folds for good.
  if (state.running && Date.now() - state.startedAt < 6 * BACKGROUND_RUN_MS) return;
  state.running = true;
  const startedAt = (state.startedAt = Date.now());
  sendInBackground(async () => {
    try {
      while (state.again && Date.now() - startedAt < BACKGROUND_RUN_MS) {
        state.again = false;
        await new Promise((resolve) => setTimeout(resolve, FOLD_DELAY_MS).unref());
        const report = await foldTagBacklog({ wait: false });
        // Busy: the other fold may not take what came since; a fold that took rows: more may be waiting.
        if (report.busy || report.statements > 0) state.again = true;
      }
    } finally {
      if (state.startedAt === startedAt) state.running = false;
    }
  });
}
