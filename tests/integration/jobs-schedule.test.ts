import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import { GET as cronGet } from "@/app/api/cron/[job]/route";
import { readLease } from "@/lib/jobs/lease";
import { InProcessSchedule, runDueJobs, runJob } from "@/lib/jobs/runner";
import type { Job, JobContext } from "@/lib/jobs/job";
import { SCHEDULE } from "@/lib/schedule/schedule";
import { maxDuration } from "@/app/api/cron/[job]/route";
import { stubEnv, unstubEnvs } from "@/tests/helpers/env";
import { callRoute } from "@/tests/helpers/session";

/**
 * The schedule of background work: each job at most once per interval
 * among several processes, never overlapping itself, within its budget.
 * Processes are played by InProcessSchedule instances with their own lease
 * holder; time is an injected clock; jobs are test doubles with unique
 * names (the job_leases table is shared with other test files).
 */

const MINUTE = 60_000;

/** A clock the test moves. */
function manualClock(start = Date.parse("2026-11-27T12:00:00Z")) {
  let now = start;
  return { now: () => now, advance: (ms: number) => void (now += ms) };
}

/** A job whose runs the test starts and ends by hand. */
function gatedJob(over: Partial<Job> = {}) {
  const runs: { context: JobContext; finish: (more?: boolean) => void; fail: (error: Error) => void }[] = [];
  const job: Job = {
    name: `test-${randomUUID()}`,
    description: "a test double",
    intervalMs: 10 * MINUTE,
    budgetMs: 5_000,
    run: (context) =>
      new Promise((resolve, reject) => {
        runs.push({ context, finish: (more = false) => resolve({ report: { run: runs.length }, more }), fail: reject });
      }),
    ...over,
  };
  /** Resolves once `count` runs have started. */
  const started = async (count: number) => {
    while (runs.length < count) await new Promise((resolve) => setImmediate(resolve));
  };
  return { job, runs, started };
}

describe("the schedule", () => {
  it("lists every periodic job with its interval and budget; retention runs daily; every budget fits the cron route's maxDuration", () => {
    expect(SCHEDULE.map((j) => j.name).sort()).toEqual(["alert-log", "alerts", "idempotency-keys", "ignores", "retention", "spikes", "statistics", "tag-counts"]);
    expect(SCHEDULE.find((j) => j.name === "retention")!.intervalMs).toBe(24 * 60 * MINUTE);
    for (const job of SCHEDULE) {
      expect(job.budgetMs).toBeGreaterThan(0);
      expect(job.intervalMs).toBeGreaterThan(0);
      expect(job.budgetMs + 1_000).toBeLessThan(maxDuration * 1000);
    }
  });
});

describe("several processes, one job", () => {
  it("runs once per interval among them, never overlapping itself", async () => {
    const clock = manualClock();
    const { job, runs, started } = gatedJob();
    const servers = ["server-a", "server-b"].map((holder) => new InProcessSchedule({ jobs: [job], clock: clock.now, holder }));

    // Both processes see it due at once: one runs it.
    const ticks = servers.map((s) => s.tick());
    await started(1);
    clock.advance(1_000);
    // While it runs, neither starts it again (here: the lease; there: its own run).
    await Promise.all(servers.map((s) => s.tick()));
    expect(runs).toHaveLength(1);
    runs[0]!.finish();
    const results = (await Promise.all(ticks)).flat();
    expect(results.filter((r) => r.ran)).toHaveLength(1);
    expect(results.filter((r) => r.skipped)).toHaveLength(1);

    // Not due again before its interval, whoever asks.
    clock.advance(job.intervalMs - 2_000);
    expect((await Promise.all(servers.map((s) => s.tick()))).flat().filter((r) => r.ran)).toHaveLength(0);
    expect(runs).toHaveLength(1);

    // Due again: once.
    clock.advance(2_000);
    const next = servers.map((s) => s.tick());
    await started(2);
    runs[1]!.finish();
    expect((await Promise.all(next)).flat().filter((r) => r.ran)).toHaveLength(1);
    const lease = await readLease(job.name);
    expect(lease).toMatchObject({ leased_until: null, last_outcome: { run: 2 } });
    expect(lease!.due_at.getTime()).toBe(clock.now() + job.intervalMs);
  });

  it("a process that died mid-run holds the job until its lease (budget and margin) runs out; then another takes it", async () => {
    const clock = manualClock();
    const { job, runs, started } = gatedJob({ intervalMs: 10_000, budgetMs: 5_000 });
    const dying = new InProcessSchedule({ jobs: [job], clock: clock.now, holder: "dies" }).tick();
    await started(1);
    // It never finishes (its process is gone). Past the interval, the lease still holds:
    clock.advance(job.intervalMs + 1_000);
    const other = new InProcessSchedule({ jobs: [job], clock: clock.now, holder: "survivor" });
    expect(await other.tick()).toEqual([expect.objectContaining({ ran: false })]);
    // Past the lease (the budget and 30 s), the survivor runs it.
    clock.advance(25_000);
    const tick = other.tick();
    await started(2);
    runs[1]!.finish();
    expect(await tick).toEqual([expect.objectContaining({ ran: true })]);
    runs[0]!.finish();
    await dying;
  });

  it("work left over brings the next run forward to a minute; a failed run is tried again within five", async () => {
    const clock = manualClock();
    const { job, runs, started } = gatedJob({ intervalMs: 24 * 60 * MINUTE });
    const server = new InProcessSchedule({ jobs: [job], clock: clock.now, holder: "solo" });
    let tick = server.tick();
    await started(1);
    runs[0]!.finish(true);
    await tick;
    expect((await readLease(job.name))!.due_at.getTime()).toBe(clock.now() + MINUTE);

    clock.advance(MINUTE);
    tick = server.tick();
    await started(2);
    runs[1]!.fail(new Error("database away"));
    expect(await tick).toEqual([expect.objectContaining({ ran: true, error: "database away" })]);
    const lease = await readLease(job.name);
    expect(lease!.due_at.getTime()).toBe(clock.now() + 5 * MINUTE);
    expect(lease!.last_outcome).toEqual({ error: "database away" });
  });

  it("a job turned off in process (ALERTS_CRON_ONLY for the alert jobs) is left to the cron route", async () => {
    const { job } = gatedJob({ inProcess: () => false });
    expect(await new InProcessSchedule({ jobs: [job], holder: "off" }).tick()).toEqual([]);
    try {
      stubEnv("ALERTS_CRON_ONLY", "true");
      expect(SCHEDULE.filter((j: Job) => j.inProcess?.() === false).map((j) => j.name).sort()).toEqual(["alerts", "spikes"]);
    } finally {
      unstubEnvs();
    }
  });
});

describe("budgets", () => {
  it("a run still going at its budget is answered `overran` at once and goes on in the background, holding its lease", async () => {
    const { job, runs, started } = gatedJob({ budgetMs: 50 });
    const answer = runJob(job, { holder: "slow" });
    await started(1);
    expect(await answer).toMatchObject({ ran: true, overran: true });
    expect((await readLease(job.name))!.leased_until).not.toBeNull();
    runs[0]!.finish();
    await expect.poll(async () => (await readLease(job.name))!.leased_until).toBeNull();
  });

  it("every run gets its deadline: start plus budget, by the injected clock", async () => {
    const clock = manualClock();
    const { job, runs, started } = gatedJob({ budgetMs: 7_000 });
    const run = runDueJobs({ jobs: [job], clock: clock.now, holder: "deadline" });
    await started(1);
    expect(runs[0]!.context).toMatchObject({ now: new Date(clock.now()), deadline: clock.now() + 7_000 });
    runs[0]!.finish();
    expect(await run).toEqual([expect.objectContaining({ job: job.name, ran: true, report: { run: 1 } })]);
  });
});

describe("cron routes", () => {
  it("an unknown job is a 404 naming the jobs; the route needs CRON_SECRET", async () => {
    const secret = "cron-secret-for-the-jobs-tests-0123456789";
    const request = (authorization?: string) => new Request("http://localhost/api/cron/nope", { headers: authorization ? { authorization } : {} });
    try {
      stubEnv("CRON_SECRET", secret);
      expect((await callRoute(cronGet, request())).status).toBe(401);
      const missing = await callRoute(cronGet, request(`Bearer ${secret}`));
      expect(missing.status).toBe(404);
      expect(missing.body.detail).toContain("alerts, spikes, retention, idempotency-keys, alert-log, ignores, statistics");
    } finally {
      unstubEnvs();
    }
  });
});
