import { expect, test } from "@playwright/test";
import { createProject, sendEvents } from "./support/projects";
import { screenshot, signInNewUser, watchReactErrors } from "./support/session";

test("triage: resolve in the next release (late events stay late), assign, comment, ignore until N events, bulk assign and resolve from the list", async ({ page, request }, testInfo) => {
  const reactErrors = watchReactErrors(page);
  const email = await signInNewUser(page, "workflow");
  const project = await createProject(page, "Triage");
  await sendEvents(request, project, [
    { level: "error", message: "Cart total is NaN", release: "1.0.0" },
    { level: "error", message: "Avatar upload fails", release: "1.0.0" },
    { level: "warn", message: "Slow checkout", release: "1.0.0" },
  ]);

  const card = page.getByRole("region", { name: "Cart total is NaN" });
  const state = card.getByTestId("workflow-state");
  const activity = page.getByRole("list", { name: "Activity" });

  await test.step("resolve in the next release: an event of 1.0.0 is late, one of 1.1.0 reopens it", async () => {
    await page.goto(`/projects/${project.id}`);
    await page.getByRole("link", { name: "Cart total is NaN" }).click();
    await card.getByText("Resolve ▾").click();
    await card.getByRole("button", { name: "In the next release (after 1.0.0)" }).click();
    await expect(card.getByRole("status")).toHaveText("Issue resolved.");
    await expect(state).toContainText("in the next release (a release newer than 1.0.0 reopens it)");

    await sendEvents(request, project, [{ level: "error", message: "Cart total is NaN", release: "1.0.0" }]);
    await page.reload();
    const late = card.getByTestId("late-events");
    await expect(late).toContainText("1 late event");
    await expect(late).toHaveAttribute("title", /dated before the resolution, or of the resolved release or an older one/);
    await expect(card.getByText("resolved", { exact: true })).toBeVisible();

    await sendEvents(request, project, [{ level: "error", message: "Cart total is NaN", release: "1.1.0" }]);
    await page.reload();
    await expect(card.getByText("open", { exact: true })).toBeVisible();
    // Reopened: its late events since the resolution are still said.
    await expect(late).toContainText("1 late event");
    await expect(activity.getByRole("listitem").first()).toContainText("Telltale regressed");
  });

  await test.step("assign to myself and comment: both in the activity", async () => {
    await card.getByLabel("Assignee").selectOption({ label: email });
    await expect(card.getByRole("status")).toHaveText(`Assigned to ${email}.`);
    await page.getByLabel("Comment").fill("Fixed in 1.1.1, deploying.");
    await page.getByRole("button", { name: "Comment", exact: true }).click();
    await expect(activity.getByRole("listitem").first()).toContainText("Fixed in 1.1.1, deploying.");
    await expect(activity).toContainText("assigned it to themselves");
    await expect(page.getByLabel("Comment")).toHaveValue("");
  });

  await test.step("ignore until 10 more events", async () => {
    await card.getByText("Ignore ▾").click();
    await card.getByRole("button", { name: "Until 10 more events" }).click();
    await expect(card.getByRole("status")).toHaveText("Issue ignored.");
    await expect(state).toContainText("Ignored until 10 more events");
    await expect(activity.getByRole("listitem").first()).toContainText("ignored it until 10 more events");
    await screenshot(page, testInfo, "desktop-issue-workflow");
  });

  await test.step("the list: check two issues and resolve them in one go", async () => {
    await page.goto(`/projects/${project.id}`);
    const list = page.getByRole("list", { name: "Issues" });
    await expect(list.getByRole("article")).toHaveCount(2);
    await page.getByLabel("Select Avatar upload fails").check();
    await page.getByLabel("Select Slow checkout").check();
    const bar = page.getByRole("group", { name: "Bulk changes" });
    await expect(bar).toContainText("2 selected");
    await bar.getByLabel("Assign to").selectOption({ label: email });
    await bar.getByRole("button", { name: "Assign", exact: true }).click();
    await expect(bar.getByRole("status")).toHaveText("2 issues updated.");
    await expect(list.getByRole("article", { name: "Avatar upload fails" })).toContainText(`assigned to ${email}`);
    await expect(list.getByRole("article", { name: "Slow checkout" })).toContainText(`assigned to ${email}`);
    await screenshot(page, testInfo, "desktop-issues-assigned");

    // The checks were cleared by the change: check both again, and resolve them.
    await expect(bar).toContainText("Select all");
    await bar.getByLabel("Select all").check();
    await expect(bar).toContainText("2 selected");
    await bar.getByRole("button", { name: "Resolve", exact: true }).click();
    // Both leave the open list, which is then empty (the bar goes with it).
    await expect(list).toHaveCount(0);
    await expect(page.getByText("No open issues in the last 24 hours")).toBeVisible();
  });

  reactErrors();
});
