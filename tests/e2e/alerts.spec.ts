import { expect, test } from "@playwright/test";
import { startWebhookReceiver } from "@/tests/helpers/webhook-receiver";
import { mailsTo, decodeQuotedPrintable } from "./support/mailbox";
import { createProject, sendEvents } from "./support/projects";
import { screenshot, signInNewUser, watchReactErrors } from "./support/session";

test("an owner adds a webhook rule in the settings, events arrive, the webhook and the mail are received and the log shows both", async ({ page, request }, testInfo) => {
  const receiver = await startWebhookReceiver();
  const reactErrors = watchReactErrors(page);
  try {
    const email = await signInNewUser(page, "alerts");
    const project = await createProject(page, "Alerting shop");

    await page.goto(`/projects/${project.id}/settings`);
    const rules = page.getByRole("list", { name: "Alert rules" });
    // A new project's defaults: new errors and regressions, mailed to its owner.
    await expect(rules.getByRole("listitem")).toHaveCount(2);
    await expect(rules.getByRole("listitem", { name: "New issues (errors)" })).toContainText(`Email to ${email}`);

    await test.step("add a webhook rule; its signing secret is shown once", async () => {
      const form = page.getByRole("form", { name: "New alert rule" });
      await form.getByLabel("Notify on").selectOption("new_issue");
      await form.getByLabel("Level").selectOption("warn");
      await form.getByLabel("Send to").selectOption("webhook");
      await form.getByLabel("Webhook URL").fill(receiver.url);
      await form.getByLabel("Format").selectOption("json");
      await form.getByRole("button", { name: "Add rule" }).click();
      const secret = page.getByLabel("Signing secret", { exact: true });
      await expect(secret).toHaveText(/^whsec_/);
      receiver.verifyWith((await secret.textContent())!.trim());
      await expect(rules.getByRole("listitem")).toHaveCount(3);
      await expect(rules.getByRole("listitem", { name: "New issues (warnings and errors)" })).toContainText(`JSON webhook: ${receiver.url}`);
      await screenshot(page, testInfo, "desktop-alerts-rule-added");
    });

    await test.step("events arrive: the webhook and the mail are delivered", async () => {
      await sendEvents(request, project, [
        { level: "error", message: "Checkout failed: card processor timeout after 30000ms" },
        { level: "error", message: "Checkout failed: card processor timeout after 12000ms" },
      ]);
      const [hook] = await receiver.waitFor(1, 20_000);
      expect(hook!.signatureValid).toBe(true);
      expect(hook!.body).toMatchObject({
        trigger: "new_issue",
        project: { id: project.id, name: "Alerting shop" },
        issue: { title: "Checkout failed: card processor timeout after <duration>", level: "error" },
      });
      expect(hook!.body.url).toMatch(new RegExp(`/projects/${project.id}/issues/[0-9a-f-]{36}$`));
      await expect.poll(() => mailsTo(email).filter((m) => decodeQuotedPrintable(m.raw).includes("New issue in")).length, { timeout: 20_000 }).toBe(1);
    });

    await test.step("send test from the rule, then the log shows every delivery", async () => {
      const webhookRule = rules.getByRole("listitem", { name: "New issues (warnings and errors)" });
      await webhookRule.getByRole("button", { name: "Send test" }).click();
      await expect(webhookRule.getByRole("status")).toHaveText("Test sent (HTTP 200).");
      await receiver.waitFor(2);
      expect(receiver.received[1]!.body).toMatchObject({ test: true });

      await page.reload();
      const log = page.getByRole("list", { name: "Alert deliveries" });
      await expect(log.getByRole("listitem")).toHaveCount(3);
      await expect(log.getByRole("listitem").filter({ has: page.getByText("Test", { exact: true }) })).toContainText("json webhook to 127.0.0.1 · HTTP 200");
      await expect(log.getByRole("listitem").filter({ hasText: "json webhook" }).filter({ hasText: "New issue" })).toContainText("sent");
      await expect(log.getByRole("listitem").filter({ hasText: `email to ${email}` })).toContainText("mail accepted for 1 recipient");
      await screenshot(page, testInfo, "desktop-alerts-log");
    });
    reactErrors();
  } finally {
    await receiver.close();
  }
});
