import { expect, test } from "@playwright/test";
import { createProject } from "./support/projects";
import { screenshot, signInNewUser } from "./support/session";

const DSN_PATTERN = /^http:\/\/([0-9A-Za-z]{32})@localhost:\d+\/(\d+)$/;

/** What a Sentry SDK posts (an envelope with an event and a transaction) from a page on `origin`. */
function envelope(dsn: string): string {
  const eventId = crypto.randomUUID().replaceAll("-", "");
  return [
    JSON.stringify({ event_id: eventId, dsn, sent_at: new Date().toISOString() }),
    JSON.stringify({ type: "event" }),
    JSON.stringify({ event_id: eventId, level: "error", platform: "javascript", exception: { values: [{ type: "TypeError", value: "x is undefined" }] } }),
    JSON.stringify({ type: "transaction" }),
    JSON.stringify({ type: "transaction", spans: [] }),
  ].join("\n");
}

test("the DSN with SDK setup lines on the Projects page and in settings; its key rotated on its own; allowed origins; dropped items", async ({ browser, request, baseURL }, testInfo) => {
  test.slow(); // many steps through a production build, on a shared machine
  const context = await browser.newContext();
  await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: baseURL });
  const page = await context.newPage();
  await signInNewUser(page, "dsn");
  const project = await createProject(page, "Storefront");
  await page.goto("/projects");

  const card = page.getByRole("article", { name: "Storefront" });
  const dsn = ((await card.getByLabel("DSN for Storefront", { exact: true }).textContent()) ?? "").trim();
  const [, publicKey, number] = DSN_PATTERN.exec(dsn)!;
  expect(new URL(dsn).host).toBe(new URL(baseURL!).host);
  await card.getByRole("button", { name: "Copy DSN for Storefront" }).click();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(dsn);

  // The setup lines, with the DSN filled in, for each language.
  await card.getByText("Set up a Sentry SDK").click();
  await expect(card.getByLabel("Node.js setup", { exact: true })).toContainText(`dsn: "${dsn}"`);
  await card.getByRole("button", { name: "Python", exact: true }).click();
  await expect(card.getByLabel("Install Python SDK", { exact: true })).toHaveText("pip install sentry-sdk");
  await expect(card.getByLabel("Python setup", { exact: true })).toContainText(`dsn="${dsn}"`);
  await card.getByRole("button", { name: "Copy Python setup" }).click();
  expect(await page.evaluate(() => navigator.clipboard.readText())).toContain(`sentry_sdk.init(\n    dsn="${dsn}"`);
  for (const label of ["Browser JavaScript", "Ruby", "Go", "Java", "PHP", ".NET"]) {
    await card.getByRole("button", { name: label, exact: true }).click();
    await expect(card.getByLabel(`${label} setup`, { exact: true })).toContainText(dsn);
  }
  await screenshot(page, testInfo, "desktop-projects-dsn");

  // An event and a transaction through the DSN, as an SDK sends them.
  const sent = await request.post(`/api/${number}/envelope/?sentry_key=${publicKey}&sentry_version=7`, { data: envelope(dsn), headers: { "content-type": "text/plain;charset=UTF-8" } });
  expect(sent.status(), await sent.text()).toBe(200);

  // Settings: the same DSN, the allowed origins, the dropped transaction.
  await page.goto(`/projects/${project.id}/settings`);
  const sentry = page.getByRole("region", { name: "Sentry SDKs" });
  await expect(sentry.getByLabel("DSN for Storefront", { exact: true })).toHaveText(dsn);
  await expect(sentry.getByRole("table", { name: "Dropped items" })).toContainText("transaction");
  const origins = sentry.getByLabel("Allowed origins");
  await expect(origins).toHaveValue("*");
  await origins.fill("https://shop.example/checkout");
  await sentry.getByRole("button", { name: "Save origins" }).click();
  await expect(sentry.getByRole("alert")).toContainText("is not an origin");
  await origins.fill("https://Shop.example\nhttp://localhost:5173");
  await sentry.getByRole("button", { name: "Save origins" }).click();
  await expect(sentry.getByText("Saved: pages on https://shop.example, http://localhost:5173 may send events.")).toBeVisible();
  const fromPage = (origin: string) =>
    request.post(`/api/${number}/envelope/?sentry_key=${publicKey}&sentry_version=7`, { data: envelope(dsn), headers: { origin, "content-type": "text/plain;charset=UTF-8" } });
  expect((await fromPage("https://evil.example")).status()).toBe(403);
  expect((await fromPage("https://shop.example")).status()).toBe(200);
  await screenshot(page, testInfo, "desktop-settings-sentry");

  // Rotating the DSN key: the dialog shows the new DSN; the old one is refused, the API key still works.
  await sentry.getByRole("button", { name: "Rotate DSN key for Storefront" }).click();
  const dialog = page.getByRole("dialog", { name: /Rotate the DSN key/ });
  await expect(dialog).toContainText("The API key is not affected");
  await dialog.getByRole("button", { name: "Rotate DSN key" }).click();
  await expect(dialog).toContainText("DSN key rotated: the old DSN no longer works.");
  const newDsn = ((await dialog.getByLabel("New DSN for Storefront", { exact: true }).textContent()) ?? "").trim();
  expect(newDsn).toMatch(DSN_PATTERN);
  expect(newDsn).not.toBe(dsn);
  await dialog.getByRole("button", { name: "Done" }).click();
  await expect(sentry.getByLabel("DSN for Storefront", { exact: true })).toHaveText(newDsn);
  expect((await request.post(`/api/${number}/envelope/?sentry_key=${publicKey}`, { data: envelope(dsn) })).status()).toBe(401);
  const [, newKey] = DSN_PATTERN.exec(newDsn)!;
  expect((await request.post(`/api/${number}/envelope/?sentry_key=${newKey}`, { data: envelope(newDsn) })).status()).toBe(200);
  const native = await request.post("/api/events", { headers: { Authorization: `Bearer ${project.apiKey}` }, data: { level: "info", message: "API key untouched", projectId: project.id } });
  expect(native.status()).toBe(201);
  await context.close();
});
