/**
 * The chaos run's concurrency phases, against the running server on a
 * healthy database:
 * - project cap: 20 concurrent creations by one person with 9 projects left
 *   under MAX_PROJECTS_PER_USER must leave exactly the cap;
 * - transaction queueing: 80 concurrent creations by one person are each
 *   201, or 429 with Retry-After and a "server busy" log line, never 503;
 * - alert fairness: one project's webhook never answers; another project's
 *   alert is still delivered within its normal delay.
 */
import { emptyRow, type Failure, type Row } from "@/harness/chaos/report";
import { logSize, serverWarnings } from "@/harness/chaos/server";
import { query, userWithSession } from "@/harness/chaos/fixtures";
import { prisma } from "@/lib/db/client";
import { createProject } from "@/lib/project-setup/create-project";
import { startSilentServer, startWebhookReceiver } from "@/tests/helpers/webhook-receiver";

/** What the phases need of the run (harness/chaos/run.ts). */
export type RaceContext = { run: string; origin: string; clusterUrl: string; logFile: string; rows: Row[]; failures: Failure[]; log: (line: string) => void };

/** The server's settings these phases rely on (the run starts it with them). */
export const RACE_SERVER_ENV = {
  MAX_PROJECTS_PER_USER: "100",
  ALERTS_ALLOW_PRIVATE_WEBHOOKS: "true",
  // A dead receiver holds each send this long unless delivery is fair.
  ALERTS_WEBHOOK_TIMEOUT_MS: "60000",
};
const CAP = Number(RACE_SERVER_ENV.MAX_PROJECTS_PER_USER);
const REQUEST_DEADLINE_MS = 30_000;

type Answer = { status: number; retryAfter: string | null; code: string | null } | { status: "hang" | "error"; detail: string };

async function createOverHttp(c: RaceContext, sessionToken: string, name: string): Promise<Answer> {
  try {
    const res = await fetch(`${c.origin}/api/projects`, {
      method: "POST",
      headers: { cookie: `authjs.session-token=${sessionToken}`, origin: c.origin, "content-type": "application/json" },
      body: JSON.stringify({ name }),
      signal: AbortSignal.timeout(REQUEST_DEADLINE_MS),
    });
    const body = (await res.json().catch(() => null)) as { code?: string } | null;
    return { status: res.status, retryAfter: res.headers.get("retry-after"), code: body?.code ?? null };
  } catch (error) {
    const name = (error as Error).name;
    return { status: name === "TimeoutError" ? "hang" : "error", detail: (error as Error).message };
  }
}

/** Counts the answers into `row`; anything but the allowed statuses (and 429 with Retry-After) is a failed check. */
function tally(row: Row, failures: Failure[], phase: string, answers: Answer[], allowed: number[]): void {
  for (const a of answers) {
    row.requests++;
    if (a.status === "hang") row.hangs++;
    else if (a.status === "error") {
      row.failedChecks++;
      failures.push({ phase, what: "request failed", detail: a.detail });
    } else if (a.status === 503) {
      row.unavailable503++;
      row.failedChecks++;
      failures.push({ phase, what: "503 on a healthy database", detail: a.code ?? "" });
    } else if (a.status >= 500) row.other5xx++;
    else if (a.status === 429 && !a.retryAfter) {
      row.failedChecks++;
      failures.push({ phase, what: "429 without Retry-After", detail: a.code ?? "" });
    } else if (a.status === 429 || allowed.includes(a.status)) {
      if (a.status < 300) row.created2xx++;
      else row.clean4xx++;
    } else {
      row.failedChecks++;
      failures.push({ phase, what: `unexpected ${a.status}`, detail: ("code" in a && a.code) || "" });
    }
  }
}

async function ownedProjects(c: RaceContext, userId: string): Promise<number> {
  const [row] = await query<{ n: string }>(c.clusterUrl, "SELECT count(*)::text AS n FROM memberships WHERE user_id = $1 AND role = 'owner'", [userId]);
  return Number(row!.n);
}

export async function projectCapPhase(c: RaceContext): Promise<void> {
  const phase = "project cap race";
  const row = emptyRow(phase);
  const user = await userWithSession(`chaos-cap-${c.run}@example.test`);
  const left = 9;
  // Made here (the runner's own lib), under the server's cap.
  process.env.MAX_PROJECTS_PER_USER = RACE_SERVER_ENV.MAX_PROJECTS_PER_USER;
  const { resetSettings } = await import("@/lib/config/settings");
  resetSettings();
  for (let i = 0; i < CAP - left; i++) await createProject(user.id, `chaos cap ${c.run} ${i}`);
  const answers = await Promise.all(Array.from({ length: 20 }, (_, i) => createOverHttp(c, user.sessionToken, `chaos cap race ${i}`)));
  tally(row, c.failures, phase, answers, [201, 409]);
  const owned = await ownedProjects(c, user.id);
  if (owned > CAP) {
    row.wronglyStored += owned - CAP;
    c.failures.push({ phase, what: "cap exceeded", detail: `${owned} projects owned, MAX_PROJECTS_PER_USER=${CAP}` });
  }
  c.rows.push(row);
  c.log(`${phase}: 20 creations with ${left} left: ${row.created2xx} made, ${owned} owned (cap ${CAP})`);
}

export async function transactionQueuePhase(c: RaceContext): Promise<void> {
  const phase = "80 concurrent creations";
  const row = emptyRow(phase);
  const user = await userWithSession(`chaos-burst-${c.run}@example.test`);
  const logFrom = logSize(c.logFile);
  const answers = await Promise.all(Array.from({ length: 80 }, (_, i) => createOverHttp(c, user.sessionToken, `chaos burst ${i}`)));
  tally(row, c.failures, phase, answers, [201]);
  const busy = answers.filter((a) => a.status === 429).length;
  const busyLines = serverWarnings(c.logFile, logFrom).filter((line) => line.includes("server busy")).length;
  if (busy > 0 && busyLines < busy) {
    row.failedChecks++;
    c.failures.push({ phase, what: "429 without its log line", detail: `${busy} answers 429, ${busyLines} "server busy" lines` });
  }
  const owned = await ownedProjects(c, user.id);
  if (owned !== row.created2xx) {
    row.wronglyStored += Math.abs(owned - row.created2xx);
    c.failures.push({ phase, what: "projects stored differ from 201 answers", detail: `${owned} stored, ${row.created2xx} answered 201` });
  }
  c.rows.push(row);
  c.log(`${phase}: ${row.created2xx} × 201, ${busy} × 429, ${row.unavailable503} × 503`);
}

export async function alertFairnessPhase(c: RaceContext): Promise<void> {
  const phase = "alerts: one dead webhook";
  const row = emptyRow(phase);
  const live = await startWebhookReceiver();
  const dead = await startSilentServer();
  try {
    const owner = await userWithSession(`chaos-alerts-${c.run}@example.test`);
    const { createAlertRule } = await import("@/lib/alerts/rules");
    const { resolveProjectAccess } = await import("@/lib/auth/access");
    const withWebhook = async (label: string, url: string) => {
      const project = await createProject(owner.id, `chaos ${label} ${c.run}`);
      await prisma.alertRule.deleteMany({ where: { projectId: project.id } });
      const access = await resolveProjectAccess(owner.id, project.id, "owner");
      await createAlertRule(access, { trigger: "new_issue", minLevel: "error", channel: { type: "webhook", url, format: "json" } });
      return project;
    };
    const a = await withWebhook("dead webhook", dead.url);
    const b = await withWebhook("live webhook", live.url);
    const send = async (key: string, path: string, body: unknown) => {
      row.requests++;
      const res = await fetch(`${c.origin}${path}`, { method: "POST", headers: { authorization: `Bearer ${key}`, "content-type": "application/json" }, body: JSON.stringify(body) });
      if (res.status === 201) row.created2xx++;
      else {
        row.failedChecks++;
        c.failures.push({ phase, what: `ingest answered ${res.status}`, detail: await res.text() });
      }
    };
    // The normal delay: project B's alert with nothing else going on.
    let t = performance.now();
    await send(b.apiKey, "/api/events", { projectId: b.id, level: "error", message: "chaos baseline failure" });
    await live.waitFor(1, REQUEST_DEADLINE_MS);
    const baselineMs = performance.now() - t;
    // Project A: a dozen new issues whose notifications go to a receiver that never answers.
    const errors = Array.from({ length: 12 }, (_, i) => ({ projectId: a.id, level: "error", message: "dead receiver failure", fingerprint: ["dead", String(i)] }));
    await send(a.apiKey, "/api/events/batch", { events: errors });
    await dead.waitForConnections(1, REQUEST_DEADLINE_MS);
    t = performance.now();
    await send(b.apiKey, "/api/events", { projectId: b.id, level: "error", message: "chaos checkout is down" });
    const allowedMs = Math.max(2 * baselineMs, baselineMs + 5_000);
    let delayMs: number | null = null;
    try {
      await live.waitFor(2, allowedMs);
      delayMs = performance.now() - t;
    } catch {
      row.failedChecks++;
      c.failures.push({ phase, what: "alert held up by another project's dead webhook", detail: `not delivered within ${Math.round(allowedMs)} ms (normal delay ${Math.round(baselineMs)} ms)` });
    }
    if (delayMs !== null && dead.open === 0) c.log(`${phase}: note: the dead receiver's sends had already ended`);
    row.recoveryS = delayMs === null ? "-" : (delayMs / 1000).toFixed(1);
    c.log(`${phase}: normal delay ${Math.round(baselineMs)} ms, with the dead webhook ${delayMs === null ? "never" : `${Math.round(delayMs)} ms`} (${dead.open} sends to it still open)`);
  } finally {
    await dead.close();
    await live.close();
  }
  c.rows.push(row);
}
