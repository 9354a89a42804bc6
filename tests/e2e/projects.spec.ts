import { expect, test, type Page } from "@playwright/test";
import { ago, createProject, HOUR, sendEvents } from "./support/projects";
import { screenshot, signInNewUser } from "./support/session";

const KEY_PATTERN = /^tlt_[0-9A-Za-z]{38}$/;

async function codeText(page: Page, label: string | RegExp): Promise<string> {
  return ((await page.getByLabel(label, { exact: true }).textContent()) ?? "").trim();
}

test("create a project, reveal and copy its masked key, rotate it", async ({ browser, request, baseURL }, testInfo) => {
  const context = await browser.newContext();
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: baseURL });
  const page = await context.newPage();
  await signInNewUser(page, "projects");

  await page.getByLabel("Project name").fill("Checkout API");
  await page.getByRole("button", { name: "Create project" }).click();
  await expect(page.getByText("Project “Checkout API” created")).toBeVisible();
  const createdKey = await codeText(page, "New API key for Checkout API");
  expect(createdKey).toMatch(KEY_PATTERN);

  const card = page.getByRole("article", { name: "Checkout API" });
  await expect(card).toBeVisible();
  const href = await card.getByRole("link", { name: "Checkout API" }).getAttribute("href");
  const projectId = href!.split("/").pop()!;

  // Masked in the page as served: the plaintext is not in the HTML.
  expect(await codeText(page, "API key for Checkout API")).toBe(`tlt_••••••••${createdKey.slice(-4)}`);
  const html = await (await page.request.get("/projects")).text();
  expect(html).not.toContain(createdKey);

  await page.getByRole("button", { name: "Reveal API key for Checkout API" }).click();
  await expect(page.getByLabel("API key for Checkout API", { exact: true })).toHaveText(createdKey);
  await page.getByRole("button", { name: "Copy API key for Checkout API" }).click();
  await expect(page.getByRole("button", { name: "Copy API key for Checkout API" })).toHaveText("Copied");
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(createdKey);
  await page.getByRole("button", { name: "Hide API key for Checkout API" }).click();
  await screenshot(page, testInfo, "desktop-projects");

  // Rotating: the old key stops working at once, the new one works.
  await page.getByRole("button", { name: "Rotate API key for Checkout API" }).click();
  const dialog = page.getByRole("dialog", { name: /Rotate the API key/ });
  await expect(dialog).toContainText("the old key stops working immediately");
  await screenshot(page, testInfo, "desktop-rotate-dialog");
  await dialog.getByRole("button", { name: "Rotate API key" }).click();
  // The dialog says so and shows the new key once, ready to copy.
  await expect(dialog).toContainText("API key rotated: the old key no longer works.");
  const shownKey = ((await dialog.getByLabel("New API key for Checkout API", { exact: true }).textContent()) ?? "").trim();
  expect(shownKey).toMatch(KEY_PATTERN);
  expect(shownKey).not.toBe(createdKey);
  await dialog.getByRole("button", { name: "Done" }).click();
  await expect(dialog).toBeHidden();
  await expect(page.getByLabel("API key for Checkout API", { exact: true })).not.toHaveText(new RegExp(createdKey.slice(-4) + "$"));

  const rejected = await request.post("/api/events", {
    headers: { Authorization: `Bearer ${createdKey}` },
    data: { level: "info", message: "after rotation", projectId },
  });
  expect(rejected.status()).toBe(401);
  expect((await rejected.json()).code).toBe("invalid_api_key");

  await page.getByRole("button", { name: "Copy API key for Checkout API" }).click();
  await expect(page.getByRole("button", { name: "Copy API key for Checkout API" })).toHaveText("Copied");
  const newKey = await page.evaluate(() => navigator.clipboard.readText());
  expect(newKey).toMatch(KEY_PATTERN);
  expect(newKey).toBe(shownKey);
  await sendEvents(request, { id: projectId, name: "Checkout API", apiKey: newKey }, [{ level: "info", message: "with the new key" }]);
  await context.close();
});

test("the overview shows each project's last 24 hours", async ({ page, request }, testInfo) => {
  await signInNewUser(page, "overview");
  const busy = await createProject(page, "Billing worker");
  const quiet = await createProject(page, "Marketing site");
  await sendEvents(request, busy, [
    { level: "error", message: "Invoice 1041 could not be rendered" },
    { level: "error", message: "Invoice 1042 could not be rendered" },
    { level: "warn", message: "Queue depth above 1000" },
    // Older than a day: counted in all, not in the last 24 hours.
    { level: "error", message: "Nightly export failed", timestamp: ago(3 * 24 * HOUR) },
  ]);

  await page.goto("/overview");
  await expect(page.getByRole("heading", { name: "Overview" })).toBeVisible();
  await expect(page.getByText("3 events (2 errors) in the last 24 hours across 2 projects.")).toBeVisible();

  const busyCard = page.getByRole("listitem").filter({ hasText: busy.name });
  await expect(busyCard).toContainText("2 errors");
  await expect(busyCard).toContainText("3 events");
  await expect(busyCard).toContainText("2 new issues");
  await expect(busyCard).toContainText(/last event (just now|\d+ s ago)/);
  await expect(page.getByRole("listitem").filter({ hasText: quiet.name })).toContainText("No events yet.");
  await screenshot(page, testInfo, "desktop-overview");

  await page.getByRole("button", { name: "Summarize" }).click();
  await expect(page.getByText("Built-in digest (no AI model)")).toBeVisible({ timeout: 20_000 });

  await busyCard.getByRole("link").click();
  await expect(page).toHaveURL(new RegExp(`/projects/${busy.id}$`));
  await expect(page.getByRole("list", { name: "Issues" })).toBeVisible();
});
