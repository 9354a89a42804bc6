import { defineConfig, devices } from "@playwright/test";

// The production server the global setup starts (tests/e2e/global-setup.ts).
// "localhost", not 127.0.0.1: Next.js's NextURL rewrites loopback addresses
// to "localhost", so Auth.js would redirect a 127.0.0.1 browser to another
// origin (and its session cookie would stay behind).
const port = Number(process.env.E2E_PORT ?? 3217);

export default defineConfig({
  testDir: "tests/e2e",
  outputDir: "test-results/e2e",
  // One server, one embedded database (one query at a time): run serially.
  workers: 1,
  fullyParallel: false,
  forbidOnly: Boolean(process.env.CI),
  retries: 0,
  timeout: 90_000,
  expect: { timeout: 10_000 },
  reporter: [
    ["list"],
    ["html", { open: "never", outputFolder: "playwright-report" }],
    ["json", { outputFile: "test-results/playwright.json" }],
  ],
  globalSetup: "./tests/e2e/global-setup.ts",
  use: {
    baseURL: `http://localhost:${port}`,
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
  },
  projects: [
    {
      name: "chromium",
      use: {
        ...devices["Desktop Chrome"],
        // Debian's Chromium (apt), never a downloaded one.
        launchOptions: {
          executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
          args: [
            "--no-sandbox",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-sync",
          ],
        },
      },
    },
  ],
});
