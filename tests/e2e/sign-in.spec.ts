import { expect, test } from "@playwright/test";
import { screenshot, signInFromForm, uniqueEmail } from "./support/session";

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

test("a new user signs in with the emailed link, lands on the projects page, and signs out", async ({ page }, testInfo) => {
  const email = uniqueEmail("signin");

  await page.goto("/projects");
  await expect(page).toHaveURL(/\/signin\?callbackUrl=%2Fprojects/);
  await screenshot(page, testInfo, "desktop-signin");
  await signInFromForm(page, email, { testInfo, prefix: "desktop" });

  await expect(page).toHaveURL(/\/projects$/);
  await expect(page.getByRole("navigation", { name: "Main" })).toContainText(email);
  await expect(page.getByRole("heading", { name: "Get started in three steps" })).toBeVisible();
  await screenshot(page, testInfo, "desktop-projects-empty");

  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(/\/signin/);
  await page.goto("/projects");
  await expect(page).toHaveURL(/\/signin\?callbackUrl=/);
});

test("pages whose URL holds a one-time token keep it from other sites, and their own form still says where it comes from", async ({ request }) => {
  // no-referrer made the form's POST carry `Origin: null`: over plain http to
  // a LAN address, with no Sec-Fetch-Site either, sign-in was refused as cross-site.
  for (const path of ["/signin/confirm?token=x&email=a%40b.test", "/invitations/some-token"]) {
    const page = await request.get(path, { maxRedirects: 0 });
    expect(page.headers()["referrer-policy"], path).toBe("same-origin");
  }
});
