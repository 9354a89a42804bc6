/**
 * `npm run dev` as a developer uses it: start, sign in (the link from the
 * dev mail log), stop, start again, open /projects in Chromium. After a
 * restart the page must load once and stay: a reload loop (the page
 * navigating dozens of times, each after "✓ Compiled" in the log) came from
 * files the dev server itself writes under the tree Next.js watches.
 * Slow (two cold `next dev` starts): run by `npm run test:dev`, not `npm test`.
 */
import fs from "node:fs";
import path from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { chromium, type Browser } from "@playwright/test";
import { freePort } from "@/tests/helpers/free-port";
import { signIn, startDev, stopDev, type Dev } from "@/tests/helpers/dev-server";

const ROOT = process.cwd();
const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";
// Inside the project, as the defaults are (.telltale/pgdata, .next): what the dev server writes there is the point.
const tag = `devtest-${process.pid}`;
const dataDir = path.join(".telltale", tag);
const distDir = `.next-${tag}`;

let port = 0;
let browser: Browser | undefined;
let dev: Dev | undefined;

beforeAll(async () => {
  port = await freePort();
  browser = await chromium.launch({ executablePath: CHROMIUM, args: ["--no-sandbox", "--disable-background-networking", "--disable-component-update"] });
}, 60_000);

afterAll(async () => {
  await browser?.close();
  if (dev) await stopDev(dev);
  if (process.env.TEST_DEV_LOG) fs.writeFileSync(process.env.TEST_DEV_LOG, dev?.output.join("\n") ?? "");
  fs.rmSync(path.join(ROOT, dataDir), { recursive: true, force: true });
  fs.rmSync(path.join(ROOT, distDir), { recursive: true, force: true });
}, 60_000);

describe("npm run dev, restarted", () => {
  it("opens /projects once after a restart, with the tab of the first run still open: no reload loop", async () => {
    dev = await startDev({ port, dataDir, distDir });
    const session = await signIn(dev, `dev-${process.pid}@example.test`);
    const context = await browser!.newContext();
    await context.addCookies([{ name: "authjs.session-token", value: session, url: dev.origin }]);
    const page = await context.newPage();
    // Document loads of the tab (a reload is one; the router's own history.replaceState is not).
    const loads: string[] = [];
    page.on("request", (request) => {
      if (request.isNavigationRequest() && request.frame() === page.mainFrame()) loads.push(request.url());
    });
    const hmrConnected = () => page.waitForEvent("console", { predicate: (m) => m.text().includes("[HMR] connected"), timeout: 180_000 });
    // The first visit compiles the page (tens of seconds on a small machine).
    let connected = hmrConnected();
    await page.goto(`${dev.origin}/projects`, { waitUntil: "load", timeout: 180_000 });
    await connected;
    await stopDev(dev);

    // The open tab finds the new server by itself and reloads once: Next.js's
    // HMR client reloads a page whose socket reconnects to a new server
    // session. That one reload is by design; the loop was reloads after it.
    const reloaded = page.waitForEvent("framenavigated", { timeout: 300_000 }).then(hmrConnected);
    dev = await startDev({ port, dataDir, distDir });
    await reloaded;
    // Then the developer opens the page again.
    loads.length = 0;
    connected = hmrConnected();
    await page.goto(`${dev.origin}/projects`, { waitUntil: "load", timeout: 180_000 });
    await connected;
    expect(new URL(page.url()).pathname).toBe("/projects");
    // The loop showed within seconds of the load (a reload every few hundred ms): watch as long.
    await page.waitForTimeout(8_000);
    const compiled = dev.output.filter((line) => /Compiled in/.test(line));
    expect(loads, `document loads after the restart; "Compiled" lines: ${compiled.length}`).toEqual([`${dev.origin}/projects`]);
    await context.close();
  }, 600_000);
});
