import { settings } from "@/lib/config/settings";
import { isForeignKeyViolation, retryingConflicts } from "@/lib/db/errors";
import { alertsAfterIngest, type AlertsQueued } from "@/lib/alerts/background";
import { errors } from "@/lib/http/errors";
import { GroupCommit, type Settlement } from "@/lib/ingest/group-commit";
import { claimKey } from "@/lib/ingest/idempotency";
import { storeBatch, type IssueTransition, type NewEvent, type StatementResult, type WriteRequest } from "@/lib/ingest/statement";
import { foldTagBacklogSoon } from "@/lib/issues/tag-backlog";
import { forgetApiKey } from "@/lib/keys/service";

export type { NewEvent, WriteRequest } from "@/lib/ingest/statement";

export type WriteOutcome = { replayed: false } | { replayed: true; response: object };

type Settled = { outcome: WriteOutcome; alerts?: AlertsQueued };

/** A statement that lost a deadlock or serialization race is tried again, whole. */
function storeWithRetries(batch: WriteRequest[]): Promise<StatementResult> {
  return retryingConflicts(() => storeBatch(batch));
}

/** What each request of a committed statement gets. */
function settlements(batch: WriteRequest[], result: StatementResult): Settlement<Settled>[] {
  return batch.map((request) => {
    const { keyId, projectId } = request.rows[0]!;
    if (result.refusedKeys.has(keyId)) {
      forgetApiKey(keyId);
      return { error: errors.invalidApiKey() };
    }
    if (request.idempotency && result.unclaimed.has(claimKey(projectId, request.idempotency.key))) {
      const first = result.replays.get(claimKey(projectId, request.idempotency.key));
      // No first answer to give: that claim vanished meanwhile. Nothing was stored; a retry settles it.
      if (first) return { value: { outcome: { replayed: true, response: first } } };
      return { error: errors.serviceUnavailable("Another request with this Idempotency-Key was being stored at the same time; nothing was stored. Retry.", 1) };
    }
    const queued = result.alertProjects.has(projectId);
    const spikes = result.spikeProjects.has(projectId);
    return { value: { outcome: { replayed: false }, alerts: queued || spikes ? { projectId, queued, spikes } : undefined } };
  });
}

function createWriter(): GroupCommit<WriteRequest, Settled> {
  return new GroupCommit<WriteRequest, Settled>({
    commit: async (batch) => {
      const result = await storeWithRetries(batch);
      if (result.tagged) foldTagBacklogSoon();
      return settlements(batch, result);
    },
    rows: (request) => request.rows.length,
    claim: (request) => (request.idempotency ? claimKey(request.rows[0]!.projectId, request.idempotency.key) : null),
    maxInFlight: () => settings().ingest.maxConcurrentWrites,
  });
}

const globalForWriter = globalThis as unknown as { __telltaleEventWriter?: GroupCommit<WriteRequest, Settled> };

/**
 * Stores a request's rows through group commit; resolves after the commit.
 * Alert delivery is scheduled here, in the caller's own async context, so it
 * runs with Next's after() of this request.
 */
export async function writeEvents(request: WriteRequest): Promise<WriteOutcome> {
  globalForWriter.__telltaleEventWriter ??= createWriter();
  let settled: Settled;
  try {
    settled = await globalForWriter.__telltaleEventWriter.submit(request);
  } catch (error) {
    // The project vanished between the key check and the insert: the key is gone too.
    throw isForeignKeyViolation(error) ? errors.invalidApiKey() : error;
  }
  if (settled.alerts) alertsAfterIngest(settled.alerts);
  return settled.outcome;
}

/**
 * Stores rows at once in one statement, without the group-commit queue: for
 * seeding (tests, benchmarks) and tools. Ingestion goes through writeEvents().
 */
export async function storeEventsNow(rows: NewEvent[]): Promise<{ stored: number; transitions: IssueTransition[] }> {
  if (rows.length === 0) return { stored: 0, transitions: [] };
  const result = await storeBatch([{ rows }]);
  return { stored: result.stored, transitions: result.transitions };
}
