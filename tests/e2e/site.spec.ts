import { expect, test } from "@playwright/test";
import { screenshot, signInNewUser } from "./support/session";

test("pages carry the favicon", async ({ page, request }) => {
  await page.goto("/signin");
  const href = await page.locator('link[rel="icon"]').first().getAttribute("href");
  expect(href).toMatch(/^\/icon\.svg/);
  const icon = await request.get(href!);
  expect(icon.status()).toBe(200);
  expect(icon.headers()["content-type"]).toContain("image/svg+xml");
});

test("an unknown address shows the styled 404 page", async ({ page }, testInfo) => {
  // Signed out: an address outside the sign-in gate (it has a file extension).
  const missing = await page.goto("/no-such-page.txt");
  expect(missing?.status()).toBe(404);
  await expect(page.getByRole("heading", { name: "Page not found" })).toBeVisible();
  await expect(page.getByRole("link", { name: "Go to your projects" })).toBeVisible();
  await screenshot(page, testInfo, "desktop-404");

  // Signed in: any unknown page.
  await signInNewUser(page, "lost");
  const unknown = await page.goto("/no/such/page");
  expect(unknown?.status()).toBe(404);
  await expect(page.getByRole("heading", { name: "Page not found" })).toBeVisible();
  await page.getByRole("link", { name: "Go to your projects" }).click();
  await expect(page).toHaveURL(/\/projects$/);
});
