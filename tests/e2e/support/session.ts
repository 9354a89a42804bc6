import { expect, type Page, type TestInfo } from "@playwright/test";
import fs from "node:fs";
import path from "node:path";
import { linksTo, waitForLink } from "./mailbox";

let counter = 0;

/** A fresh address per call: every run and every test gets new users. */
export function uniqueEmail(name: string): string {
  return `${name}-${Date.now().toString(36)}-${++counter}@e2e.test`;
}

/**
 * Signs in through the real flow: the sign-in form, the link from the mail
 * sink, the confirmation page's button. The page must be on the sign-in page.
 */
export async function signInFromForm(page: Page, email: string, shots?: { testInfo: TestInfo; prefix: string }): Promise<void> {
  const before = linksTo(email, "/signin/confirm").length;
  await page.getByLabel("Email address").fill(email);
  await page.getByRole("button", { name: "Email me a sign-in link" }).click();
  await expect(page).toHaveURL(/\/signin\/check-email/);
  await expect(page.getByRole("heading", { name: "Check your email" })).toBeVisible();
  if (shots) await screenshot(page, shots.testInfo, `${shots.prefix}-check-email`);

  const link = await waitForLink(email, "/signin/confirm", { index: before });
  expect(new URL(link).origin).toBe(new URL(page.url()).origin);
  await page.goto(link);
  await expect(page.getByText(email)).toBeVisible();
  if (shots) await screenshot(page, shots.testInfo, `${shots.prefix}-confirm`);
  await page.getByRole("button", { name: "Sign in" }).click();
}

/** Saves a full-page screenshot under test-results/screenshots/ and attaches it to the report. */
export async function screenshot(page: Page, testInfo: TestInfo, name: string): Promise<void> {
  const dir = path.join(process.cwd(), "test-results", "screenshots");
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${name}.png`);
  // No hover effects or chart tooltips left over from the last click.
  await page.mouse.move(0, 0);
  await page.screenshot({ path: file, fullPage: true });
  await testInfo.attach(name, { path: file, contentType: "image/png" });
}

/**
 * A new user, signed in: opens the sign-in page, follows the emailed link,
 * and waits for the Projects page. Returns the address.
 */
export async function signInNewUser(page: Page, name: string, shots?: { testInfo: TestInfo; prefix: string }): Promise<string> {
  const email = uniqueEmail(name);
  await page.goto("/signin");
  await signInFromForm(page, email, shots);
  await expect(page).toHaveURL(/\/projects$/);
  return email;
}

/**
 * Collects React's errors from the browser console (a hydration mismatch
 * is one: minified error 418 in a production build) and page crashes.
 * Call the returned function at the end of a test: it fails on any.
 */
export function watchReactErrors(page: Page): () => void {
  const errors: string[] = [];
  page.on("console", (message) => {
    if (message.type() === "error" && /Minified React error|hydrat/i.test(message.text())) errors.push(message.text());
  });
  page.on("pageerror", (error) => errors.push(error.message));
  return () => expect(errors, "React errors in the browser console").toEqual([]);
}
