import { afterEach, describe, expect, it, vi } from "vitest";
import { processAlerts } from "@/lib/alerts/processor";
import { listAlertDeliveries } from "@/lib/alerts/deliveries";
import { resolveProjectAccess } from "@/lib/auth/access";
import { prisma } from "@/lib/db/client";
import { sendMail } from "@/lib/mail/send-mail";
import { seedEvents } from "@/tests/helpers/events";
import { stubEnv, unstubEnvs } from "@/tests/helpers/env";
import { createTeam } from "@/tests/helpers/session";
import { startSilentServer } from "@/tests/helpers/webhook-receiver";

/**
 * Alert mail without a mail server in development (printed to the log and
 * shown as such, never "failed"), and with a mail server that goes quiet
 * (the send ends at its deadline, before the claim's lease: no second copy).
 */

afterEach(() => {
  unstubEnvs();
  vi.restoreAllMocks();
});

const deliveries = (projectId: string) => prisma.alertDelivery.findMany({ where: { projectId }, orderBy: [{ createdAt: "asc" }, { id: "asc" }] });

describe("no EMAIL_SERVER", () => {
  it("in development, an alert mail is printed to the server log and logged as `logged`, not failed", async () => {
    stubEnv("EMAIL_SERVER", "");
    stubEnv("NODE_ENV", "development");
    stubEnv("TELLTALE_LOG", undefined);
    const printed: string[] = [];
    vi.spyOn(console, "info").mockImplementation((line: unknown) => void printed.push(String(line)));
    const team = await createTeam("alert-dev-mail"); // its default rule mails the owner
    await seedEvents(team.project.id, [{ level: "error", message: "Inventory sync failed", at: new Date() }]);

    expect(await processAlerts({ now: new Date(), projectIds: [team.project.id] })).toMatchObject({ logged: 1, sent: 0, failed: 0 });
    const [row] = await deliveries(team.project.id);
    expect(row).toMatchObject({ status: "logged", answer: expect.stringMatching(/^logged \(development\)/) });
    const line = printed.find((l) => l.includes("DEV MAIL"));
    expect(line).toContain(team.owner.user.email);
    expect(line).toContain("Inventory sync failed");
    // The log as the settings page and the API show it.
    const access = await resolveProjectAccess(team.owner.user.id, team.project.id, "owner");
    expect((await listAlertDeliveries(access)).deliveries[0]).toMatchObject({ status: "logged", channel: `email to ${team.owner.user.email}` });
  });

  it("in production it fails, saying EMAIL_SERVER is not set", async () => {
    stubEnv("EMAIL_SERVER", "");
    stubEnv("NODE_ENV", "production");
    const team = await createTeam("alert-prod-mail");
    await seedEvents(team.project.id, [{ level: "error", message: "no mail server here", at: new Date() }]);
    expect(await processAlerts({ now: new Date(), projectIds: [team.project.id] })).toMatchObject({ failed: 1 });
    expect((await deliveries(team.project.id))[0]).toMatchObject({ status: "failed", answer: "EMAIL_SERVER is not set: no mail can be sent" });
  });
});

describe("a mail server that goes quiet", () => {
  // Greets and answers EHLO, then never answers MAIL FROM.
  const quietGreeting = ["220 quiet.example ESMTP", "250 quiet.example"];

  it("sendMail gives up at its deadline, whatever stage the conversation is in", async () => {
    const quiet = await startSilentServer(quietGreeting);
    try {
      stubEnv("EMAIL_SERVER", `smtp://127.0.0.1:${quiet.port}`);
      await expect(sendMail({ to: "a@example.test", subject: "s", text: "t", html: "<p>t</p>" }, { timeoutMs: 300 })).rejects.toMatchObject({ code: "ETIMEDOUT" });
      expect(quiet.connections).toBe(1);
      await expect.poll(() => quiet.open).toBe(0); // the connection is closed, not left talking
    } finally {
      await quiet.close();
    }
  });

  it("an alert mail to it ends within the pass, waits for its retry, and is not sent twice meanwhile", async () => {
    const quiet = await startSilentServer(quietGreeting);
    try {
      stubEnv("EMAIL_SERVER", `smtp://127.0.0.1:${quiet.port}`);
      const team = await createTeam("alert-quiet-mail");
      await seedEvents(team.project.id, [{ level: "error", message: "mail server asleep", at: new Date() }]);
      const now = new Date();
      expect(await processAlerts({ now, projectIds: [team.project.id], budgetMs: 2_000 })).toMatchObject({ retrying: 1 });
      const [row] = await deliveries(team.project.id);
      expect(row).toMatchObject({ status: "pending", attempts: 1, answer: "mail not sent (ETIMEDOUT)" });
      expect(row!.nextAttemptAt.getTime()).toBeGreaterThan(now.getTime());
      // Another pass before the retry is due sends nothing: one connection, one attempt.
      expect(await processAlerts({ now, projectIds: [team.project.id], budgetMs: 2_000 })).toMatchObject({ retrying: 0, sent: 0 });
      expect(quiet.connections).toBe(1);
    } finally {
      await quiet.close();
    }
  });
});
