import { expect, test } from "@playwright/test";
import { createProject, sendBatch, sendEvents } from "./support/projects";
import { screenshot, signInNewUser, watchReactErrors } from "./support/session";

// A zone with a half-hour offset and no daylight saving: local and UTC times never look alike.
test.use({ timezoneId: "Asia/Kolkata" });

const STACK = [
  "TypeError: Cannot read properties of undefined (reading 'id')",
  "    at CheckoutForm (/srv/app/src/checkout-form.tsx:42:17)",
  "    at renderWithHooks (/srv/app/node_modules/react-dom/cjs/react-dom-server.node.development.js:5662:16)",
  "    at process.processTicksAndRejections (node:internal/process/task_queues:95:5)",
].join("\n");

test("the events tab: filters drive the list and the chart, context reads well, times follow the toggle", async ({ page, request }, testInfo) => {
  // A first visit: the server writes UTC (no cookie names the zone yet) and the browser switches to Asia/Kolkata, without a hydration error.
  const noReactErrors = watchReactErrors(page);
  await signInNewUser(page, "events");
  const project = await createProject(page, "Storefront");
  await sendEvents(request, project, [
    { level: "info", message: "User signed up", context: { plan: "free" } },
    { level: "warn", message: "Slow checkout: 2.3 s", context: { route: "/checkout" } },
    {
      level: "error",
      message: "TypeError: Cannot read properties of undefined (reading 'id') in CheckoutForm",
      context: { release: "2.4.1", error: { name: "TypeError", stack: STACK }, note: "first line\nsecond line" },
    },
  ]);

  await test.step("one click from the issues", async () => {
    await page.goto(`/projects/${project.id}`);
    await page.getByRole("navigation", { name: "Project" }).getByRole("link", { name: "Events" }).click();
    await expect(page).toHaveURL(new RegExp(`/projects/${project.id}/events$`));
    await expect(page.getByRole("list", { name: "Events" }).getByRole("listitem")).toHaveCount(3);
    await expect(page.getByTestId("chart-total")).toHaveText("3 events in chart");
    await expect(page.getByRole("img", { name: /1 error, 1 warning, 1 info \(3 in total\)/ })).toBeVisible();
  });

  await test.step("level and search filters change the list, the chart and its total", async () => {
    await page.getByLabel("Level", { exact: true }).selectOption("error");
    await expect(page).toHaveURL(/level=error/);
    await expect(page.getByTestId("chart-total")).toHaveText("1 event in chart");
    await expect(page.getByRole("img", { name: /1 error, 0 warnings, 0 info/ })).toBeVisible();
    await expect(page.getByText("Slow checkout: 2.3 s")).toHaveCount(0);

    await page.getByLabel("Level", { exact: true }).selectOption("");
    await page.getByLabel("Search messages").fill("slow");
    await page.getByRole("button", { name: "Apply" }).click();
    await expect(page).toHaveURL(/q=slow/);
    await expect(page.getByTestId("chart-total")).toHaveText("1 event in chart");
    await expect(page.getByRole("img", { name: /0 errors, 1 warning, 0 info/ })).toBeVisible();
    await expect(page.getByText("Slow checkout: 2.3 s")).toBeVisible();

    // The search looks into the context's values too.
    await page.getByLabel("Search messages").fill("2.4.1");
    await page.getByRole("button", { name: "Apply" }).click();
    // (Both searches find one event: wait for this one's page, or its navigation lands after the next step's.)
    await expect(page).toHaveURL(/q=2\.4\.1/);
    await expect(page.getByTestId("chart-total")).toHaveText("1 event in chart");
    await expect(page.getByRole("list", { name: "Events" }).getByRole("listitem")).toHaveCount(1);
    await page.goto(`/projects/${project.id}/events`);
  });

  await test.step("a custom range is read in the reader's zone, named, not as today's offset", async () => {
    // datetime-local values in the browser's zone (Asia/Kolkata, set above), from the test's clock: an hour ago, an hour ahead, half an hour ago.
    const kolkata = new Intl.DateTimeFormat("sv-SE", { timeZone: "Asia/Kolkata", year: "numeric", month: "2-digit", day: "2-digit", hour: "2-digit", minute: "2-digit", hourCycle: "h23" });
    const local = (offsetMinutes: number) => kolkata.format(new Date(Date.now() + offsetMinutes * 60_000)).replace(" ", "T");
    await expect(page).toHaveURL(new RegExp(`/projects/${project.id}/events$`));
    // Chosen again until the fields show: a choice made before the page has hydrated is reset by it.
    await expect(async () => {
      await page.getByLabel("Time range").selectOption("custom");
      await expect(page.getByLabel("From (your time)")).toBeVisible({ timeout: 1_000 });
    }).toPass();
    await page.getByLabel("From (your time)").fill(local(-60));
    await page.getByLabel("To (your time)").fill(local(60));
    await page.getByRole("button", { name: "Apply" }).click();
    await expect(page).toHaveURL(/tz=Asia%2F(Kolkata|Calcutta)/);
    await expect(page.getByRole("list", { name: "Events" }).getByRole("listitem")).toHaveCount(3);
    // Read as UTC, "an hour ago" here would be 4.5 hours ahead: the events would be left out.
    await page.getByLabel("To (your time)").fill(local(-30));
    await page.getByRole("button", { name: "Apply" }).click();
    await expect(page.getByText("No events match these filters in this time range.")).toBeVisible();
    await page.goto(`/projects/${project.id}/events`);
  });

  await test.step("a stack trace shows one frame per line, multi-line text as lines", async () => {
    // A closed row's context is not in the page: it loads when the row opens.
    const served = await (await page.request.get(`/projects/${project.id}/events`)).text();
    expect(served.includes("in CheckoutForm"), "the row is in the page").toBe(true);
    expect(served.includes("checkout-form.tsx:42:17"), "a closed row's stack is in the page").toBe(false);
    await expect(page.locator('[aria-label^="Context of event"]')).toHaveCount(0);
    await page.getByText("TypeError: Cannot read properties of undefined (reading 'id') in CheckoutForm").click();
    const context = page.getByRole("group", { name: /^Context of event/ });
    const stack = context.getByRole("list", { name: "Stack trace" });
    const frames = stack.getByRole("listitem");
    await expect(frames).toHaveCount(4);
    await expect(frames.first()).toHaveText("TypeError: Cannot read properties of undefined (reading 'id')");
    await expect(frames.nth(1)).toHaveAttribute("data-frame", "app");
    await expect(frames.nth(2)).toHaveAttribute("data-frame", "library");
    await expect(context).toContainText("2 library or runtime frames dimmed");
    // No escaped line breaks anywhere; the note's two lines are two lines.
    await expect(context).not.toContainText("\\n");
    expect(await context.getByText(/^first line/).innerText()).toBe("first line\nsecond line");
    await expect(context).toContainText('"release": "2.4.1"');
    await screenshot(page, testInfo, "desktop-events-stack");
  });

  await test.step("times: the reader's zone by default, UTC at a click, remembered", async () => {
    const time = page.getByRole("list", { name: "Events" }).getByRole("listitem").first().locator("summary time");
    await expect(time).toContainText("GMT+5:30");
    // The server writes times as the browser shows them (a cookie names the
    // reader's zone), so nothing switches from UTC once the page has loaded.
    const zoneCookie = async () => (await page.context().cookies()).find((c) => c.name === "telltale-tz")?.value;
    const served = async () => (await page.request.get(`/projects/${project.id}/events`)).text();
    // (Chromium may name the zone by its older alias, Asia/Calcutta.)
    const browserZone = await page.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone);
    expect(["Asia/Kolkata", "Asia/Calcutta"]).toContain(browserZone);
    await expect.poll(zoneCookie).toBe(browserZone);
    expect(await served()).toContain("GMT+5:30");
    const toggle = page.getByRole("group", { name: "Show times in" });
    await expect(toggle.getByRole("button", { name: "Local" })).toHaveAttribute("aria-pressed", "true");
    await toggle.getByRole("button", { name: "UTC" }).click();
    await expect(toggle.getByRole("button", { name: "UTC" })).toHaveAttribute("aria-pressed", "true");
    await expect(time).toContainText("UTC");
    // The local and the UTC clock readings differ by 5:30.
    const iso = (await time.getAttribute("datetime"))!;
    const utcText = new Date(iso).toISOString().slice(11, 19);
    await expect(time).toContainText(utcText);
    await expect(page.getByText("Times in UTC")).toBeVisible();
    expect(await zoneCookie()).toBe("utc");
    expect(await served()).not.toContain("GMT+5:30");

    await page.reload();
    await expect(time).toContainText("UTC");
    await page.goto(`/projects/${project.id}/settings`);
    await expect(page.getByText(/joined \w{3} \d+, \d{4}/)).toBeVisible();
    await page.getByRole("group", { name: "Show times in" }).getByRole("button", { name: "Local" }).click();
    await page.goto(`/projects/${project.id}/events`);
    await expect(time).toContainText("GMT+5:30");
  });

  await test.step("new events are announced and shown on request", async () => {
    await sendEvents(request, project, [{ level: "warn", message: "Inventory service answered 503" }]);
    const notice = page.getByRole("button", { name: /1 new event/ });
    await expect(notice).toBeVisible({ timeout: 20_000 });
    await notice.click();
    await expect(page.getByRole("list", { name: "Events" }).locator("summary").first()).toContainText("Inventory service answered 503");
    await screenshot(page, testInfo, "desktop-events");
  });
  noReactErrors();
});

test("the chart's axis fits counts in the thousands", async ({ page, request }, testInfo) => {
  await signInNewUser(page, "busy");
  const project = await createProject(page, "Busy service");
  const now = new Date().toISOString();
  // 1,500 events in the same minute: one tall bar.
  for (let batch = 0; batch < 2; batch++) {
    await sendBatch(
      request,
      project,
      Array.from({ length: 750 }, (_, i) => ({ level: i % 3 === 0 ? ("error" as const) : ("info" as const), message: `Request ${batch * 750 + i} served`, timestamp: now })),
    );
  }
  await page.goto(`/projects/${project.id}/events`);
  await expect(page.getByTestId("chart-total")).toHaveText("1,500 events in chart");
  // Ticks like 1.5k: compact, and fully inside the chart (not cut at the left edge).
  const chartImage = page.getByRole("img", { name: /Events per level over time/ });
  const tick = chartImage.locator("text").filter({ hasText: /^\d(\.\d)?k$/ }).last();
  await expect(tick).toBeVisible();
  const chart = await chartImage.boundingBox();
  const label = await tick.boundingBox();
  expect(label!.x).toBeGreaterThanOrEqual(chart!.x);
  await screenshot(page, testInfo, "desktop-events-large");
});
