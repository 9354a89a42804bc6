import { expect, test } from "@playwright/test";
import { waitForLink } from "./support/mailbox";
import { screenshot, signInFromForm, uniqueEmail } from "./support/session";

// Every page at phone width, as screenshots to look at (test-results/screenshots/phone-*.png).
test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });

test("every page works at phone width", async ({ page, request }, testInfo) => {
  const email = uniqueEmail("phone");
  await page.goto("/signin");
  await screenshot(page, testInfo, "phone-signin");
  await signInFromForm(page, email, { testInfo, prefix: "phone" });
  await expect(page).toHaveURL(/\/projects$/);
  await screenshot(page, testInfo, "phone-projects-empty");

  await page.getByLabel("Project name").fill("Mobile app");
  await page.getByRole("button", { name: "Create project" }).click();
  await expect(page.getByText("Project “Mobile app” created")).toBeVisible();
  const apiKey = ((await page.getByLabel("New API key for Mobile app", { exact: true }).textContent()) ?? "").trim();
  const href = await page.getByRole("article", { name: "Mobile app" }).getByRole("link", { name: "Mobile app" }).getAttribute("href");
  const projectId = href!.split("/").pop()!;
  await screenshot(page, testInfo, "phone-projects");

  await page.goto(`/projects/${projectId}`);
  await page.getByRole("button", { name: "Insert my API key" }).click();
  await screenshot(page, testInfo, "phone-events-empty");

  const samples = [
    { level: "error", message: "TypeError: Cannot read properties of undefined (reading 'id') in CheckoutForm", context: { route: "/checkout", release: "2.4.1", user: { id: 812 } } },
    { level: "warn", message: "Retrying request to payments provider (attempt 2 of 3)", context: { attempt: 2 } },
    { level: "info", message: "User signed up", context: { plan: "free" } },
    { level: "info", message: "Deployment finished", context: null },
  ];
  for (const sample of samples) {
    const { context, ...rest } = sample;
    const response = await request.post("/api/events", {
      headers: { Authorization: `Bearer ${apiKey}` },
      data: { ...rest, projectId, ...(context ? { context } : {}) },
    });
    expect(response.status()).toBe(201);
  }
  await page.reload();
  await expect(page.getByText("Deployment finished")).toBeVisible();
  await page.getByText("TypeError: Cannot read properties").click();
  await screenshot(page, testInfo, "phone-events");
  await page.emulateMedia({ colorScheme: "dark" });
  await screenshot(page, testInfo, "phone-events-dark");
  await page.emulateMedia({ colorScheme: "light" });
  // The same page on a laptop, for the README (docs/screenshots/).
  await page.setViewportSize({ width: 1280, height: 800 });
  await screenshot(page, testInfo, "desktop-events-sample");
  await page.setViewportSize({ width: 390, height: 844 });

  await page.goto(`/projects/${projectId}/settings`);
  const invitee = uniqueEmail("invitee");
  await page.getByLabel("Email address").fill(invitee);
  await page.getByRole("button", { name: "Send invitation" }).click();
  await expect(page.getByText(`Invitation sent to ${invitee}`)).toBeVisible();
  await screenshot(page, testInfo, "phone-settings");

  await page.getByRole("button", { name: "Delete project" }).click();
  await expect(page.getByRole("dialog")).toBeVisible();
  await screenshot(page, testInfo, "phone-delete-dialog");
  await page.getByRole("button", { name: "Cancel" }).click();

  await page.goto("/overview");
  await page.getByRole("button", { name: "Summarize" }).click();
  await expect(page.getByText("Built-in digest (no AI model)")).toBeVisible({ timeout: 20_000 });
  await screenshot(page, testInfo, "phone-overview");

  // The invitation page as the invitee sees it before signing in.
  const link = await waitForLink(invitee, "/invitations/");
  const guest = await page.context().browser()!.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, deviceScaleFactor: 2 });
  const guestPage = await guest.newPage();
  await guestPage.goto(link);
  await expect(guestPage.getByRole("heading", { name: "Join “Mobile app”" })).toBeVisible();
  await screenshot(guestPage, testInfo, "phone-invitation");
  await guest.close();

  // Deleting asks for the project's name.
  await page.goto(`/projects/${projectId}/settings`);
  await page.getByRole("button", { name: "Delete project" }).click();
  const dialog = page.getByRole("dialog");
  const confirm = dialog.getByRole("button", { name: "Delete project" });
  await expect(confirm).toBeDisabled();
  await dialog.getByLabel(/Type Mobile app to confirm/).fill("Mobile app");
  await confirm.click();
  await expect(page).toHaveURL(/\/projects$/);
  await expect(page.getByRole("article", { name: "Mobile app" })).toHaveCount(0);
});
