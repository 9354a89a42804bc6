import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { POST as cronAlerts } from "@/app/api/cron/[job]/route";
import { processAlerts } from "@/lib/alerts/processor";
import { createAlertRule } from "@/lib/alerts/rules";
import type { CreateAlertRuleInput } from "@/lib/alerts/schemas";
import { prisma } from "@/lib/db/client";
import { resolveProjectAccess } from "@/lib/auth/access";
import { seedEvents, type EventSeed } from "@/tests/helpers/events";
import { stubEnv, unstubEnvs } from "@/tests/helpers/env";
import { callRoute, createTeam, startSmtpSink } from "@/tests/helpers/session";
import { startSilentServer, startWebhookReceiver } from "@/tests/helpers/webhook-receiver";
import { findJob } from "@/lib/schedule/schedule";

/**
 * The outbox end to end, with a clock passed to the processor instead of
 * waiting: notifications written by the ingest statement (new issues,
 * regressions) or by the spike check, delivered by email (a local SMTP sink)
 * and signed webhooks (a local receiver), with retries, cool-downs, the
 * per-project cap and its digest.
 */

type Team = Awaited<ReturnType<typeof createTeam>>;
type Receiver = Awaited<ReturnType<typeof startWebhookReceiver>>;

let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
let receiver: Receiver;

beforeAll(async () => {
  smtp = await startSmtpSink();
});
afterAll(async () => {
  await smtp.close();
});
beforeEach(async () => {
  receiver = await startWebhookReceiver();
  stubEnv("EMAIL_SERVER", smtp.url);
  stubEnv("ALERTS_ALLOW_PRIVATE_WEBHOOKS", "true");
});
afterEach(async () => {
  unstubEnvs();
  await receiver.close();
});

const later = (base: Date, ms: number) => new Date(base.getTime() + ms);
const MINUTE = 60_000;

/** A team whose project has exactly `rules` (its default rules removed). */
async function teamWithRules(label: string, rules: CreateAlertRuleInput[]) {
  const team = await createTeam(label);
  await prisma.alertRule.deleteMany({ where: { projectId: team.project.id } });
  const access = await resolveProjectAccess(team.owner.user.id, team.project.id, "owner");
  const created = [];
  for (const rule of rules) created.push(await createAlertRule(access, rule));
  return { team, rules: created };
}

const webhookRule = (over: Partial<CreateAlertRuleInput> = {}, format: "json" | "slack" | "discord" = "json"): CreateAlertRuleInput => ({
  trigger: "new_issue",
  minLevel: "error",
  channel: { type: "webhook", url: receiver.url, format },
  ...over,
});

/** Runs the processor for one project (other test files' rows are theirs). */
const process = (team: Team, now: Date) => processAlerts({ now, projectIds: [team.project.id] });

const deliveries = (team: Team) => prisma.alertDelivery.findMany({ where: { projectId: team.project.id }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] });

const errorEvent = (message: string, at = new Date(), extra: Partial<EventSeed> = {}): EventSeed => ({ level: "error", message, at, ...extra });

describe("new issues and regressions", () => {
  it("a new error issue is mailed to the owner by the default rule, once, with a link to the issue", async () => {
    const team = await createTeam("alert-mail");
    await seedEvents(team.project.id, [errorEvent("Payment gateway refused card for order ord_a1b2")]);
    // Committed with the events: the outbox row exists before anything is sent.
    const queued = await deliveries(team);
    expect(queued).toMatchObject([{ kind: "new_issue", status: "pending" }]);

    const report = await process(team, new Date());
    expect(report.sent).toBe(1);
    const mail = await smtp.mailTo(team.owner.user.email);
    expect(mail.text).toContain("New issue in");
    // The subject and the HTML name the issue; the plain text says the concrete message instead.
    expect(plainPart(mail.raw)).toContain("Latest event: Payment gateway refused card for order ord_a1b2");
    const issue = await prisma.issue.findFirstOrThrow({ where: { projectId: team.project.id }, select: { id: true } });
    expect(mail.text).toContain(`/projects/${team.project.id}/issues/${issue.id}`);

    const [sent] = await deliveries(team);
    expect(sent).toMatchObject({ status: "sent", attempts: 1, answer: "mail accepted for 1 recipient", target: `email to ${team.owner.user.email}` });

    // More events of the same issue: nothing new to say.
    await seedEvents(team.project.id, [errorEvent("Payment gateway refused card for order ord_c3d4")]);
    expect(await deliveries(team)).toHaveLength(1);
  });

  it("the mail carries the latest event's message as sent, its release and the newest in-app frame; its plain text does not repeat the title", async () => {
    const team = await createTeam("alert-latest");
    const stack = (order: string) =>
      [
        `Error: Payment gateway refused card for order ${order}`,
        "    at request (/srv/app/node_modules/stripe/lib/net.js:310:11)",
        "    at chargeCard (/srv/app/src/payments/charge.ts:42:13)",
        "    at checkout (/srv/app/src/routes/checkout.ts:18:5)",
      ].join("\n");
    const t0 = new Date(Date.now() - 60_000);
    // One bug whose message varies: one issue, titled by its first message; the mail is sent after the second arrived.
    await seedEvents(team.project.id, [errorEvent("Payment gateway refused card for order ord_a1b2", t0, { release: "shop@1.8.0", context: { stack: stack("ord_a1b2") } })]);
    await seedEvents(team.project.id, [errorEvent("Payment gateway refused card for order ord_z9y8", later(t0, 30_000), { release: "shop@1.8.1", context: { stack: stack("ord_z9y8") } })]);
    await process(team, new Date());
    const mail = await smtp.mailTo(team.owner.user.email);
    const plain = plainPart(mail.raw).replace(/\u2024/g, ".").replace(/\uff20/g, "@");
    const issue = await prisma.issue.findFirstOrThrow({ where: { projectId: team.project.id }, select: { title: true } });
    expect(plain.split("\n").slice(0, 3)).toEqual([
      "Latest event: Payment gateway refused card for order ord_z9y8",
      "Release: shop@1.8.1",
      "In your code: chargeCard (/srv/app/src/payments/charge.ts:42)",
    ]);
    expect(plain).toContain("error · 2 events · first seen");
    expect(plain).not.toContain(issue.title.replace(/\./g, "\u2024"));
    expect(plain).not.toContain(issue.title);
  });

  it("only issues at or above the rule's level notify; a warning does not reach an error rule", async () => {
    const { team } = await teamWithRules("alert-level", [webhookRule({ minLevel: "warn" })]);
    await seedEvents(team.project.id, [
      { level: "info", message: "user signed in", at: new Date() },
      { level: "warn", message: "slow query on orders", at: new Date() },
      { level: "error", message: "orders table locked", at: new Date() },
    ]);
    const rows = await deliveries(team);
    expect(rows).toHaveLength(2);
    await process(team, new Date());
    const got = await receiver.waitFor(2);
    expect(got.map((r) => r.body.issue.level).sort()).toEqual(["error", "warn"]);
  });

  it("the generic webhook body names the project, trigger, issue and a dashboard link, and its signature verifies", async () => {
    const { team, rules } = await teamWithRules("alert-json", [webhookRule()]);
    receiver.verifyWith(rules[0]!.signingSecret!);
    await seedEvents(team.project.id, [errorEvent("Inventory sync failed for sku 123"), errorEvent("Inventory sync failed for sku 456")]);
    await process(team, new Date());
    const [hook] = await receiver.waitFor(1);
    expect(hook!.signatureValid).toBe(true);
    expect(hook!.headers["x-telltale-signature"]).toMatch(/^sha256=[0-9a-f]{64}$/);
    expect(hook!.headers["x-telltale-timestamp"]).toMatch(/^\d{10}$/);
    const issue = await prisma.issue.findFirstOrThrow({ where: { projectId: team.project.id } });
    expect(hook!.body).toMatchObject({
      trigger: "new_issue",
      test: false,
      project: { id: team.project.id, name: team.project.name },
      issue: { id: issue.id, title: "Inventory sync failed for sku <num>", level: "error", count: 2, firstSeen: issue.firstSeen.toISOString(), lastSeen: issue.lastSeen.toISOString() },
      url: expect.stringMatching(new RegExp(`/projects/${team.project.id}/issues/${issue.id}$`)),
    });
    expect(hook!.headers["x-telltale-delivery"]).toBe(hook!.body.id);

    // A body changed in transit no longer verifies.
    const { verifySignature } = await import("@/tests/helpers/webhook-receiver");
    expect(verifySignature(rules[0]!.signingSecret!, hook!.raw.replace("Inventory", "Invent0ry"), hook!.headers["x-telltale-signature"])).toBe(false);
  });

  it("Slack and Discord bodies: text and blocks; content and embeds, with client text unable to mention or link", async () => {
    const { team } = await teamWithRules("alert-chat", [webhookRule({}, "slack"), webhookRule({}, "discord")]);
    await seedEvents(team.project.id, [errorEvent("<!channel> @everyone see <https://evil.example|here>")]);
    await process(team, new Date());
    const hooks = await receiver.waitFor(2);
    const slack = hooks.find((h) => "blocks" in h.body)!.body;
    const discord = hooks.find((h) => "embeds" in h.body)!.body;
    expect(slack.text).toContain("New issue in");
    expect(slack.text).not.toContain("<!channel>");
    expect(slack.text).toContain("&lt;!channel&gt;");
    expect(slack.blocks[0]).toMatchObject({ type: "section", text: { type: "mrkdwn" } });
    expect(discord.content).toContain("New issue in");
    expect(discord.allowed_mentions).toEqual({ parse: [] });
    expect(discord.embeds[0]).toMatchObject({ url: expect.stringContaining(`/projects/${team.project.id}/issues/`), color: 0xdc2626 });
  });

  it("a resolved issue that gets an event again notifies a regression rule; within the cool-down, only once", async () => {
    const { team } = await teamWithRules("alert-regress", [webhookRule({ trigger: "regression", minLevel: "info" })]);
    const message = "Cache cluster unreachable";
    await seedEvents(team.project.id, [errorEvent(message)]);
    expect(await deliveries(team)).toHaveLength(0); // new issues are another rule's business
    const issue = await prisma.issue.findFirstOrThrow({ where: { projectId: team.project.id } });
    const resolve = () => prisma.issue.update({ where: { id: issue.id }, data: { status: "resolved", statusChangedAt: new Date() } });

    await resolve();
    await seedEvents(team.project.id, [errorEvent(message)]);
    const t0 = new Date();
    await process(team, t0);
    const [first] = await receiver.waitFor(1);
    expect(first!.body).toMatchObject({ trigger: "regression", issue: { id: issue.id, count: 2 } });

    // Resolved and back again ten minutes later: in the cool-down, suppressed.
    await resolve();
    await seedEvents(team.project.id, [errorEvent(message)]);
    const report = await process(team, later(t0, 10 * MINUTE));
    expect(report).toMatchObject({ sent: 0, suppressed: 1 });
    expect((await deliveries(team)).map((d) => d.status)).toEqual(["sent", "suppressed"]);

    // After the cool-down (60 min by default) it notifies again.
    await resolve();
    await seedEvents(team.project.id, [errorEvent(message)]);
    expect(await process(team, later(t0, 61 * MINUTE))).toMatchObject({ sent: 1 });
    await receiver.waitFor(2);
    expect(receiver.received).toHaveLength(2);
  });

  it("an ignored issue never regresses, so it notifies nothing", async () => {
    const { team } = await teamWithRules("alert-ignored", [webhookRule({ trigger: "regression", minLevel: "info" })]);
    await seedEvents(team.project.id, [errorEvent("noisy bot crawler")]);
    await prisma.issue.updateMany({ where: { projectId: team.project.id }, data: { status: "ignored" } });
    await seedEvents(team.project.id, [errorEvent("noisy bot crawler")]);
    expect(await deliveries(team)).toHaveLength(0);
  });

  it("email recipients are the rule's users who are still members", async () => {
    const team = await createTeam("alert-members");
    await prisma.alertRule.deleteMany({ where: { projectId: team.project.id } });
    const access = await resolveProjectAccess(team.owner.user.id, team.project.id, "owner");
    await createAlertRule(access, { trigger: "new_issue", minLevel: "error", channel: { type: "email", userIds: [team.owner.user.id, team.member.user.id] } });
    await seedEvents(team.project.id, [errorEvent("first outage")]);
    await process(team, new Date());
    const mail = await smtp.mailTo(team.member.user.email);
    expect(mail.to.sort()).toEqual([team.owner.user.email, team.member.user.email].sort());

    // The member leaves: the next mail goes to the owner only.
    await prisma.membership.delete({ where: { projectId_userId: { projectId: team.project.id, userId: team.member.user.id } } });
    await seedEvents(team.project.id, [errorEvent("second outage")]);
    await process(team, new Date());
    const rows = await deliveries(team);
    expect(rows[1]).toMatchObject({ status: "sent", target: `email to ${team.owner.user.email}` });
  });
});

describe("spikes", () => {
  it("an issue's events reaching N in M minutes queue one spike notification, from the per-minute counts", async () => {
    const { team } = await teamWithRules("alert-spike", [webhookRule({ trigger: "spike", minLevel: "error", spike: { count: 5, minutes: 5, scope: "issue" } })]);
    const t0 = new Date();
    // Four in the window, and old events outside it that do not count.
    await seedEvents(team.project.id, [
      ...Array.from({ length: 10 }, () => errorEvent("Checkout 502 from upstream", later(t0, -30 * MINUTE))),
      ...Array.from({ length: 4 }, (_, i) => errorEvent("Checkout 502 from upstream", later(t0, -i * MINUTE))),
    ]);
    expect(await process(team, t0)).toMatchObject({ spikesQueued: 0, sent: 0 });

    await seedEvents(team.project.id, [errorEvent("Checkout 502 from upstream", t0)]);
    expect(await process(team, later(t0, 1000))).toMatchObject({ spikesQueued: 1, sent: 1 });
    const [hook] = await receiver.waitFor(1);
    expect(hook!.body).toMatchObject({ trigger: "spike", spike: { observed: 5, count: 5, minutes: 5, scope: "issue" }, issue: { title: "Checkout <num> from upstream" } });

    // Still above the threshold a minute later: the cool-down holds it back.
    await seedEvents(team.project.id, [errorEvent("Checkout 502 from upstream", later(t0, MINUTE))]);
    expect(await process(team, later(t0, MINUTE + 1000))).toMatchObject({ spikesQueued: 0, sent: 0 });
    expect(receiver.received).toHaveLength(1);
  });

  it("a project spike counts every issue's events at or above the level, ignored issues left out", async () => {
    const { team } = await teamWithRules("alert-pspike", [webhookRule({ trigger: "spike", minLevel: "warn", spike: { count: 6, minutes: 10, scope: "project" } })]);
    const t0 = new Date();
    await seedEvents(team.project.id, [
      ...Array.from({ length: 3 }, (_, i) => ({ level: "warn" as const, message: "disk almost full", at: later(t0, -i * MINUTE) })),
      ...Array.from({ length: 2 }, () => errorEvent("payment failed", t0)),
      ...Array.from({ length: 5 }, () => ({ level: "info" as const, message: "user logged in", at: t0 })),
      ...Array.from({ length: 4 }, () => errorEvent("ignored crawler error", t0)),
    ]);
    await prisma.issue.updateMany({ where: { projectId: team.project.id, title: "ignored crawler error" }, data: { status: "ignored" } });
    expect(await process(team, later(t0, 1000))).toMatchObject({ spikesQueued: 0 }); // 3 warn + 2 error = 5 < 6

    await seedEvents(team.project.id, [errorEvent("payment failed", t0)]);
    expect(await process(team, later(t0, 1000))).toMatchObject({ spikesQueued: 1, sent: 1 });
    const [hook] = await receiver.waitFor(1);
    expect(hook!.body).toMatchObject({ trigger: "spike", issue: null, spike: { observed: 6, scope: "project" } });
  });
});

describe("delivery", () => {
  it("a receiver that fails is retried with exponential backoff until it answers 2xx; every attempt is signed", async () => {
    const { team, rules } = await teamWithRules("alert-retry", [webhookRule()]);
    receiver.verifyWith(rules[0]!.signingSecret!);
    receiver.respondWith((n) => (n <= 2 ? 503 : 200));
    await seedEvents(team.project.id, [errorEvent("search index stale")]);
    const t0 = new Date();

    expect(await process(team, t0)).toMatchObject({ retrying: 1 });
    let [row] = await deliveries(team);
    expect(row).toMatchObject({ status: "pending", attempts: 1, answer: "HTTP 503" });
    expect(row!.nextAttemptAt.getTime()).toBe(t0.getTime() + 30_000);

    expect(await process(team, later(t0, 29_000))).toMatchObject({ sent: 0, retrying: 0 }); // not due yet
    expect(await process(team, later(t0, 30_000))).toMatchObject({ retrying: 1 });
    [row] = await deliveries(team);
    expect(row!.nextAttemptAt.getTime()).toBe(t0.getTime() + 30_000 + 60_000); // doubled

    expect(await process(team, later(t0, 90_000))).toMatchObject({ sent: 1 });
    [row] = await deliveries(team);
    expect(row).toMatchObject({ status: "sent", attempts: 3, answer: "HTTP 200" });
    const hooks = await receiver.waitFor(3);
    expect(hooks.every((h) => h.signatureValid)).toBe(true);
    expect(new Set(hooks.map((h) => h.body.id)).size).toBe(1); // the same notification each time
  });

  it("gives up after ALERTS_MAX_ATTEMPTS, and at once on an answer retrying cannot change (404)", async () => {
    stubEnv("ALERTS_MAX_ATTEMPTS", "2");
    const { team } = await teamWithRules("alert-giveup", [webhookRule()]);
    receiver.respondWith(() => 500);
    await seedEvents(team.project.id, [errorEvent("worker crashed")]);
    const t0 = new Date();
    await process(team, t0);
    expect(await process(team, later(t0, 30_000))).toMatchObject({ failed: 1 });
    expect((await deliveries(team))[0]).toMatchObject({ status: "failed", attempts: 2, answer: "HTTP 500" });

    receiver.respondWith(() => 404);
    await seedEvents(team.project.id, [errorEvent("another crash")]);
    expect(await process(team, later(t0, 60_000))).toMatchObject({ failed: 1 });
    expect((await deliveries(team))[1]).toMatchObject({ status: "failed", attempts: 1, answer: "HTTP 404" });
  });

  it("a receiver that never answers costs ALERTS_WEBHOOK_TIMEOUT_MS, then the row waits for its retry", async () => {
    stubEnv("ALERTS_WEBHOOK_TIMEOUT_MS", "300");
    const { team } = await teamWithRules("alert-slow", [webhookRule()]);
    receiver.respondWith(() => "hang");
    await seedEvents(team.project.id, [errorEvent("queue backlog")]);
    expect(await process(team, new Date())).toMatchObject({ retrying: 1 });
    expect((await deliveries(team))[0]).toMatchObject({ status: "pending", answer: "no answer within 300 ms" });
  });

  it("two processors at once send each notification once (SKIP LOCKED)", async () => {
    const { team } = await teamWithRules("alert-race", [webhookRule()]);
    await seedEvents(team.project.id, Array.from({ length: 8 }, (_, i) => errorEvent(`distinct failure`, new Date(), { fingerprint: ["race", String(i)] })));
    const now = new Date();
    const reports = await Promise.all([processAlerts({ now, projectIds: [team.project.id], batchSize: 3 }), processAlerts({ now, projectIds: [team.project.id], batchSize: 3 })]);
    expect(reports[0]!.sent + reports[1]!.sent).toBe(8);
    await receiver.waitFor(8);
    expect(receiver.received).toHaveLength(8);
    expect(new Set(receiver.received.map((h) => h.body.id)).size).toBe(8);
  });

  it("a storm of new issues past the per-project cap becomes one digest; more within 15 minutes wait for the next", async () => {
    stubEnv("ALERTS_MAX_PER_PROJECT_PER_HOUR", "3");
    const { team } = await teamWithRules("alert-storm", [webhookRule()]);
    await seedEvents(team.project.id, Array.from({ length: 40 }, (_, i) => errorEvent("deploy broke everything", new Date(), { fingerprint: ["storm", String(i)] })));
    const t0 = new Date();
    expect(await process(team, t0)).toMatchObject({ sent: 4, digested: 37 });
    const hooks = await receiver.waitFor(4);
    const digest = hooks.find((h) => h.body.digest)!.body;
    expect(digest).toMatchObject({ trigger: "new_issue", issue: null, digest: { total: 37 } });
    expect(digest.digest.issues.length).toBeGreaterThan(0);
    const rows = await deliveries(team);
    expect(rows.filter((r) => r.status === "digested").every((r) => r.digestId === rows.find((d) => d.kind === "digest")!.id)).toBe(true);

    // A second wave ten minutes later: over the cap still, and the rule's digest was just sent.
    await seedEvents(team.project.id, Array.from({ length: 5 }, (_, i) => errorEvent("second wave", new Date(), { fingerprint: ["wave", String(i)] })));
    expect(await process(team, later(t0, 10 * MINUTE))).toMatchObject({ sent: 0, digested: 0 });
    expect(await process(team, later(t0, 15 * MINUTE))).toMatchObject({ sent: 1, digested: 5 });
    const all = await receiver.waitFor(5);
    expect(all[4]!.body.digest.total).toBe(5);
  });

  it("by email: a storm under the default rule reaches the owner as a few mails and one digest mail, not one per issue", async () => {
    stubEnv("ALERTS_MAX_PER_PROJECT_PER_HOUR", "3");
    const team = await createTeam("alert-storm-mail"); // the default rules: new errors and regressions, mailed to the owner
    const owner = team.owner.user.email;
    const before = smtp.mails.filter((m) => m.to.includes(owner)).length;
    await seedEvents(team.project.id, Array.from({ length: 30 }, (_, i) => errorEvent(`worker ${i} lost its lease`, new Date(), { fingerprint: ["mail-storm", String(i)] })));
    expect(await process(team, new Date())).toMatchObject({ sent: 4, digested: 27 });
    await vi.waitFor(() => expect(smtp.mails.filter((m) => m.to.includes(owner)).length - before).toBe(4), { timeout: 10_000 });
    const mails = smtp.mails.filter((m) => m.to.includes(owner)).slice(before);
    const digest = mails.filter((m) => m.text.includes("27 more new issues"));
    expect(digest).toHaveLength(1);
    expect(digest[0]!.text).toContain("worker <num> lost its lease (error, 1 event)");
  });

  it("a deleted rule's queued notifications are cancelled, and the log keeps what it sent", async () => {
    const { team, rules } = await teamWithRules("alert-deleted", [webhookRule()]);
    await seedEvents(team.project.id, [errorEvent("first")]);
    await process(team, new Date());
    await seedEvents(team.project.id, [errorEvent("second")]);
    const { deleteAlertRule } = await import("@/lib/alerts/rules");
    await deleteAlertRule(await resolveProjectAccess(team.owner.user.id, team.project.id, "owner"), rules[0]!.rule.id);
    expect(await process(team, new Date())).toMatchObject({ sent: 0 });
    expect((await deliveries(team)).map((d) => [d.status, d.ruleId])).toEqual([
      ["sent", null],
      ["cancelled", null],
    ]);
  });

  // Here, not beside the other routes: the cron route processes every
  // project, and this file's tests (which run one after another) are the
  // only ones whose outbox rows wait for a processor they call themselves.
  it("POST /api/cron/alerts needs CRON_SECRET, then delivers what is due in every project", async () => {
    const secret = "cron-secret-cron-secret-cron-secret-0123";
    const { team } = await teamWithRules("alert-cron", [webhookRule()]);
    await seedEvents(team.project.id, [errorEvent("cron delivers this")]);
    const call = (authorization?: string) =>
      callRoute(cronAlerts, new Request("http://localhost/api/cron/alerts", { method: "POST", headers: authorization ? { authorization } : {} }));
    expect((await call(`Bearer ${secret}`)).status).toBe(401); // CRON_SECRET unset: the route is off
    stubEnv("CRON_SECRET", secret);
    expect((await call()).status).toBe(401);
    expect((await call("Bearer wrong")).status).toBe(401);
    const ok = await call(`Bearer ${secret}`);
    expect(ok.status).toBe(200);
    expect(ok.body).toMatchObject({ sent: expect.any(Number), retrying: expect.any(Number), failed: expect.any(Number) });
    const [hook] = await receiver.waitFor(1);
    expect(hook!.body.issue.title).toBe("cron delivers this");
    expect((await deliveries(team))[0]).toMatchObject({ status: "sent" });
  });

  it("POST /api/cron/alerts answers within the delivery budget while a webhook never answers", async () => {
    const secret = "cron-secret-cron-secret-cron-secret-0123";
    stubEnv("CRON_SECRET", secret);
    // Each send may wait two minutes; the job's budget is far shorter.
    stubEnv("ALERTS_WEBHOOK_TIMEOUT_MS", "120000");
    const dead = await startSilentServer();
    try {
      const { team } = await teamWithRules("alert-cron-dead", [webhookRule({ channel: { type: "webhook", url: dead.url, format: "json" } })]);
      await seedEvents(team.project.id, Array.from({ length: 5 }, (_, i) => errorEvent("never answered", new Date(), { fingerprint: ["cron-dead", String(i)] })));
      const budgetMs = findJob("alerts")!.budgetMs;
      const started = Date.now();
      const answer = await callRoute(cronAlerts, new Request("http://localhost/api/cron/alerts", { method: "POST", headers: { authorization: `Bearer ${secret}` } }));
      const tookMs = Date.now() - started;
      expect(answer.status).toBe(200);
      expect(answer.body).toMatchObject({ complete: false });
      expect(dead.connections).toBeGreaterThan(0); // it did try the dead receiver
      // Within the budget and its grace, not after the receiver's two minutes.
      expect(tookMs).toBeLessThan(budgetMs + 5_000);
      expect((await deliveries(team)).every((d) => d.status === "pending")).toBe(true);
    } finally {
      await dead.close();
    }
  });
});

/** The text/plain part of a raw mail, without its MIME headers, quoted-printable decoded as UTF-8. */
function plainPart(raw: string): string {
  const start = raw.search(/^Content-Type: text\/plain/im);
  expect(start, raw).toBeGreaterThanOrEqual(0);
  const body = raw.slice(start).split(/\r?\n\r?\n/).slice(1).join("\n\n");
  const end = body.search(/^--/m);
  const qp = (end === -1 ? body : body.slice(0, end)).replace(/=\r?\n/g, "");
  const bytes: number[] = [];
  for (let i = 0; i < qp.length; i++) {
    const hex = qp[i] === "=" ? /^[0-9A-F]{2}/.exec(qp.slice(i + 1, i + 3)) : null;
    if (hex) {
      bytes.push(parseInt(hex[0], 16));
      i += 2;
    } else bytes.push(...Buffer.from(qp[i]!, "utf8"));
  }
  return Buffer.from(bytes).toString("utf8").replace(/\r\n/g, "\n");
}
