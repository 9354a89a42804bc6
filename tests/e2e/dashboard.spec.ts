import { expect, test, type Page } from "@playwright/test";
import { waitForLink } from "./support/mailbox";
import { screenshot, signInFromForm, uniqueEmail } from "./support/session";

const KEY_PATTERN = /^tlt_[0-9A-Za-z]{38}$/;

async function codeText(page: Page, label: string | RegExp): Promise<string> {
  return ((await page.getByLabel(label, { exact: true }).textContent()) ?? "").trim();
}

test("sign-in gate: dashboard pages redirect to the sign-in page and back", async ({ page, request }) => {
  await page.goto("/projects/some-project?range=7d");
  await expect(page).toHaveURL((url) => url.pathname === "/signin" && url.searchParams.get("callbackUrl") === "/projects/some-project?range=7d");
  await expect(page.getByRole("heading", { name: "Sign in" })).toBeVisible();

  await page.goto("/");
  await expect(page).toHaveURL(/\/signin$/);

  // The API is never redirected: it answers with problem details.
  const api = await request.get("/api/projects", { maxRedirects: 0 });
  expect(api.status()).toBe(401);
  expect((await api.json()).code).toBe("unauthenticated");
});

test("owner creates a project, sends an event with its key, invites a teammate who sees it", async ({ browser, request, baseURL }, testInfo) => {
  const ownerEmail = uniqueEmail("owner");
  const memberEmail = uniqueEmail("member");
  const owner = await browser.newContext();
  await owner.grantPermissions(["clipboard-read", "clipboard-write"], { origin: baseURL });
  const page = await owner.newPage();

  await test.step("owner signs in with the emailed link", async () => {
    await page.goto("/projects");
    await expect(page).toHaveURL(/\/signin\?callbackUrl=%2Fprojects/);
    await screenshot(page, testInfo, "desktop-signin");
    await signInFromForm(page, ownerEmail, { testInfo, prefix: "desktop" });
    await expect(page).toHaveURL(/\/projects$/);
    await expect(page.getByRole("navigation", { name: "Main" })).toContainText(ownerEmail);
    await expect(page.getByRole("heading", { name: "Get started in three steps" })).toBeVisible();
    await screenshot(page, testInfo, "desktop-projects-empty");
  });

  let projectId = "";
  let apiKey = "";
  await test.step("creates a project and gets its key", async () => {
    await page.getByLabel("Project name").fill("Checkout API");
    await page.getByRole("button", { name: "Create project" }).click();
    await expect(page.getByText("Project “Checkout API” created")).toBeVisible();
    const createdKey = await codeText(page, "New API key for Checkout API");
    expect(createdKey).toMatch(KEY_PATTERN);

    const card = page.getByRole("article", { name: "Checkout API" });
    await expect(card).toBeVisible();
    const href = await card.getByRole("link", { name: "Checkout API" }).getAttribute("href");
    projectId = href!.split("/").pop()!;

    // Masked in the page as served: the plaintext is not in the HTML.
    const masked = await codeText(page, "API key for Checkout API");
    expect(masked).toBe(`tlt_••••••••${createdKey.slice(-4)}`);
    const html = await (await page.request.get("/projects")).text();
    expect(html).not.toContain(createdKey);

    await page.getByRole("button", { name: "Reveal API key for Checkout API" }).click();
    await expect(page.getByLabel("API key for Checkout API", { exact: true })).toHaveText(createdKey);
    await page.getByRole("button", { name: "Copy API key for Checkout API" }).click();
    await expect(page.getByRole("button", { name: "Copy API key for Checkout API" })).toHaveText("Copied");
    apiKey = await page.evaluate(() => navigator.clipboard.readText());
    expect(apiKey).toBe(createdKey);
    await page.getByRole("button", { name: "Hide API key for Checkout API" }).click();
    await screenshot(page, testInfo, "desktop-projects");
  });

  await test.step("the empty project shows a curl command; the first event appears without a reload", async () => {
    await page.goto(`/projects/${projectId}`);
    await expect(page.getByRole("heading", { name: "No events yet: send your first one" })).toBeVisible();
    await expect(page.getByLabel("curl command that sends a first event")).toContainText("<API_KEY>");
    await page.getByRole("button", { name: "Insert my API key" }).click();
    const curl = page.getByLabel("curl command that sends a first event");
    await expect(curl).toContainText(`Authorization: Bearer ${apiKey}`);
    await expect(curl).toContainText(`"projectId":"${projectId}"`);
    await expect(curl).toContainText(`${baseURL}/api/events`);
    await screenshot(page, testInfo, "desktop-events-empty");

    const sent = await request.post("/api/events", {
      headers: { Authorization: `Bearer ${apiKey}` },
      data: { level: "error", message: "Payment failed: card declined", projectId, context: { orderId: 4211, customer: { id: "c_42", plan: "pro" } } },
    });
    expect(sent.status()).toBe(201);

    // The page polls every 5 s and shows the first event by itself.
    await expect(page.getByText("Payment failed: card declined")).toBeVisible({ timeout: 20_000 });
  });

  await test.step("events: chart, expandable context, new-event notice, filters", async () => {
    await expect(page.getByRole("img", { name: /Events per level over time: 1 errors/ })).toBeVisible();
    await page.getByText("Payment failed: card declined").click();
    const context = page.getByLabel(/^Context of event/);
    await expect(context).toContainText('"orderId": 4211');
    await expect(context).toContainText('"plan": "pro"');

    const second = await request.post("/api/events", {
      headers: { Authorization: `Bearer ${apiKey}` },
      data: { level: "warn", message: "Slow checkout: 2.3 s", projectId },
    });
    expect(second.status()).toBe(201);
    const notice = page.getByRole("button", { name: /1 new event/ });
    await expect(notice).toBeVisible({ timeout: 20_000 });
    await notice.click();
    await expect(page.getByText("Slow checkout: 2.3 s")).toBeVisible();
    // Newest first.
    const messages = page.getByRole("list", { name: "Events" }).locator("summary");
    await expect(messages.first()).toContainText("Slow checkout");
    await screenshot(page, testInfo, "desktop-events");

    await page.getByLabel("Level", { exact: true }).selectOption("error");
    await expect(page).toHaveURL(/level=error/);
    await expect(page.getByText("Slow checkout: 2.3 s")).toHaveCount(0);
    await expect(page.getByText("Payment failed: card declined")).toBeVisible();

    await page.getByLabel("Level", { exact: true }).selectOption("");
    await page.getByLabel("Search messages").fill("slow");
    await page.getByRole("button", { name: "Apply" }).click();
    await expect(page).toHaveURL(/q=slow/);
    await expect(page.getByText("Payment failed: card declined")).toHaveCount(0);
    await expect(page.getByText("Slow checkout: 2.3 s")).toBeVisible();
  });

  await test.step("the summary panel answers from the built-in digest", async () => {
    await page.goto(`/projects/${projectId}`);
    await page.getByRole("button", { name: "Summarize" }).click();
    await expect(page.getByText("Built-in digest (no AI model)")).toBeVisible({ timeout: 20_000 });
  });

  await test.step("owner invites a teammate", async () => {
    await page.getByRole("link", { name: "Team & settings" }).click();
    await expect(page).toHaveURL(new RegExp(`/projects/${projectId}/settings$`));
    await page.getByLabel("Email address").fill(memberEmail);
    await page.getByRole("button", { name: "Send invitation" }).click();
    await expect(page.getByText(`Invitation sent to ${memberEmail}`)).toBeVisible();
    await expect(page.getByRole("list", { name: "Pending invitations" })).toContainText(memberEmail);
    await screenshot(page, testInfo, "desktop-settings");
  });

  const member = await browser.newContext();
  const memberPage = await member.newPage();
  await test.step("the teammate signs in from the invitation and accepts it", async () => {
    const invitation = await waitForLink(memberEmail, "/invitations/");
    await memberPage.goto(invitation);
    await expect(memberPage.getByRole("heading", { name: "Join “Checkout API”" })).toBeVisible();
    await screenshot(memberPage, testInfo, "desktop-invitation");
    await memberPage.getByRole("link", { name: "Sign in with the invited address" }).click();
    await expect(memberPage).toHaveURL(/\/signin\?callbackUrl=%2Finvitations%2F/);
    await signInFromForm(memberPage, memberEmail);
    await expect(memberPage).toHaveURL(/\/invitations\//);
    await memberPage.getByRole("button", { name: "Accept invitation" }).click();
    await expect(memberPage).toHaveURL(new RegExp(`/projects/${projectId}$`));
  });

  await test.step("the teammate sees the events, as a member", async () => {
    await expect(memberPage.getByText("Payment failed: card declined")).toBeVisible();
    await expect(memberPage.getByText("Slow checkout: 2.3 s")).toBeVisible();
    await memberPage.goto("/projects");
    const card = memberPage.getByRole("article", { name: "Checkout API" });
    await expect(card.getByText("member", { exact: true })).toBeVisible();
    await expect(card.getByRole("button", { name: /Rotate/ })).toHaveCount(0);
    await memberPage.goto(`/projects/${projectId}/settings`);
    await expect(memberPage.getByText(ownerEmail)).toBeVisible();
    await expect(memberPage.getByRole("button", { name: "Send invitation" })).toHaveCount(0);
    // Someone else's (or no) project: the same 404 page.
    const response = await memberPage.goto("/projects/not-a-project-of-mine");
    expect(response?.status()).toBe(404);
    await expect(memberPage.getByRole("heading", { name: "Not found" })).toBeVisible();
  });

  await test.step("owner rotates the key: the old key stops working at once", async () => {
    await page.goto("/projects");
    await page.getByRole("button", { name: "Rotate API key for Checkout API" }).click();
    const dialog = page.getByRole("dialog", { name: /Rotate the API key/ });
    await expect(dialog).toContainText("the old key stops working immediately");
    await screenshot(page, testInfo, "desktop-rotate-dialog");
    await dialog.getByRole("button", { name: "Rotate key" }).click();
    await expect(dialog).toBeHidden();
    await expect(page.getByLabel("API key for Checkout API", { exact: true })).not.toHaveText(new RegExp(apiKey.slice(-4) + "$"));

    const rejected = await request.post("/api/events", {
      headers: { Authorization: `Bearer ${apiKey}` },
      data: { level: "info", message: "after rotation", projectId },
    });
    expect(rejected.status()).toBe(401);
    expect((await rejected.json()).code).toBe("invalid_api_key");
  });

  await test.step("owner signs out", async () => {
    await page.getByRole("button", { name: "Sign out" }).click();
    await expect(page).toHaveURL(/\/signin/);
    await page.goto("/projects");
    await expect(page).toHaveURL(/\/signin\?callbackUrl=/);
  });

  await owner.close();
  await member.close();
});
