import { spawn, type ChildProcess } from "node:child_process";
import { afterEach, beforeEach, expect, it } from "vitest";
import { processAlerts } from "@/lib/alerts/processor";
import { createAlertRule } from "@/lib/alerts/rules";
import { prisma } from "@/lib/db/client";
import { resolveProjectAccess } from "@/lib/auth/access";
import { stubEnv, unstubEnvs } from "@/tests/helpers/env";
import { createTeam } from "@/tests/helpers/session";
import { startWebhookReceiver } from "@/tests/helpers/webhook-receiver";

/**
 * "Nothing is lost if the process dies": the real POST /api/events handler
 * runs in a child process that is SIGKILLed after the outbox row committed
 * with the events; another processor (this process, as the restarted
 * instance, with its clock moved past the dead one's lease) delivers it.
 */

let receiver: Awaited<ReturnType<typeof startWebhookReceiver>>;
let child: ChildProcess | undefined;

beforeEach(async () => {
  receiver = await startWebhookReceiver();
  stubEnv("ALERTS_ALLOW_PRIVATE_WEBHOOKS", "true");
});
afterEach(async () => {
  if (child && child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  unstubEnvs();
  await receiver.close();
});

async function startIngestServer(env: Record<string, string>): Promise<number> {
  child = spawn(process.execPath, ["--import", "tsx", "tests/helpers/ingest-server.ts"], {
    env: { ...process.env, TELLTALE_LOG: "silent", INGEST_RATE_LIMIT: "0", ALERTS_ALLOW_PRIVATE_WEBHOOKS: "true", ...env },
    stdio: ["ignore", "pipe", "inherit"],
  });
  const started = child;
  return new Promise<number>((resolve, reject) => {
    started.stdout!.on("data", (d: Buffer) => {
      const m = /listening (\d+)/.exec(d.toString());
      if (m) resolve(Number(m[1]));
    });
    started.once("exit", (code) => reject(new Error(`server exited early (${code})`)));
  });
}

async function kill(): Promise<void> {
  const dying = child!;
  const exited = new Promise((resolve) => dying.once("exit", resolve));
  dying.kill("SIGKILL");
  await exited;
}

async function teamWithWebhook(label: string) {
  const team = await createTeam(label);
  await prisma.alertRule.deleteMany({ where: { projectId: team.project.id } });
  const access = await resolveProjectAccess(team.owner.user.id, team.project.id, "owner");
  await createAlertRule(access, { trigger: "new_issue", minLevel: "error", channel: { type: "webhook", url: receiver.url, format: "json" } });
  return team;
}

async function ingest(port: number, team: Awaited<ReturnType<typeof createTeam>>, message: string): Promise<number> {
  const res = await fetch(`http://127.0.0.1:${port}/api/events`, {
    method: "POST",
    headers: { authorization: `Bearer ${team.project.apiKey}`, "content-type": "application/json" },
    body: JSON.stringify({ projectId: team.project.id, level: "error", message }),
  });
  return res.status;
}

const outbox = (projectId: string) => prisma.alertDelivery.findMany({ where: { projectId } });

it("a notification committed with its event is delivered after the process is killed before sending it", async () => {
  const team = await teamWithWebhook("alerts-kill-queued");
  // Cron-only: the killed process never starts delivering.
  const port = await startIngestServer({ ALERTS_CRON_ONLY: "true" });
  expect(await ingest(port, team, "killed before delivery")).toBe(201);
  await kill();

  expect(await outbox(team.project.id)).toMatchObject([{ status: "pending", attempts: 0 }]);
  expect(await processAlerts({ projectIds: [team.project.id] })).toMatchObject({ sent: 1 });
  const [hook] = await receiver.waitFor(1);
  expect(hook!.body.issue.title).toBe("killed before delivery");
}, 60_000);

it("a notification whose sender was killed mid-delivery is sent again once the claim's lease runs out", async () => {
  const team = await teamWithWebhook("alerts-kill-sending");
  // The first delivery never gets an answer: the process dies while it waits.
  receiver.respondWith((n) => (n === 1 ? "hang" : 200));
  const port = await startIngestServer({ ALERTS_CRON_ONLY: "false" });
  const before = new Date();
  expect(await ingest(port, team, "killed during delivery")).toBe(201);
  await receiver.waitFor(1); // the child is sending it now
  await kill();

  const [claimed] = await outbox(team.project.id);
  expect(claimed).toMatchObject({ status: "sending", attempts: 1 });
  // While the dead process's lease holds, nobody else sends it (no double sending by a live one)...
  expect(await processAlerts({ projectIds: [team.project.id], now: new Date() })).toMatchObject({ sent: 0 });
  // ...and after it, the restarted side does.
  const afterLease = new Date(Math.max(Date.now(), claimed!.nextAttemptAt.getTime()) + 1000);
  expect(claimed!.nextAttemptAt.getTime()).toBeGreaterThan(before.getTime());
  expect(await processAlerts({ projectIds: [team.project.id], now: afterLease })).toMatchObject({ sent: 1 });
  const hooks = await receiver.waitFor(2);
  expect(hooks[1]!.body.id).toBe(hooks[0]!.body.id); // the same notification: at least once
  expect((await outbox(team.project.id))[0]).toMatchObject({ status: "sent", attempts: 2, answer: "HTTP 200" });
}, 60_000);
