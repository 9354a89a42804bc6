/**
 * The tag count backlog (tag_count_backlog): the tag counts ingest
 * statements stored, waiting to be added to issue_tag_hours and
 * issue_tag_days. Each ingest statement appends one row in the same
 * transaction as its events (ingest-sql.ts tagBacklogCte), so a count is
 * never lost nor added twice: a fold deletes the rows it adds, in one
 * statement. Folding many statements' rows at once is what makes it cheap:
 * their values recur, and each distinct one is looked up and upserted once.
 *
 * Counts stay exact for readers: every read of the tag counts folds what was
 * committed before it first (settleTagCounts), waiting for a fold in
 * progress elsewhere to commit. After ingestion, a fold runs in the
 * background (foldTagBacklogSoon); the schedule's `tag-counts` job folds
 * what a stopped process left.
 */
import { sql } from "kysely";
import { isForeignKeyViolation, isRetryableConflict } from "@/lib/db/errors";
import { part, placeholder, sqlBuilder, statementOnce } from "@/lib/db/sql";
import { tagAdmittedCte, tagCountUpsertCte, type TagRow } from "@/lib/issues/ingest-sql";
import { sendInBackground } from "@/lib/jobs/background";

/** Backlog rows (one per ingest statement) one background fold takes at most. */
export const BACKLOG_ROWS_PER_FOLD = 200;

const MAX_FOLD_RETRIES = 3;

/** Between background folds: lets a busy server's statements gather, so that each fold adds more of them at once. */
const FOLD_DELAY_MS = 250;

export type FoldReport = { statements: number; tagRows: number };

/**
 * Takes backlog rows in id order (every fold locks them in the same order),
 * sums their counts per issue, hour, key and value, and adds them as ingest
 * used to: values admitted while the hour has room, the rest under "".
 * Rows of an issue deleted meanwhile (its project deleted) are dropped.
 * `skipLocked`: leave rows another fold holds to it, rather than wait.
 */
const buildFold = (skipLocked: boolean) =>
  sqlBuilder
    .with("picked", (qc) => {
      const rows = qc
        .selectFrom("tag_count_backlog")
        .select("id")
        .orderBy("id")
        .limit(placeholder<number | null>("limit"))
        .forUpdate();
      return skipLocked ? rows.skipLocked() : rows;
    })
    .with("taken", (qc) =>
      qc
        .deleteFrom("tag_count_backlog")
        .where("id", "in", (eb) => eb.selectFrom("picked").select("picked.id"))
        .returning(["issue_ids", "project_ids", "hours", "keys", "tag_values", "counts"]),
    )
    .with(
      "tag_rows",
      () => sql<TagRow>`(
        SELECT u.issue_id, u.project_id, u.hour, u.key, u.value, sum(u.n)::int AS n
        FROM taken t, unnest(t.issue_ids, t.project_ids, t.hours, t.keys, t.tag_values, t.counts) AS u(issue_id, project_id, hour, key, value, n)
        WHERE EXISTS (SELECT FROM issues i WHERE i.id = u.issue_id)
        GROUP BY 1, 2, 3, 4, 5)`,
    )
    .with("tag_admitted", part(tagAdmittedCte))
    .with("tag_hours_up", part(tagCountUpsertCte("issue_tag_hours")))
    .with("tag_days_up", part(tagCountUpsertCte("issue_tag_days")))
    .selectNoFrom(() => [
      sql<number>`(SELECT count(*)::int FROM taken)`.as("statements"),
      sql<number>`(SELECT count(*)::int FROM tag_rows)`.as("tag_rows"),
      sql<number>`(SELECT count(*)::int FROM tag_hours_up) + (SELECT count(*)::int FROM tag_days_up)`.as("upserted"),
    ]);

const foldWaiting = statementOnce(() => buildFold(false));
const foldSkipping = statementOnce(() => buildFold(true));

/**
 * Folds backlog rows into the tag count tables: all that were committed
 * before the call, waiting for other folds (`limit` unset), or at most
 * `limit` rows that no other fold holds.
 */
export async function foldTagBacklog(options: { limit?: number } = {}): Promise<FoldReport> {
  for (let attempt = 0; ; attempt++) {
    try {
      const [row] = options.limit === undefined ? await foldWaiting({ limit: null }) : await foldSkipping({ limit: options.limit });
      return { statements: row!.statements, tagRows: row!.tag_rows };
    } catch (error) {
      // An issue deleted between the check and the upsert, or a deadlock: the fold rolled back whole, and the next try drops or passes it.
      if (attempt >= MAX_FOLD_RETRIES || !(isForeignKeyViolation(error) || isRetryableConflict(error))) throw error;
    }
  }
}

/** Before reading the tag counts: everything ingested before this call is in them. */
export async function settleTagCounts(): Promise<void> {
  await foldTagBacklog();
}

/** Folds until the backlog is empty or the deadline passes (the schedule's `tag-counts` job). */
export async function foldTagBacklogWithin(options: { deadline: number; clock: () => number }): Promise<FoldReport & { complete: boolean }> {
  const total: FoldReport = { statements: 0, tagRows: 0 };
  while (options.clock() < options.deadline) {
    const report = await foldTagBacklog({ limit: BACKLOG_ROWS_PER_FOLD });
    total.statements += report.statements;
    total.tagRows += report.tagRows;
    if (report.statements < BACKLOG_ROWS_PER_FOLD) return { ...total, complete: true };
  }
  return { ...total, complete: false };
}

const globalForFold = globalThis as unknown as { __telltaleTagFold?: { running: boolean; again: boolean } };

/**
 * Called after an ingest statement that appended tag counts committed: one
 * fold at a time per process, FOLD_DELAY_MS after the call; statements that
 * commit meanwhile are taken by the next one.
 */
export function foldTagBacklogSoon(): void {
  const state = (globalForFold.__telltaleTagFold ??= { running: false, again: false });
  if (state.running) {
    state.again = true;
    return;
  }
  state.running = true;
  state.again = true;
  sendInBackground(async () => {
    try {
      while (state.again) {
        state.again = false;
        await new Promise((resolve) => setTimeout(resolve, FOLD_DELAY_MS).unref());
        const { statements } = await foldTagBacklog({ limit: BACKLOG_ROWS_PER_FOLD });
        if (statements === BACKLOG_ROWS_PER_FOLD) state.again = true; // more than one fold's worth was waiting
      }
    } finally {
      state.running = false;
    }
  });
}
