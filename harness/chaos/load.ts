/**
 * Ingestion load for the kill -9 and database outage phases: concurrent
 * clients sending single events and small batches, each event with a unique
 * message, every answer recorded. Afterwards `verifyStored` checks that
 * every id answered 201 is in the database, unaltered and stored once.
 */
import http from "node:http";
import { query } from "@/harness/chaos/fixtures";
import { sendHttp } from "@/harness/chaos/http-client";

export type LoadAnswer = { sentAt: number; doneAt: number; status: number; retryAfter: boolean; hung: boolean; error?: string };

export type LoadStats = {
  requests: number;
  created: number;
  unavailable: number;
  unavailableWithoutRetryAfter: number;
  otherServerErrors: number;
  otherStatuses: Record<string, number>;
  hangs: number;
  connectionErrors: number;
  /** id -> [level, message] of every event answered 201. */
  acknowledged: Map<string, [string, string]>;
  answers: LoadAnswer[];
};

const LEVELS = ["info", "warn", "error"] as const;

export class IngestLoad {
  readonly stats: LoadStats = { requests: 0, created: 0, unavailable: 0, unavailableWithoutRetryAfter: 0, otherServerErrors: 0, otherStatuses: {}, hangs: 0, connectionErrors: 0, acknowledged: new Map(), answers: [] };
  private running = false;
  private workers: Promise<void>[] = [];
  private agent: http.Agent;
  private seq = 0;

  constructor(
    private readonly options: { port: number; projectId: string; apiKey: string; clients: number; timeoutMs: number; marker: string },
  ) {
    this.agent = new http.Agent({ keepAlive: true, maxSockets: options.clients });
  }

  start(): void {
    this.running = true;
    this.workers = Array.from({ length: this.options.clients }, (_, w) => this.worker(w));
  }

  /** Stops sending and waits for the requests in flight (each has its deadline). */
  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.workers);
    this.agent.destroy();
  }

  get timeoutMs(): number {
    return this.options.timeoutMs;
  }

  /** The 201s so far. */
  get created(): number {
    return this.stats.created;
  }

  /** When the first request sent at or after `since` was answered 201, or null. */
  firstCreatedSentAfter(since: number): number | null {
    let first: number | null = null;
    for (const a of this.stats.answers) if (a.status === 201 && a.sentAt >= since && (first === null || a.doneAt < first)) first = a.doneAt;
    return first;
  }

  private async worker(w: number): Promise<void> {
    while (this.running) {
      const batchSize = Math.random() < 0.25 ? 2 + Math.floor(Math.random() * 4) : 0;
      const events = Array.from({ length: Math.max(1, batchSize) }, () => {
        const n = ++this.seq;
        return { level: LEVELS[n % 3]!, message: `${this.options.marker} w${w} #${n}`, projectId: this.options.projectId, context: { n, w } };
      });
      const body = Buffer.from(JSON.stringify(batchSize ? { events } : events[0]));
      const sentAt = performance.now();
      const answer = await sendHttp({
        port: this.options.port,
        method: "POST",
        path: batchSize ? "/api/events/batch" : "/api/events",
        headers: { authorization: `Bearer ${this.options.apiKey}`, "content-type": "application/json" },
        body,
        timeoutMs: this.options.timeoutMs,
        agent: this.agent,
      });
      const s = this.stats;
      s.requests++;
      s.answers.push({ sentAt, doneAt: performance.now(), status: answer.status, retryAfter: Boolean(answer.headers["retry-after"]), hung: answer.hung, ...(answer.error ? { error: answer.error } : {}) });
      if (answer.hung) s.hangs++;
      // Cut off mid-answer (the kill): not an acknowledgement the client could read.
      else if (answer.status === 0 || !answer.complete) s.connectionErrors++;
      else if (answer.status === 201) {
        s.created++;
        try {
          const parsed = JSON.parse(answer.body.toString("utf8")) as { id?: string; ids?: string[] };
          const ids = batchSize ? (parsed.ids ?? []) : parsed.id ? [parsed.id] : [];
          ids.forEach((id, k) => s.acknowledged.set(id, [events[k]!.level, events[k]!.message]));
        } catch {
          s.otherStatuses["201 with an unreadable body"] = (s.otherStatuses["201 with an unreadable body"] ?? 0) + 1;
        }
      } else if (answer.status === 503) {
        s.unavailable++;
        if (!answer.headers["retry-after"]) s.unavailableWithoutRetryAfter++;
      } else {
        if (answer.status >= 500) s.otherServerErrors++;
        s.otherStatuses[String(answer.status)] = (s.otherStatuses[String(answer.status)] ?? 0) + 1;
      }
      // Back off a little on refusals, as a client would (not the full Retry-After: the run wants to see recovery).
      if (answer.status !== 201) await new Promise((r) => setTimeout(r, answer.status === 0 ? 50 : 100));
    }
  }
}

export type StoredVerdict = { lost: string[]; altered: string[]; duplicated: number };

/** Every acknowledged id stored with what was sent; no message stored twice. */
export async function verifyStored(dbUrl: string, load: IngestLoad, projectId: string, marker: string): Promise<StoredVerdict> {
  const acknowledged = [...load.stats.acknowledged.entries()];
  const stored = new Map<string, { level: string; message: string }>();
  for (let i = 0; i < acknowledged.length; i += 5000) {
    const ids = acknowledged.slice(i, i + 5000).map(([id]) => id);
    for (const row of await query<{ id: string; level: string; message: string }>(dbUrl, "SELECT id::text, level::text, message FROM events WHERE id = ANY($1::uuid[])", [ids])) stored.set(row.id, row);
  }
  const lost: string[] = [];
  const altered: string[] = [];
  for (const [id, [level, message]] of acknowledged) {
    const row = stored.get(id);
    if (!row) lost.push(id);
    else if (row.level !== level || row.message !== message) altered.push(`${id}: sent ${level} "${message}", stored ${row.level} "${row.message}"`);
  }
  const [dup] = await query<{ n: string }>(dbUrl, "SELECT coalesce(sum(c - 1), 0)::text AS n FROM (SELECT count(*) AS c FROM events WHERE project_id = $1 AND message LIKE $2 GROUP BY message HAVING count(*) > 1) d", [projectId, `${marker} %`]);
  return { lost, altered, duplicated: Number(dup?.n ?? 0) };
}
