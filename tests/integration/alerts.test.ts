import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { DELETE as deleteRule } from "@/app/api/projects/[id]/alerts/[ruleId]/route";
import { POST as testRule } from "@/app/api/projects/[id]/alerts/[ruleId]/test/route";
import { GET as listDeliveries } from "@/app/api/projects/[id]/alerts/deliveries/route";
import { GET as listRules, POST as createRule } from "@/app/api/projects/[id]/alerts/route";
import { prisma } from "@/lib/db/client";
import { stubEnv, unstubEnvs } from "@/tests/helpers/env";
import { sendEvent } from "@/tests/helpers/ingest";
import { apiRequest, callRoute, createTeam, startSmtpSink } from "@/tests/helpers/session";
import { startWebhookReceiver, verifySignature } from "@/tests/helpers/webhook-receiver";

/** The alerts API: rules, the delivery log, "send test", the cron route, and delivery right after ingestion. */

type Team = Awaited<ReturnType<typeof createTeam>>;
type Who = "owner" | "member" | "outsider";

let smtp: Awaited<ReturnType<typeof startSmtpSink>>;
let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;

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
  // Delivery after ingestion is tested on purpose below; elsewhere nothing runs by itself.
  stubEnv("ALERTS_CRON_ONLY", "true");
});
afterEach(async () => {
  unstubEnvs();
  await receiver.close();
});

const rulesPath = (team: Team) => `/api/projects/${team.project.id}/alerts`;

function post(team: Team, body: unknown, who: Who = "owner", headers: Record<string, string> = {}) {
  return callRoute(createRule, apiRequest(rulesPath(team), { method: "POST", cookie: team[who].cookie, body, headers }), { id: team.project.id });
}
function list(team: Team, who: Who | null = "owner") {
  return callRoute(listRules, apiRequest(rulesPath(team), { cookie: who ? team[who].cookie : null }), { id: team.project.id });
}
function remove(team: Team, ruleId: string, who: Who = "owner") {
  return callRoute(deleteRule, apiRequest(`${rulesPath(team)}/${ruleId}`, { method: "DELETE", cookie: team[who].cookie }), { id: team.project.id, ruleId });
}
function sendTest(team: Team, ruleId: string, who: Who = "owner") {
  return callRoute(testRule, apiRequest(`${rulesPath(team)}/${ruleId}/test`, { method: "POST", cookie: team[who].cookie }), { id: team.project.id, ruleId });
}
function log(team: Team, query = "", who: Who = "owner") {
  return callRoute(listDeliveries, apiRequest(`${rulesPath(team)}/deliveries${query}`, { cookie: team[who].cookie }), { id: team.project.id });
}

const webhook = (over: Record<string, unknown> = {}) => ({ trigger: "new_issue", minLevel: "error", channel: { type: "webhook", url: receiver.url, format: "json" }, ...over });

describe("rules", () => {
  it("a new project has the default rules: new error issues and regressions, by email to its owner", async () => {
    const team = await createTeam("alerts-defaults");
    const { status, body } = await list(team);
    expect(status).toBe(200);
    expect(body.rules).toMatchObject([
      { trigger: "new_issue", minLevel: "error", spike: null, channel: { type: "email", userIds: [team.owner.user.id] } },
      { trigger: "regression", minLevel: "info", spike: null, channel: { type: "email", userIds: [team.owner.user.id] } },
    ]);
  });

  it("tenant matrix: owners create and delete, members read, outsiders get 404, signed-out 401, cross-site 403", async () => {
    const team = await createTeam("alerts-tenancy");
    const other = await createTeam("alerts-tenancy-other");

    expect((await post(team, webhook(), "member")).status).toBe(403);
    expect((await post(team, webhook(), "outsider")).status).toBe(404);
    expect((await post(team, webhook(), "owner", { origin: "https://evil.example" })).status).toBe(403);
    expect((await list(team, "outsider")).status).toBe(404);
    expect((await list(team, null)).status).toBe(401);

    const created = await post(team, webhook());
    expect(created.status).toBe(201);
    const ruleId = created.body.id as string;

    // Members see the rule, with the webhook's origin only; owners see the URL.
    const asMember = await list(team, "member");
    expect(asMember.status).toBe(200);
    expect(asMember.body.rules.at(-1).channel).toEqual({ type: "webhook", url: `${new URL(receiver.url).origin}/…`, format: "json" });
    expect((await list(team)).body.rules.at(-1).channel.url).toBe(receiver.url);

    // Another project's owner can neither see nor delete it, nor reach it through their own project.
    expect((await list(other)).body.rules.map((r: { id: string }) => r.id)).not.toContain(ruleId);
    expect((await remove(other, ruleId)).status).toBe(404);
    expect((await callRoute(deleteRule, apiRequest(`${rulesPath(team)}/${ruleId}`, { method: "DELETE", cookie: other.owner.cookie }), { id: team.project.id, ruleId })).status).toBe(404);
    expect((await sendTest(other, ruleId)).status).toBe(404);
    expect((await log(team, "", "outsider")).status).toBe(404);

    expect((await remove(team, ruleId, "member")).status).toBe(403);
    expect((await sendTest(team, ruleId, "member")).status).toBe(403);
    expect((await remove(team, ruleId)).status).toBe(204);
    expect((await remove(team, ruleId)).status).toBe(404);
  });

  it("a webhook rule's signing secret is answered once, at creation, and stored sealed", async () => {
    const team = await createTeam("alerts-secret");
    const { status, body } = await post(team, webhook({ trigger: "spike", minLevel: "warn", spike: { count: 50, minutes: 5 }, channel: { type: "webhook", url: receiver.url, format: "slack" } }));
    expect(status).toBe(201);
    expect(body).toMatchObject({ trigger: "spike", minLevel: "warn", spike: { count: 50, minutes: 5, scope: "issue" }, channel: { type: "webhook", format: "slack" } });
    expect(body.signingSecret).toMatch(/^whsec_[A-Za-z0-9_-]{43}$/);
    const listed = await list(team);
    expect(JSON.stringify(listed.body)).not.toContain(body.signingSecret);
    const stored = await prisma.alertRule.findUniqueOrThrow({ where: { id: body.id } });
    expect(stored.webhookSecret).not.toContain(body.signingSecret);
    expect(stored.webhookSecret).not.toBeNull();

    // An email rule has no secret.
    const email = await post(team, { trigger: "regression", minLevel: "info", channel: { type: "email", userIds: [team.member.user.id] } });
    expect(email.status).toBe(201);
    expect(email.body.signingSecret).toBeUndefined();
  });

  it("bad input is a 400 listing every problem", async () => {
    const team = await createTeam("alerts-validation");
    const problems = async (body: unknown) => {
      const res = await post(team, body);
      expect(res.status).toBe(400);
      expect(res.body.code).toBe("validation_failed");
      return Object.fromEntries((res.body.errors as { path: string; message: string }[]).map((e) => [e.path, e.message]));
    };
    expect(await problems({ trigger: "sometimes", minLevel: "fatal", channel: { type: "pigeon" }, extra: 1 })).toMatchObject({
      trigger: expect.any(String),
      minLevel: expect.any(String),
      "channel.type": expect.any(String),
      extra: "Unknown field.",
    });
    expect(await problems(webhook({ trigger: "spike" }))).toMatchObject({ spike: "A spike rule needs spike: {count, minutes}." });
    expect(await problems(webhook({ spike: { count: 5, minutes: 5 } }))).toMatchObject({ spike: "Only a spike rule takes spike." });
    expect(await problems(webhook({ trigger: "spike", spike: { count: 0, minutes: 2000, scope: "galaxy" } }))).toMatchObject({
      "spike.count": expect.stringContaining("at least 1"),
      "spike.minutes": expect.stringContaining("at most 1,440"),
      "spike.scope": expect.any(String),
    });
    expect(await problems(webhook({ channel: { type: "webhook", url: "ftp://example.com/hook", format: "json" } }))).toMatchObject({
      "channel.url": "Must be an http:// or https:// URL.",
    });
    expect(await problems(webhook({ channel: { type: "webhook", url: "not a url", format: "teams" } }))).toMatchObject({
      "channel.url": expect.any(String),
      "channel.format": "Must be json, slack or discord.",
    });
    expect(await problems({ trigger: "new_issue", minLevel: "error", channel: { type: "email", userIds: [] } })).toMatchObject({
      "channel.userIds": "Choose at least one member to email.",
    });
    // Only members can be recipients: no mailing strangers through someone else's server.
    expect(await problems({ trigger: "new_issue", minLevel: "error", channel: { type: "email", userIds: [team.member.user.id, team.outsider.user.id] } })).toEqual({
      "channel.userIds.1": "Not a member of this project.",
    });
    const notJson = await callRoute(createRule, apiRequest(rulesPath(team), { method: "POST", cookie: team.owner.cookie, body: "{" }), { id: team.project.id });
    expect(notJson.status).toBe(400);
  });

  it("refuses webhooks to loopback, private and link-local addresses unless ALERTS_ALLOW_PRIVATE_WEBHOOKS", async () => {
    stubEnv("ALERTS_ALLOW_PRIVATE_WEBHOOKS", "false");
    const team = await createTeam("alerts-ssrf");
    for (const url of ["http://127.0.0.1:8080/x", "http://localhost/x", "http://169.254.169.254/latest/meta-data", "http://10.1.2.3/", "http://[::1]/", "http://[::ffff:127.0.0.1]/", "https://192.168.1.1/"]) {
      const res = await post(team, webhook({ channel: { type: "webhook", url, format: "json" } }));
      expect(res.status, url).toBe(400);
      expect(res.body.errors[0].message).toContain("loopback, private or link-local");
    }
    expect((await post(team, webhook({ channel: { type: "webhook", url: "https://hooks.example.com/services/T0/B0/x", format: "slack" } }))).status).toBe(201);
  });

  it("a name that resolves to a private address is refused at delivery, on the address actually connected to", async () => {
    const team = await createTeam("alerts-rebind");
    // Made while the guard was off; "localhost" is a name, resolved only when sending.
    const created = await post(team, webhook({ channel: { type: "webhook", url: `http://localhost:${new URL(receiver.url).port}/hook`, format: "json" } }));
    expect(created.status).toBe(201);
    stubEnv("ALERTS_ALLOW_PRIVATE_WEBHOOKS", "false");
    const { body } = await sendTest(team, created.body.id);
    expect(body.delivery).toMatchObject({ status: "failed", answer: "refused: the host resolves to a loopback, private or link-local address" });
    expect(receiver.received).toHaveLength(0);
  });

  it("a project has at most 50 rules", async () => {
    const team = await createTeam("alerts-cap");
    await prisma.alertRule.createMany({
      data: Array.from({ length: 48 }, () => ({ projectId: team.project.id, trigger: "new_issue" as const, minLevel: "error" as const, channel: "email" as const, emailUserIds: [team.owner.user.id] })),
    });
    const full = await post(team, webhook());
    expect(full.status).toBe(409);
  });
});

describe("send test and the delivery log", () => {
  it("sends a signed test to a webhook and a test mail, and logs both for members to read", async () => {
    const team = await createTeam("alerts-test");
    const hook = await post(team, webhook({ channel: { type: "webhook", url: receiver.url, format: "discord" } }));
    receiver.verifyWith(hook.body.signingSecret);
    const sent = await sendTest(team, hook.body.id);
    expect(sent.status).toBe(200);
    expect(sent.body.delivery).toMatchObject({ kind: "test", status: "sent", answer: "HTTP 200", attempts: 1, channel: `discord webhook to 127.0.0.1` });
    const [received] = await receiver.waitFor(1);
    expect(received!.signatureValid).toBe(true);
    expect(received!.body.content).toContain("Test notification for");

    const rules = (await list(team)).body.rules as { id: string; channel: { type: string } }[];
    const mailRule = rules.find((r) => r.channel.type === "email")!;
    const mailed = await sendTest(team, mailRule.id);
    expect(mailed.body.delivery).toMatchObject({ kind: "test", status: "sent", channel: `email to ${team.owner.user.email}` });
    expect((await smtp.mailTo(team.owner.user.email)).text).toContain("Test notification for");

    // A failing receiver: logged as failed with its answer, not retried.
    receiver.respondWith(() => 500);
    expect((await sendTest(team, hook.body.id)).body.delivery).toMatchObject({ status: "failed", answer: "HTTP 500", nextAttemptAt: null });

    const page = await log(team, "", "member");
    expect(page.status).toBe(200);
    expect(page.body.deliveries.map((d: { status: string }) => d.status)).toEqual(["failed", "sent", "sent"]);
    expect(page.body.nextCursor).toBeNull();
  });

  it("pages the log with a cursor; a malformed cursor or limit is a 400", async () => {
    const team = await createTeam("alerts-log");
    await prisma.alertDelivery.createMany({
      data: Array.from({ length: 5 }, (_, i) => ({ projectId: team.project.id, kind: "test" as const, status: "sent" as const, createdAt: new Date(Date.now() - i * 1000) })),
    });
    const first = await log(team, "?limit=2");
    expect(first.body.deliveries).toHaveLength(2);
    const second = await log(team, `?limit=2&cursor=${first.body.nextCursor}`);
    const third = await log(team, `?limit=2&cursor=${second.body.nextCursor}`);
    expect(third.body.nextCursor).toBeNull();
    const ids = [...first.body.deliveries, ...second.body.deliveries, ...third.body.deliveries].map((d: { id: string }) => d.id);
    expect(new Set(ids).size).toBe(5);
    expect((await log(team, "?cursor=nope")).status).toBe(400);
    expect((await log(team, "?limit=0")).status).toBe(400);
    expect((await log(team, "?limit=201")).status).toBe(400);
  });
});

describe("processing", () => {
  it("without ALERTS_CRON_ONLY, the ingest request that created an issue has it delivered right after its answer", async () => {
    stubEnv("ALERTS_CRON_ONLY", "false");
    const team = await createTeam("alerts-after");
    const created = await post(team, webhook());
    receiver.verifyWith(created.body.signingSecret);
    const res = await sendEvent(team.project.apiKey, { projectId: team.project.id, level: "error", message: "delivered after the answer" });
    expect(res.status).toBe(201);
    const [hook] = await receiver.waitFor(1);
    expect(hook!.signatureValid).toBe(true);
    expect(verifySignature("whsec_wrong", hook!.raw, hook!.headers["x-telltale-signature"])).toBe(false);
    expect(hook!.body).toMatchObject({ trigger: "new_issue", issue: { title: "delivered after the answer" } });
    await expect.poll(async () => (await log(team)).body.deliveries.find((d: { kind: string; channel: string }) => d.kind === "new_issue" && d.channel.startsWith("json"))?.status).toBe("sent");
  });
});
