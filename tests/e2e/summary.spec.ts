import { spawn, type ChildProcess } from "node:child_process";
import path from "node:path";
import { expect, test } from "@playwright/test";
import { startFakeOpenAI, truthfulAnswerTo, type FakeOpenAI } from "@/tests/helpers/fake-openai";
import { createProject, sendBatch, ago, HOUR } from "./support/projects";
import { screenshot, signInNewUser, watchReactErrors } from "./support/session";

// A second production server on the suite's database, with a model: the
// local fake OpenAI-compatible server, held until the test lets it answer.
const MODEL_PORT = Number(process.env.E2E_MODEL_PORT ?? 3218);
const MODEL_ORIGIN = `http://localhost:${MODEL_PORT}`;
const ROOT = path.resolve(__dirname, "../..");

let fake: FakeOpenAI;
let server: ChildProcess | undefined;

test.beforeAll(async () => {
  fake = await startFakeOpenAI();
  const base = JSON.parse(process.env.E2E_SERVER_ENV ?? "{}") as Record<string, string>;
  server = spawn(path.join(ROOT, "node_modules", ".bin", "tsx"), ["ops/start.ts"], {
    cwd: ROOT,
    stdio: "ignore",
    env: { ...process.env, ...base, PORT: String(MODEL_PORT), AUTH_URL: MODEL_ORIGIN, OPENAI_BASE_URL: fake.baseURL, AI_MODEL: "fake-e2e", AI_MAX_RETRIES: "0", AI_TIMEOUT_MS: "60000" },
  });
  await expect
    .poll(async () => (await fetch(`${MODEL_ORIGIN}/api/health/ready`).catch(() => null))?.status ?? 0, { timeout: 60_000, intervals: [250] })
    .toBe(200);
});

test.afterAll(async () => {
  if (server && server.exitCode === null) {
    const exited = new Promise((resolve) => server!.once("exit", resolve));
    server.kill("SIGTERM");
    await exited;
  }
  await fake.close();
});

test("the summary panel shows the digest at once, then the model's checked answer replaces it", async ({ page, request }, testInfo) => {
  const reactErrors = watchReactErrors(page);
  await signInNewUser(page, "summary");
  const project = await createProject(page, "Card payments");
  await sendBatch(request, project, [
    ...Array.from({ length: 12 }, (_, i) => ({ level: "error" as const, message: `Card authorization failed for order ord_${i}: gateway timeout`, timestamp: ago(HOUR / 2 - i * 60_000) })),
    ...Array.from({ length: 4 }, (_, i) => ({ level: "warn" as const, message: "Slow query on orders", timestamp: ago(HOUR / 3 - i * 60_000) })),
  ]);

  // The model holds its answer until released.
  fake.setMode({ kind: "slow", then: { kind: "answer", answer: (r) => truthfulAnswerTo(r, "Card authorizations are failing at the gateway.") } });
  // The session cookie is for "localhost": the second server on another port gets it too.
  await page.goto(`${MODEL_ORIGIN}/projects/${project.id}`);
  const panel = page.getByRole("region", { name: "Summary of recent events" });
  await panel.getByRole("button", { name: "Summarize" }).click();

  await test.step("the built-in digest, while the model has not answered", async () => {
    await expect(panel.getByText("Look first at:")).toBeVisible();
    await expect(panel.getByText(/12 events since (?:\d{4}-\d\d-\d\d )?\d\d:\d\d UTC/).first()).toBeVisible();
    await expect(panel.getByRole("status").filter({ hasText: "The AI model is writing its summary" })).toBeVisible();
    await expect(panel.getByText("Built-in digest (the AI model's answer follows)")).toBeVisible();
    // The model was asked and is still holding its answer.
    await fake.waitForRequests(1);
    await expect(panel.getByText("Card authorizations are failing at the gateway.")).toHaveCount(0);
    await screenshot(page, testInfo, "desktop-summary-digest-first");
  });

  await test.step("the model answers: its text replaces the digest", async () => {
    fake.release();
    await expect(panel.getByText("Card authorizations are failing at the gateway.")).toBeVisible();
    await expect(panel.getByText("Written by AI model fake-e2e, checked against the facts")).toBeVisible();
    await expect(panel.getByText("Look first at:")).toBeVisible();
    await expect(panel.getByText("Top issues")).toHaveCount(0);
    await expect(panel.getByRole("status").filter({ hasText: "The AI model is writing its summary" })).toHaveCount(0);
    await expect(panel.getByText(/12 events since (?:\d{4}-\d\d-\d\d )?\d\d:\d\d UTC/)).toBeVisible();
    await screenshot(page, testInfo, "desktop-summary-model");
  });
  reactErrors();
});
