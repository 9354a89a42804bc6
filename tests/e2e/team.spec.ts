import { expect, test } from "@playwright/test";
import { waitForLink } from "./support/mailbox";
import { createProject, sendEvents } from "./support/projects";
import { screenshot, signInFromForm, signInNewUser, uniqueEmail } from "./support/session";

test("an owner invites a teammate, who joins from the mail link and works as a member", async ({ browser, request }, testInfo) => {
  test.slow(); // two people, many steps: past the default 90 s on a busy machine
  const owner = await browser.newContext();
  const page = await owner.newPage();
  const ownerEmail = await signInNewUser(page, "owner");
  const project = await createProject(page, "Payments");
  const other = await createProject(page, "Private project");
  await sendEvents(request, project, [{ level: "error", message: "Payment failed: card declined", context: { orderId: 4211 } }]);
  const memberEmail = uniqueEmail("member");

  await test.step("the owner invites by email", async () => {
    await page.goto(`/projects/${project.id}`);
    await page.getByRole("navigation", { name: "Project" }).getByRole("link", { name: "Team & settings" }).click();
    await expect(page).toHaveURL(new RegExp(`/projects/${project.id}/settings$`));
    await page.getByLabel("Email address").fill(memberEmail);
    await page.getByRole("button", { name: "Send invitation" }).click();
    await expect(page.getByText(`Invitation sent to ${memberEmail}`)).toBeVisible();
    await expect(page.getByRole("list", { name: "Pending invitations" })).toContainText(memberEmail);
    await expect(page.getByRole("list", { name: "Pending invitations" })).toContainText("expires in 7 d");
    await screenshot(page, testInfo, "desktop-settings");
  });

  const member = await browser.newContext();
  const memberPage = await member.newPage();
  await test.step("the teammate opens the link, signs in with the invited address and accepts", async () => {
    const invitation = await waitForLink(memberEmail, "/invitations/");
    await memberPage.goto(invitation);
    await expect(memberPage.getByRole("heading", { name: "Join “Payments”" })).toBeVisible();
    await screenshot(memberPage, testInfo, "desktop-invitation");
    await memberPage.getByRole("link", { name: "Sign in with the invited address" }).click();
    await expect(memberPage).toHaveURL(/\/signin\?callbackUrl=%2Finvitations%2F/);
    // The form comes filled with the invited address.
    await expect(memberPage.getByLabel("Email address")).toHaveValue(memberEmail);
    await signInFromForm(memberPage, memberEmail);
    await expect(memberPage).toHaveURL(/\/invitations\//);
    await memberPage.getByRole("button", { name: "Accept invitation" }).click();
    await expect(memberPage).toHaveURL(new RegExp(`/projects/${project.id}$`));
  });

  await test.step("the member sees the issues and events, and may resolve an issue", async () => {
    const issue = memberPage.getByRole("article", { name: "Payment failed: card declined" });
    await expect(issue).toBeVisible();
    await memberPage.getByRole("navigation", { name: "Project" }).getByRole("link", { name: "Events" }).click();
    await expect(memberPage.getByText("Payment failed: card declined")).toBeVisible();
    await memberPage.goto(`/projects/${project.id}`);
    await issue.getByRole("button", { name: "Resolve" }).click();
    await expect(issue).toHaveCount(0);
    await expect(memberPage.getByText("No open issues in the last 24 hours")).toBeVisible();
  });

  await test.step("the member has no owner controls", async () => {
    await memberPage.goto("/projects");
    const card = memberPage.getByRole("article", { name: "Payments" });
    await expect(card.getByText("member", { exact: true })).toBeVisible();
    await expect(card.getByRole("button", { name: /Rotate/ })).toHaveCount(0);
    await memberPage.goto(`/projects/${project.id}/settings`);
    await expect(memberPage.getByText(ownerEmail, { exact: true })).toBeVisible();
    await expect(memberPage.getByRole("button", { name: "Send invitation" })).toHaveCount(0);
    await expect(memberPage.getByRole("button", { name: "Delete project" })).toHaveCount(0);
  });

  await test.step("the owner makes the member an owner, and back; the only owner cannot step down", async () => {
    await page.goto(`/projects/${project.id}/settings`);
    const members = page.getByRole("region", { name: /Members/ });
    await expect(members.getByRole("form", { name: `Make member: ${ownerEmail}` })).toHaveCount(0);
    await members.getByRole("form", { name: `Make owner: ${memberEmail}` }).getByRole("button").click();
    await expect(page.getByText(`${memberEmail} is now an owner.`)).toBeVisible();
    await memberPage.goto("/projects");
    await expect(memberPage.getByRole("article", { name: "Payments" }).getByText("owner", { exact: true })).toBeVisible();
    await page.reload();
    await members.getByRole("form", { name: `Make member: ${memberEmail}` }).getByRole("button").click();
    await expect(page.getByText(`${memberEmail} is now a member.`)).toBeVisible();
    await page.reload();
    await page.getByRole("button", { name: "Leave project" }).click();
    await expect(page.getByRole("dialog", { name: /Leave/ })).toContainText("make another member an owner first (Make owner");
    await page.getByRole("button", { name: "Cancel" }).click();
  });

  await test.step("someone else's project, or none, is the same 404 page", async () => {
    for (const id of [other.id, "not-a-project-of-mine"]) {
      const response = await memberPage.goto(`/projects/${id}`);
      expect(response?.status()).toBe(404);
      await expect(memberPage.getByRole("heading", { name: "Not found" })).toBeVisible();
      await expect(memberPage.getByText("Private project")).toHaveCount(0);
    }
    const response = await memberPage.goto(`/projects/${other.id}/events`);
    expect(response?.status()).toBe(404);
    await screenshot(memberPage, testInfo, "desktop-404-project");
  });

  await owner.close();
  await member.close();
});
