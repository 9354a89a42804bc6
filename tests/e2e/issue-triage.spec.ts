import { expect, test } from "@playwright/test";
import { createProject, sendEvents, type EventInput } from "./support/projects";
import { screenshot, signInNewUser, watchReactErrors } from "./support/session";

const TITLE = "TypeError: Cannot read properties of undefined (reading 'price')";
// A long path: on a phone it must wrap, never be cut before its line number.
const APP_FILE = "/srv/shop/src/features/checkout/pricing-and-discounts/cart-total-calculator.ts";

/** A Sentry-shaped exception (as an SDK sends it) with a cause, a library frame and source lines. */
const exception = {
  values: [
    { type: "Error", value: "price service unreachable", stacktrace: { frames: [{ filename: "node:net", function: "TCPConnectWrap.afterConnect", lineno: 1555, colno: 16, in_app: false }] } },
    {
      type: "TypeError",
      value: "Cannot read properties of undefined (reading 'price')",
      stacktrace: {
        frames: [
          { filename: "/srv/shop/node_modules/express/lib/router/layer.js", function: "Layer.handle", lineno: 95, colno: 5, in_app: false },
          {
            filename: APP_FILE,
            function: "cartTotal",
            lineno: 128,
            colno: 31,
            in_app: true,
            pre_context: ["export function cartTotal(cart: Cart) {", "  const first = cart.items[0];"],
            context_line: "  return first.price * cart.items.length;",
            post_context: ["}"],
          },
        ],
      },
    },
  ],
};

test("an issue page answers triage's first questions: releases, environments, users, tags that filter its events, and the stack as frames", async ({ page, request }, testInfo) => {
  const noReactErrors = watchReactErrors(page);
  await signInNewUser(page, "triage");
  const project = await createProject(page, "Shop");
  const base = { level: "error" as const, message: TITLE, context: { exception } };
  const events: EventInput[] = [
    { ...base, release: "shop@1.4.0", environment: "production", tags: { region: "eu" }, user: { id: "u1" } },
    { ...base, release: "shop@1.4.1", environment: "production", tags: { region: "eu" }, user: { email: "bo@example.com" } },
    { ...base, release: "shop@1.4.1", environment: "staging", tags: { region: "us" }, user: { id: "u1" } },
    // Another issue, with no environment: the list's filter leaves it out.
    { level: "warn", message: "Slow query on orders" },
  ];
  await sendEvents(request, project, events);

  await test.step("the issues list filters by environment", async () => {
    await page.goto(`/projects/${project.id}`);
    await expect(page.getByRole("list", { name: "Issues" }).getByRole("article")).toHaveCount(2);
    await page.getByLabel("Environment").fill("staging");
    await page.getByRole("button", { name: "Apply" }).click();
    await expect(page).toHaveURL(/environment=staging/);
    await expect(page.getByRole("list", { name: "Issues" }).getByRole("article")).toHaveCount(1);
    await expect(page.getByRole("article", { name: TITLE })).toBeVisible();
  });

  await test.step("the issue page: releases, environments, users affected", async () => {
    await page.getByRole("link", { name: TITLE }).click();
    await expect(page.getByRole("heading", { name: TITLE })).toBeVisible();
    const facts = page.getByRole("definition");
    const fact = (label: string) => page.locator("dt", { hasText: new RegExp(`^${label}$`) }).locator("xpath=following-sibling::dd[1]");
    await expect(fact("First release")).toHaveText("shop@1.4.0");
    await expect(fact("Last release")).toHaveText("shop@1.4.1");
    await expect(fact("Environments")).toHaveText("production, staging");
    await expect(fact("Users affected")).toHaveText("2");
    await expect(facts.first()).toHaveText("3");
    // Sent just now: the chart zooms in on them rather than drawing them as one bar at the edge of a day.
    await expect(page.getByRole("heading", { name: /zoomed to its events in the last 24 hours/ })).toBeVisible();
    await screenshot(page, testInfo, "desktop-issue-triage");
  });

  await test.step("the stack: in-app frames with their source, library frames folded", async () => {
    const stack = page.getByRole("region", { name: /Stack trace/ });
    const raised = stack.getByRole("list", { name: `Frames of ${TITLE}` });
    const app = raised.locator('[data-frame="app"]');
    await expect(app).toHaveCount(1);
    await expect(app).toContainText("cartTotal");
    await expect(app).toContainText(`${APP_FILE}:128:31`);
    await expect(app.getByRole("list", { name: "Source" }).locator('[aria-current="true"]')).toContainText("return first.price * cart.items.length;");
    await expect(stack.getByText("Caused by")).toBeVisible();
    const library = stack.getByText("/srv/shop/node_modules/express/lib/router/layer.js:95:5");
    await expect(library).toBeHidden();
    await raised.locator("summary", { hasText: "1 library frame" }).click();
    await expect(library).toBeVisible();
  });

  await test.step("a tag value shows the issue's events with that tag", async () => {
    const region = page.getByRole("region", { name: /^Tags/ }).getByRole("region", { name: "Tag region" });
    const eu = region.getByRole("link", { name: /region: eu, 2 events \(67%\)/ });
    await expect(eu).toBeVisible();
    await expect(page.getByRole("region", { name: /^Tags/ }).getByRole("region", { name: "Tag environment" })).toContainText("staging");
    await eu.click();
    await expect(page).toHaveURL(/tag=region%3Aeu/);
    await expect(page.getByRole("list", { name: "Events" }).locator(":scope > li")).toHaveCount(2);
    await expect(page.getByRole("status").filter({ hasText: "With tag" })).toContainText("region: eu");
    await page.getByRole("link", { name: "Show all events" }).click();
    await expect(page.getByRole("list", { name: "Events" }).locator(":scope > li")).toHaveCount(3);
    // The event shows its own release, environment, user and tags.
    const first = page.getByRole("list", { name: "Events" }).locator(":scope > li").first();
    await expect(first).toContainText("shop@1.4.1");
    await expect(first.getByRole("list", { name: "Tags" })).toContainText("region: us");
  });

  await test.step("on a 390 px phone, a frame's file and line are shown whole (wrapped, not cut)", async () => {
    await page.setViewportSize({ width: 390, height: 844 });
    await page.reload();
    const location = page.locator('[data-frame="app"] [data-testid="frame-location"]').first();
    await location.scrollIntoViewIfNeeded();
    await expect(location).toBeVisible();
    await expect(location).toHaveText(`${APP_FILE}:128:31`);
    const box = await location.boundingBox();
    expect(box!.x).toBeGreaterThanOrEqual(0);
    expect(box!.x + box!.width).toBeLessThanOrEqual(390);
    // Nothing of it hidden: no horizontal overflow in it, nor on the page.
    expect(await location.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await screenshot(page, testInfo, "phone-issue-stack");
  });
  noReactErrors();
});
