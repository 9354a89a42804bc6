import { expect, test } from "@playwright/test";
import { waitForLink } from "./support/mailbox";
import { ago, DAY, sendEvents } from "./support/projects";
import { screenshot, signInFromForm, uniqueEmail, watchReactErrors } from "./support/session";

// Every page at phone width, as screenshots to look at (test-results/screenshots/phone-*.png).
test.use({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true, deviceScaleFactor: 2 });

const STACK = "TypeError: Cannot read properties of undefined (reading 'id')\n    at CheckoutForm (/srv/app/src/checkout-form.tsx:42:17)\n    at renderWithHooks (/srv/app/node_modules/react-dom/cjs/react-dom.js:5662:16)";

test("every page works at phone width, with the first issue and event on the first screen", async ({ page, request }, testInfo) => {
  const noReactErrors = watchReactErrors(page);
  // A chart drawn while folded away (display: none) measures 0 x 0, and the chart library says so.
  const chartSizeWarnings: string[] = [];
  page.on("console", (message) => {
    if (/width\(0\) and height\(0\)/.test(message.text())) chartSizeWarnings.push(message.text());
  });
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
  const project = { id: href!.split("/").pop()!, name: "Mobile app", apiKey };
  await screenshot(page, testInfo, "phone-projects");

  await page.goto(`/projects/${project.id}`);
  await page.getByRole("button", { name: "Insert my API key" }).click();
  await screenshot(page, testInfo, "phone-issues-empty");

  await sendEvents(request, project, [
    { level: "error", message: "TypeError: Cannot read properties of undefined (reading 'id') in CheckoutForm", context: { route: "/checkout", release: "2.4.1", user: { id: 812 }, error: { stack: STACK } } },
    { level: "error", message: "Stripe API timeout after 30000ms while charging order ord_x1k2", timestamp: ago(2 * DAY) },
    { level: "error", message: "Stripe API timeout after 12000ms while charging order ord_y7p9" },
    { level: "warn", message: "Retrying request to payments provider (attempt 2 of 3)", context: { attempt: 2 } },
    { level: "info", message: "User signed up", context: { plan: "free" } },
    { level: "info", message: "Deployment finished" },
  ]);

  // The issues list: its first issue is on the first screen, whole.
  await page.goto(`/projects/${project.id}`);
  const firstIssue = page.getByRole("list", { name: "Issues" }).getByRole("article").first();
  await expect(firstIssue).toBeInViewport({ ratio: 1 });
  await screenshot(page, testInfo, "phone-issues");
  await page.emulateMedia({ colorScheme: "dark" });
  await screenshot(page, testInfo, "phone-issues-dark");
  await page.emulateMedia({ colorScheme: "light" });

  // The events list: likewise, with the chart folded away until asked for.
  await page.goto(`/projects/${project.id}/events`);
  const firstEvent = page.getByRole("list", { name: "Events" }).getByRole("listitem").first();
  await expect(firstEvent).toBeInViewport({ ratio: 1 });
  await expect(page.getByRole("img", { name: /Events per level over time/ })).toBeHidden();
  await page.getByRole("button", { name: "Show chart" }).click();
  await expect(page.getByRole("img", { name: /Events per level over time/ })).toBeVisible();
  // Drawn once shown: its bars are there, and nothing was drawn at 0 x 0 before.
  await expect(page.getByRole("img", { name: /Events per level over time/ }).locator("path.recharts-rectangle").first()).toBeVisible();
  expect(chartSizeWarnings).toEqual([]);
  await page.getByRole("list", { name: "Events" }).locator("summary").filter({ hasText: "TypeError: Cannot read properties" }).click();
  await expect(page.getByRole("list", { name: "Stack trace" })).toBeVisible();
  await screenshot(page, testInfo, "phone-events");
  await page.emulateMedia({ colorScheme: "dark" });
  await screenshot(page, testInfo, "phone-events-dark");
  await page.emulateMedia({ colorScheme: "light" });
  // The same page on a laptop (for the README).
  await page.setViewportSize({ width: 1280, height: 800 });
  await screenshot(page, testInfo, "desktop-events-sample");
  await page.setViewportSize({ width: 390, height: 844 });

  // An issue's page and an event's permalink.
  await page.goto(`/projects/${project.id}`);
  await page.getByRole("link", { name: /Stripe API timeout/ }).click();
  await expect(page.getByRole("heading", { name: /Stripe API timeout/ })).toBeVisible();
  await screenshot(page, testInfo, "phone-issue");
  await page.getByRole("link", { name: "Permalink" }).first().click();
  await expect(page.getByRole("heading", { name: /Stripe API timeout after 12000ms/ })).toBeVisible();
  await screenshot(page, testInfo, "phone-event");

  await page.goto(`/projects/${project.id}/settings`);
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
  await expect(page.getByRole("listitem").filter({ hasText: "Mobile app" })).toContainText("2 errors");
  await page.getByRole("button", { name: "Summarize" }).click();
  await expect(page.getByText("Built-in digest (no AI model)")).toBeVisible({ timeout: 20_000 });
  await screenshot(page, testInfo, "phone-overview");

  const missing = await page.goto(`/projects/${project.id}/events/00000000-0000-4000-8000-000000000000`);
  expect(missing?.status()).toBe(404);
  await screenshot(page, testInfo, "phone-404");

  // The invitation page as the invitee sees it before signing in.
  const link = await waitForLink(invitee, "/invitations/");
  const guest = await page.context().browser()!.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, deviceScaleFactor: 2 });
  const guestPage = await guest.newPage();
  await guestPage.goto(link);
  await expect(guestPage.getByRole("heading", { name: "Join “Mobile app”" })).toBeVisible();
  await screenshot(guestPage, testInfo, "phone-invitation");
  await guest.close();

  // Deleting asks for the project's name.
  await page.goto(`/projects/${project.id}/settings`);
  await page.getByRole("button", { name: "Delete project" }).click();
  const dialog = page.getByRole("dialog");
  const confirm = dialog.getByRole("button", { name: "Delete project" });
  await expect(confirm).toBeDisabled();
  await dialog.getByLabel(/Type Mobile app to confirm/).fill("Mobile app");
  await confirm.click();
  await expect(page).toHaveURL(/\/projects$/);
  await expect(page.getByRole("article", { name: "Mobile app" })).toHaveCount(0);
  noReactErrors();
});
