import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { processAlerts, PROJECT_CONCURRENCY } from "@/lib/alerts/processor";
import { createAlertRule, listAlertRules, resumeAlertRule } from "@/lib/alerts/rules";
import type { CreateAlertRuleInput } from "@/lib/alerts/schemas";
import { PAUSE_AFTER_FAILURES, PAUSE_AFTER_MS } from "@/lib/alerts/pause";
import { resolveProjectAccess } from "@/lib/auth/access";
import { prisma } from "@/lib/db/client";
import { seedEvents } from "@/tests/helpers/events";
import { stubEnv, unstubEnvs } from "@/tests/helpers/env";
import { sendBatch, sendEvent } from "@/tests/helpers/ingest";
import { createTeam, startSmtpSink } from "@/tests/helpers/session";
import { startSilentServer, startWebhookReceiver } from "@/tests/helpers/webhook-receiver";

/**
 * Fair delivery (SPEC, "Background work"): one project's dead webhook costs
 * that project its own sends, never another project's notifications; a
 * webhook that keeps failing is paused and its owners told.
 */

type Team = Awaited<ReturnType<typeof createTeam>>;
let live: Awaited<ReturnType<typeof startWebhookReceiver>>;
let dead: Awaited<ReturnType<typeof startSilentServer>>;

beforeEach(async () => {
  live = await startWebhookReceiver();
  dead = await startSilentServer();
  stubEnv("ALERTS_ALLOW_PRIVATE_WEBHOOKS", "true");
  // A dead receiver costs a whole minute per send unless something else bounds it.
  stubEnv("ALERTS_WEBHOOK_TIMEOUT_MS", "60000");
});
afterEach(async () => {
  unstubEnvs();
  await dead.close();
  await live.close();
});

async function teamWithWebhook(label: string, url: string, over: Partial<CreateAlertRuleInput> = {}) {
  const team = await createTeam(label);
  await prisma.alertRule.deleteMany({ where: { projectId: team.project.id } });
  const access = await resolveProjectAccess(team.owner.user.id, team.project.id, "owner");
  const { rule } = await createAlertRule(access, { trigger: "new_issue", minLevel: "error", channel: { type: "webhook", url, format: "json" }, ...over });
  return { team, access, ruleId: rule.id };
}

const distinctErrors = (n: number, label: string) =>
  Array.from({ length: n }, (_, i) => ({ level: "error" as const, message: `${label} failure`, fingerprint: [label, String(i)] }));
const cancelledCount = (team: Team) => prisma.alertDelivery.count({ where: { projectId: team.project.id, status: "cancelled" } });

const deliveries = (team: Team) => prisma.alertDelivery.findMany({ where: { projectId: team.project.id }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] });

describe("one project's dead webhook and another project's alert", () => {
  it("right after ingestion: the other project's alert is delivered while the dead webhook's sends still hang", async () => {
    stubEnv("ALERTS_CRON_ONLY", "false");
    const a = await teamWithWebhook("fair-dead", dead.url);
    const b = await teamWithWebhook("fair-live", live.url);
    // Project A: a dozen new issues whose notifications go to a receiver that never answers.
    expect((await sendBatch(a.team.project.apiKey, { events: distinctErrors(12, "dead").map((e) => ({ ...e, projectId: a.team.project.id })) })).status).toBe(201);
    await dead.waitForConnections(1); // A's delivery pass is now stuck on it

    expect((await sendEvent(b.team.project.apiKey, { projectId: b.team.project.id, level: "error", message: "checkout is down" })).status).toBe(201);
    const [hook] = await live.waitFor(1, 30_000);
    expect(hook!.body).toMatchObject({ trigger: "new_issue", issue: { title: "checkout is down" } });
    // B's alert went out while A's sends were still waiting for their minute.
    expect(dead.open).toBeGreaterThan(0);
    expect(dead.connections).toBeLessThanOrEqual(PROJECT_CONCURRENCY);
  });

  it("in one pass: the dead webhook gets PROJECT_CONCURRENCY sends, its other notifications wait for their retry, the live one goes out at once, and the pass keeps its budget", async () => {
    const a = await teamWithWebhook("fair-pass-dead", dead.url);
    const b = await teamWithWebhook("fair-pass-live", live.url);
    await seedEvents(a.team.project.id, distinctErrors(10, "pass").map((e) => ({ ...e, at: new Date() })));
    await seedEvents(b.team.project.id, [{ level: "error", message: "payments failing", at: new Date() }]);
    const now = new Date(); // the outbox rows are due from their commit

    const pass = processAlerts({ now, projectIds: [a.team.project.id, b.team.project.id], budgetMs: 3_000 });
    const [hook] = await live.waitFor(1, 30_000);
    expect(hook!.body.issue.title).toBe("payments failing");
    expect(dead.open).toBeGreaterThan(0); // delivered while A's sends hang

    const report = await pass; // within its budget, not after A's 60 s deadlines
    expect(report).toMatchObject({ sent: 1, complete: false });
    expect(dead.connections).toBe(PROJECT_CONCURRENCY);
    const rows = await deliveries(a.team);
    // The two sent were cut by the budget; the eight others were never tried and wait for their retry.
    expect(rows.filter((r) => r.status === "pending")).toHaveLength(10);
    expect(rows.filter((r) => r.attempts === 0)).toHaveLength(8);
    expect(rows.filter((r) => r.attempts === 0).every((r) => r.nextAttemptAt > now)).toBe(true);
  });
});

describe("a webhook that keeps failing", () => {
  let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
  beforeEach(async () => {
    smtp = await startSmtpSink();
    stubEnv("EMAIL_SERVER", smtp.url);
    stubEnv("ALERTS_MAX_PER_PROJECT_PER_HOUR", "1000");
    live.respondWith(() => 500);
  });
  afterEach(async () => {
    await smtp.close();
  });

  it(`is paused after ${PAUSE_AFTER_FAILURES} failures in a row over an hour; owners get a mail; nothing is sent until an owner resumes it`, async () => {
    const { team, access, ruleId } = await teamWithWebhook("pause", live.url);
    await seedEvents(team.project.id, distinctErrors(PAUSE_AFTER_FAILURES, "pause").map((e) => ({ ...e, at: new Date() })));
    const t0 = new Date();
    const run = (at: Date) => processAlerts({ now: at, projectIds: [team.project.id] });

    // Ten failures at once: many, but not for long. Not paused.
    expect(await run(t0)).toMatchObject({ retrying: PAUSE_AFTER_FAILURES });
    expect((await listAlertRules(access))[0]!.paused).toBeNull();

    // An hour later the retries fail too: paused, the owners told, its queued notifications cancelled.
    const t1 = new Date(t0.getTime() + PAUSE_AFTER_MS + 60_000);
    await run(t1);
    const [rule] = await listAlertRules(access);
    expect(rule!.paused).toMatchObject({ at: t1.toISOString(), reason: expect.stringContaining("HTTP 500") });

    await run(t1); // the notice goes out by mail
    const rows = await deliveries(team);
    expect(rows.filter((r) => r.status === "pending" && r.kind === "new_issue")).toHaveLength(0);
    expect(rows.filter((r) => r.status === "cancelled" && r.answer?.includes("paused")).length).toBeGreaterThan(0);
    const mail = await smtp.mailTo(team.owner.user.email);
    expect(mail.text).toContain("Webhook paused in");
    expect(mail.text).toContain(`/projects/${team.project.id}/settings`);
    const notice = (await deliveries(team)).find((r) => r.kind === "webhook_paused");
    expect(notice).toMatchObject({ status: "sent", target: `email to ${team.owner.user.email}` });

    // While paused, a new issue's notification is not sent.
    live.respondWith(() => 200);
    const before = live.received.length;
    const cancelled = await cancelledCount(team);
    await seedEvents(team.project.id, [{ level: "error", message: "while paused", at: new Date() }]);
    await run(t1);
    expect(live.received).toHaveLength(before);
    expect(await cancelledCount(team)).toBe(cancelled + 1);

    // An owner resumes it: the next one goes out.
    expect((await resumeAlertRule(access, ruleId)).paused).toBeNull();
    await seedEvents(team.project.id, [{ level: "error", message: "after resuming", at: new Date() }]);
    await run(t1);
    const hooks = await live.waitFor(before + 1);
    expect(hooks.at(-1)!.body.issue.title).toBe("after resuming");
  });

  it("a success in between starts the count again", async () => {
    const { team, access } = await teamWithWebhook("pause-reset", live.url);
    await seedEvents(team.project.id, distinctErrors(PAUSE_AFTER_FAILURES - 1, "reset").map((e) => ({ ...e, at: new Date() })));
    const t0 = new Date();
    await processAlerts({ now: t0, projectIds: [team.project.id] });
    live.respondWith(() => 200);
    await seedEvents(team.project.id, [{ level: "error", message: "this one works", at: new Date() }]);
    await processAlerts({ now: new Date(), projectIds: [team.project.id] });
    live.respondWith(() => 500);
    const t1 = new Date(t0.getTime() + PAUSE_AFTER_MS + 60_000);
    await processAlerts({ now: t1, projectIds: [team.project.id] });
    expect((await listAlertRules(access))[0]!.paused).toBeNull();
    expect(await prisma.alertRule.findFirstOrThrow({ where: { projectId: team.project.id }, select: { failuresInRow: true } })).toEqual({
      failuresInRow: PAUSE_AFTER_FAILURES - 1,
    });
  });
});
