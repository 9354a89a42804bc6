/**
 * @sentry/browser as a web page uses it: bundled with esbuild (`--bundle
 * --format=iife`, the package ships no ready bundle), served from another
 * origin by a static server of its own, loaded in Debian's Chromium. A click
 * handler's error and an unhandled rejection reach the production server
 * through CORS; the page cannot use the native route (the secret key's).
 */
import fs from "node:fs";
import http from "node:http";
import type { AddressInfo } from "node:net";
import os from "node:os";
import path from "node:path";
import { chromium, type Browser } from "@playwright/test";
import { afterAll, beforeAll, expect, it } from "vitest";
import { byMessage, clientProject, FIXTURES, REPO, runProgram, serverUrl, storedEvents, waitForEvents } from "@/tests/clients/helpers";

const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
const PAGE = `${FIXTURES}/browser`;

let bundleDir: string;
let browser: Browser | undefined;
let pageServer: http.Server | undefined;
let pageOrigin: string;
/** The DSN the page server writes into the page. */
let pageDsn = "";

beforeAll(async () => {
  bundleDir = fs.mkdtempSync(path.join(os.tmpdir(), "telltale-browser-bundle-"));
  const bundled = await runProgram(path.join(REPO, "node_modules/.bin/esbuild"), [`${PAGE}/entry.js`, "--bundle", "--format=iife", "--minify", `--outfile=${bundleDir}/sentry.js`, "--log-level=warning"]);
  expect(bundled.code, bundled.stderr).toBe(0);

  const files: Record<string, [string, () => string]> = {
    "/": ["text/html; charset=utf-8", () => fs.readFileSync(`${PAGE}/index.html`, "utf8").replace("__SENTRY_DSN__", pageDsn)],
    "/sentry.js": ["text/javascript", () => fs.readFileSync(`${bundleDir}/sentry.js`, "utf8")],
    "/shop.js": ["text/javascript", () => fs.readFileSync(`${PAGE}/shop.js`, "utf8")],
  };
  pageServer = http.createServer((req, res) => {
    const file = files[new URL(req.url ?? "/", "http://page").pathname];
    if (!file) return void res.writeHead(404).end();
    res.writeHead(200, { "content-type": file[0], "cache-control": "no-store" }).end(file[1]());
  });
  await new Promise<void>((resolve) => pageServer!.listen(0, "127.0.0.1", resolve));
  // "localhost" and another port: another origin than the server's 127.0.0.1.
  pageOrigin = `http://localhost:${(pageServer.address() as AddressInfo).port}`;
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--disable-background-networking", "--disable-component-update"] });
});

afterAll(async () => {
  await browser?.close();
  await new Promise<void>((resolve) => (pageServer ? pageServer.close(() => resolve()) : resolve()));
  if (bundleDir) fs.rmSync(bundleDir, { recursive: true, force: true });
});

it("@sentry/browser 11.12.0 on a page of another origin reports a click handler's error and an unhandled rejection; the native route refuses the page", async () => {
  const project = await clientProject("sentry-browser");
  pageDsn = project.dsn;
  expect(new URL(pageOrigin).origin).not.toBe(new URL(serverUrl()).origin);

  const page = await browser!.newPage();
  const envelopeAnswers: { status: number; allowOrigin: string | null }[] = [];
  const failed: string[] = [];
  page.on("response", async (response) => {
    if (response.url().includes(`/api/${project.number}/envelope/`)) envelopeAnswers.push({ status: response.status(), allowOrigin: await response.headerValue("access-control-allow-origin") });
  });
  page.on("requestfailed", (request) => failed.push(`${request.method()} ${request.url()}: ${request.failure()?.errorText}`));
  const pageErrors: string[] = [];
  page.on("pageerror", (error) => pageErrors.push(error.message));

  await page.goto(pageOrigin);
  expect(await page.evaluate(() => typeof (window as unknown as { __SENTRY__?: unknown }).__SENTRY__)).toBe("object");
  await page.click("#add-to-cart");
  await page.click("#load-reviews");
  // The page itself saw both errors (the SDK reports them and lets them through).
  await expect.poll(() => pageErrors.length, { timeout: 10_000 }).toBe(2);

  const events = await waitForEvents(project.id, 2);
  const click = byMessage(events, "TypeError: Cannot read properties of undefined (reading 'price')");
  const rejection = byMessage(events, "SyntaxError: Reviews response is not JSON");
  for (const event of [click, rejection]) {
    expect(event).toMatchObject({ level: "error", release: "storefront@3.2.0", environment: "production" });
    expect(event.context.request?.url).toBe(`${pageOrigin}/`);
    expect(event.context.request?.headers?.["User-Agent"]).toMatch(/Chrome/);
    // The SDK sends no browser context: the User-Agent gives it, as Sentry derives it.
    expect(event.context.contexts?.browser).toMatchObject({ name: "Chrome", version: expect.stringMatching(/^\d+\.\d+$/) });
    expect(event.context.contexts?.os).toMatchObject({ name: "Linux" });
  }
  const clickValue = click.context.exception.values.at(-1);
  expect(clickValue.mechanism).toMatchObject({ type: "auto.browser.browserapierrors.addEventListener", handled: false });
  expect(clickValue.stacktrace.frames.map((f: { function?: string }) => f.function)).toEqual(expect.arrayContaining(["priceOf", "HTMLButtonElement.addToCart"]));
  expect(clickValue.stacktrace.frames.find((f: { function?: string }) => f.function === "priceOf")).toMatchObject({ filename: `${pageOrigin}/shop.js`, lineno: 3 });
  const rejectionValue = rejection.context.exception.values.at(-1);
  expect(rejectionValue.mechanism).toMatchObject({ type: "auto.browser.global_handlers.onunhandledrejection", handled: false });
  expect(rejection.issueId).not.toBe(click.issueId);

  // The browser could read each answer: 200 with the page's origin allowed.
  await expect.poll(() => envelopeAnswers.length, { timeout: 10_000 }).toBeGreaterThanOrEqual(2);
  expect(envelopeAnswers.every((a) => a.status === 200 && a.allowOrigin === pageOrigin)).toBe(true);
  expect(failed.filter((f) => f.includes("/envelope/"))).toEqual([]);

  // The native route is for servers: a page that has the secret key still cannot post there.
  const native = await page.evaluate(
    async ({ url, key, projectId }) => {
      try {
        const res = await fetch(`${url}/api/events`, {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
          body: JSON.stringify({ level: "error", message: "posted from a page", projectId }),
        });
        return `answered ${res.status}`;
      } catch (error) {
        return `refused: ${(error as Error).message}`;
      }
    },
    { url: serverUrl(), key: project.apiKey, projectId: project.id },
  );
  // Chromium's words for a CORS refusal; the request never reached the route.
  expect(native).toMatch(/^refused: Failed to fetch/);
  expect(failed.some((f) => f.includes(`${serverUrl()}/api/events`))).toBe(true);
  await page.close();
  expect((await storedEvents(project.id)).map((e) => e.message).sort()).toEqual([click.message, rejection.message].sort());
});
