import { expect, test } from "@playwright/test";
import { ago, createProject, DAY, sendBatch, sendEvents } from "./support/projects";
import { screenshot, signInNewUser } from "./support/session";

const STRIPE = "Stripe API timeout after <duration> while charging order <id>";
const WEBHOOK = "Webhook signature check failed for order <id>";

test("an empty project explains how to send a first event, then shows it by itself", async ({ page, request, baseURL }, testInfo) => {
  await signInNewUser(page, "first-event");
  const project = await createProject(page, "Fresh project");

  await page.goto(`/projects/${project.id}`);
  await expect(page.getByRole("heading", { name: "No events yet: send your first one" })).toBeVisible();
  const curl = page.getByLabel("curl command that sends a first event");
  await expect(curl).toContainText("<API_KEY>");
  await page.getByRole("button", { name: "Insert my API key" }).click();
  await expect(curl).toContainText(`Authorization: Bearer ${project.apiKey}`);
  await expect(curl).toContainText(`"projectId":"${project.id}"`);
  await expect(curl).toContainText(`${baseURL}/api/events`);
  await screenshot(page, testInfo, "desktop-issues-empty");

  await sendEvents(request, project, [{ level: "info", message: "Hello from Telltale" }]);
  // The page polls every 5 s and shows the first issue without a reload.
  const issue = page.getByRole("article", { name: "Hello from Telltale" });
  await expect(issue).toBeVisible({ timeout: 20_000 });
  await expect(issue.getByText("New", { exact: true })).toBeVisible();
});

test("events are grouped into issues that can be resolved, regress, and open on their own page", async ({ page, request }, testInfo) => {
  await signInNewUser(page, "issues");
  const project = await createProject(page, "Checkout API");

  await sendEvents(request, project, [
    // Two messages that differ only in a duration and an order id: one issue.
    { level: "error", message: "Stripe API timeout after 30000ms while charging order ord_x1k2", context: { orderId: "ord_x1k2", attempt: 1 } },
    { level: "error", message: "Stripe API timeout after 12000ms while charging order ord_y7p9", context: { orderId: "ord_y7p9", attempt: 3 } },
    // An issue first seen three days ago (the client's timestamp), seen again now: listed, but not new.
    { level: "warn", message: "Webhook signature check failed for order ord_a1b2c3", timestamp: ago(3 * DAY) },
    { level: "warn", message: "Webhook signature check failed for order ord_d4e5f6" },
  ]);

  await test.step("the project opens on its issues", async () => {
    await page.goto(`/projects/${project.id}`);
    await expect(page.getByRole("navigation", { name: "Project" }).getByRole("link", { name: "Issues" })).toHaveAttribute("aria-current", "page");
    await expect(page.getByRole("list", { name: "Issues" }).getByRole("article")).toHaveCount(2);

    const stripe = page.getByRole("article", { name: STRIPE });
    await expect(stripe.getByRole("img", { name: "2 events in the last 24 hours" })).toBeVisible();
    await expect(stripe.getByText("New", { exact: true })).toBeVisible();
    await expect(stripe).toContainText(/first seen (just now|\d+ s ago)/);
    // The exact time is a hover away.
    await expect(stripe.locator("time").first()).toHaveAttribute("title", /\d{2}:\d{2}:\d{2}\.\d{3}/);

    const webhook = page.getByRole("article", { name: WEBHOOK });
    await expect(webhook).toContainText("first seen 3 d ago");
    await expect(webhook).toContainText("2 events in all");
    await expect(webhook.getByRole("img", { name: "1 event in the last 24 hours" })).toBeVisible();
    await expect(webhook.getByText("New", { exact: true })).toHaveCount(0);
    await screenshot(page, testInfo, "desktop-issues");
  });

  await test.step("filters: level, search, period", async () => {
    await page.getByLabel("Level", { exact: true }).selectOption("warn");
    await expect(page).toHaveURL(/level=warn/);
    await expect(page.getByRole("article", { name: STRIPE })).toHaveCount(0);
    await expect(page.getByRole("article", { name: WEBHOOK })).toBeVisible();

    await page.getByLabel("Level", { exact: true }).selectOption("");
    await page.getByLabel("Search issues").fill("stripe");
    await page.getByRole("button", { name: "Apply" }).click();
    await expect(page).toHaveURL(/q=stripe/);
    await expect(page.getByRole("article", { name: WEBHOOK })).toHaveCount(0);
    await expect(page.getByRole("article", { name: STRIPE })).toBeVisible();

    await page.getByLabel("Search issues").fill("no such thing");
    await page.getByRole("button", { name: "Apply" }).click();
    await expect(page.getByText("No open issues match these filters in the last 24 hours")).toBeVisible();
    await page.getByRole("link", { name: "Clear filters" }).click();
    await expect(page.getByRole("list", { name: "Issues" }).getByRole("article")).toHaveCount(2);

    // A week: the older event counts in the period too.
    await page.getByLabel("Period").selectOption("7d");
    await expect(page).toHaveURL(/range=7d/);
    await expect(page.getByRole("article", { name: WEBHOOK }).getByRole("img", { name: "2 events in the last 7 days" })).toBeVisible();
    await page.goto(`/projects/${project.id}`);
  });

  await test.step("resolving takes an issue off the open list; its next event brings it back as a regression", async () => {
    const webhook = page.getByRole("article", { name: WEBHOOK });
    await webhook.getByRole("button", { name: "Resolve" }).click();
    await expect(webhook).toHaveCount(0);
    await expect(page.getByRole("article", { name: STRIPE })).toBeVisible();

    await page.getByRole("navigation", { name: "Issue status" }).getByRole("link", { name: "Resolved" }).click();
    await expect(page).toHaveURL(/status=resolved/);
    await expect(page.getByRole("article", { name: WEBHOOK })).toBeVisible();
    await expect(page.getByRole("article", { name: WEBHOOK }).getByRole("button", { name: "Reopen" })).toBeVisible();

    await sendEvents(request, project, [{ level: "warn", message: "Webhook signature check failed for order ord_g7h8i9" }]);
    await page.goto(`/projects/${project.id}`);
    const regressed = page.getByRole("article", { name: WEBHOOK });
    await expect(regressed.getByText("Regressed", { exact: true })).toBeVisible();
    await expect(regressed.getByText("New", { exact: true })).toHaveCount(0);
    await screenshot(page, testInfo, "desktop-issues-regressed");

    // Ignored issues leave the open list too, and come back with Reopen.
    await page.getByRole("article", { name: STRIPE }).getByRole("button", { name: "Ignore" }).click();
    await expect(page.getByRole("article", { name: STRIPE })).toHaveCount(0);
    await page.getByRole("navigation", { name: "Issue status" }).getByRole("link", { name: "Ignored" }).click();
    await page.getByRole("article", { name: STRIPE }).getByRole("button", { name: "Reopen" }).click();
    await expect(page.getByRole("article", { name: STRIPE })).toHaveCount(0);
    await page.getByRole("navigation", { name: "Issue status" }).getByRole("link", { name: "Open" }).click();
    await expect(page.getByRole("article", { name: STRIPE })).toBeVisible();

    // First seen and regressed in the same period: Regressed leads, "new" beside it.
    await sendEvents(request, project, [{ level: "error", message: "Image resize worker crashed" }]);
    await page.goto(`/projects/${project.id}`);
    const resize = page.getByRole("article", { name: "Image resize worker crashed" });
    await expect(resize.getByText("New", { exact: true })).toBeVisible();
    await resize.getByRole("button", { name: "Resolve" }).click();
    await expect(resize).toHaveCount(0);
    await sendEvents(request, project, [{ level: "error", message: "Image resize worker crashed" }]);
    await page.goto(`/projects/${project.id}`);
    await expect(resize.getByText("Regressed", { exact: true })).toBeVisible();
    await expect(resize.getByText("new", { exact: true })).toBeVisible();
    await expect(resize.getByText("New", { exact: true })).toHaveCount(0);
  });

  let eventUrl = "";
  await test.step("the issue page: totals, chart, events with their context", async () => {
    await page.getByRole("link", { name: STRIPE }).click();
    await expect(page).toHaveURL(new RegExp(`/projects/${project.id}/issues/[0-9a-f-]{36}$`));
    await expect(page.getByRole("heading", { name: STRIPE })).toBeVisible();
    await expect(page.getByRole("navigation", { name: "Project" }).getByRole("link", { name: "Issues" })).toHaveAttribute("aria-current", "page");
    await expect(page.getByText("Latest message: Stripe API timeout after 12000ms while charging order ord_y7p9")).toBeVisible();
    const stats = page.getByRole("definition");
    await expect(stats.first()).toHaveText("2");
    await expect(page.getByRole("img", { name: /2 errors, 0 warnings, 0 info/ })).toBeVisible();
    await expect(page.getByTestId("chart-total")).toHaveText("2 events in chart");

    const events = page.getByRole("list", { name: "Events" }).getByRole("listitem");
    await expect(events).toHaveCount(2);
    // Newest first, and the newest is open with its context.
    await expect(events.first()).toContainText("ord_y7p9");
    await expect(events.first().getByRole("group", { name: /^Context of event/ })).toContainText('"attempt": 3');
    await screenshot(page, testInfo, "desktop-issue");

    // The same actions as in the list (Resolve is a menu here), with their outcome said.
    const issueCard = page.getByRole("region", { name: STRIPE });
    await issueCard.getByText("Resolve ▾").click();
    await issueCard.getByRole("button", { name: "Resolve now" }).click();
    await expect(issueCard.getByRole("status")).toHaveText("Issue resolved.");
    await expect(issueCard.getByText("resolved", { exact: true })).toBeVisible();
    await issueCard.getByRole("button", { name: "Reopen" }).click();
    await expect(issueCard.getByRole("status")).toHaveText("Issue reopened.");
    await expect(issueCard.getByText("open", { exact: true })).toBeVisible();

    await events.first().getByRole("link", { name: "Permalink" }).click();
    await expect(page).toHaveURL(new RegExp(`/projects/${project.id}/events/[0-9a-f-]{36}$`));
    eventUrl = page.url();
  });

  await test.step("the event's permalink", async () => {
    await expect(page.getByRole("heading", { name: "Stripe API timeout after 12000ms while charging order ord_y7p9" })).toBeVisible();
    await expect(page.getByRole("group", { name: "Context" })).toContainText('"orderId": "ord_y7p9"');
    await expect(page.getByRole("navigation", { name: "Project" }).getByRole("link", { name: "Events" })).toHaveAttribute("aria-current", "page");
    await screenshot(page, testInfo, "desktop-event");
    await page.getByRole("link", { name: "View its issue →" }).click();
    await expect(page.getByRole("heading", { name: STRIPE })).toBeVisible();

    // The same link opened fresh works; a made-up or malformed id is the 404 page.
    await page.goto(eventUrl);
    await expect(page.getByRole("heading", { name: /ord_y7p9/ })).toBeVisible();
    for (const missing of ["00000000-0000-4000-8000-000000000000", "not-an-id"]) {
      const response = await page.goto(`/projects/${project.id}/events/${missing}`);
      expect(response?.status()).toBe(404);
      await expect(page.getByRole("heading", { name: "Not found" })).toBeVisible();
    }
    const response = await page.goto(`/projects/${project.id}/issues/00000000-0000-4000-8000-000000000000`);
    expect(response?.status()).toBe(404);
    await expect(page.getByRole("heading", { name: "Not found" })).toBeVisible();
    await screenshot(page, testInfo, "desktop-event-404");
  });
});

test("issues come 25 to a page, with keyset links; a link with a stale cursor starts over", async ({ page, request }) => {
  await signInNewUser(page, "pages");
  const project = await createProject(page, "Many issues");
  // 27 issues: the fingerprint keeps apart what the message template would group.
  await sendBatch(
    request,
    project,
    Array.from({ length: 27 }, (_, i) => ({ level: "error" as const, message: `Sync failed for tenant t_${i}`, fingerprint: ["sync", `tenant-${i}`] })),
  );

  await page.goto(`/projects/${project.id}`);
  const issues = page.getByRole("list", { name: "Issues" }).getByRole("article");
  await expect(issues).toHaveCount(25);
  await expect(page.getByText("25+ open issues with events in the last 24 hours")).toBeVisible();
  await page.getByRole("link", { name: "Next page →" }).click();
  await expect(page).toHaveURL(/cursor=/);
  await expect(issues).toHaveCount(2);
  await expect(page.getByRole("link", { name: "Next page →" })).toHaveCount(0);

  // The cursor belongs to the "last seen" order: under another sort, the first page.
  const stale = new URL(page.url());
  stale.searchParams.set("sort", "total");
  const response = await page.goto(stale.toString());
  expect(response?.status()).toBe(200);
  await expect(issues).toHaveCount(25);

  await page.goto(`/projects/${project.id}${new URL(page.url()).search.replace(/sort=total&?/, "")}`);
  await page.getByRole("link", { name: "← First page" }).click();
  await expect(issues).toHaveCount(25);
  await expect(page).not.toHaveURL(/cursor=/);
});
