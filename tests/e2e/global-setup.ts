/**
 * Brings up what the e2e tests run against, all local and throwaway:
 * an SMTP sink, a fresh migrated embedded database, and the PRODUCTION build
 * started as `npm start` does (run `next build` first; `npm run test:e2e`
 * does). Returns the teardown. Tests find the inbox through E2E_MAIL_DIR.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { FullConfig } from "@playwright/test";
import { startMailSink } from "./support/mail-sink";

const ROOT = path.resolve(__dirname, "../..");
const bin = (name: string) => path.join(ROOT, "node_modules", ".bin", name);

function waitForLine(child: ChildProcess, prefix: string, timeoutMs: number): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffer = "";
    const timer = setTimeout(() => reject(new Error(`timed out waiting for "${prefix}"`)), timeoutMs);
    child.stdout?.on("data", (chunk: Buffer) => {
      buffer += chunk.toString();
      for (const line of buffer.split("\n")) {
        if (line.startsWith(prefix)) {
          clearTimeout(timer);
          resolve(line.slice(prefix.length).trim());
        }
      }
    });
    child.once("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`process exited with code ${code} before "${prefix}"`));
    });
  });
}

async function waitForHttp(url: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the server exited with code ${child.exitCode}`);
    try {
      const response = await fetch(url);
      if (response.ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${url} did not answer 200 within ${timeoutMs} ms`);
}

function stopChild(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const force = setTimeout(() => child.kill("SIGKILL"), 10_000);
    child.once("exit", () => {
      clearTimeout(force);
      resolve();
    });
    child.kill("SIGTERM");
  });
}

export default async function globalSetup(config: FullConfig): Promise<() => Promise<void>> {
  if (!fs.existsSync(path.join(ROOT, process.env.NEXT_DIST_DIR || ".next", "BUILD_ID"))) {
    throw new Error("No production build: run `npx next build` first (or `npm run test:e2e`, which builds).");
  }
  const baseURL = config.projects[0]?.use.baseURL;
  if (!baseURL) throw new Error("playwright.config.ts must set use.baseURL");
  const port = new URL(baseURL).port;

  const work = fs.mkdtempSync(path.join(os.tmpdir(), "telltale-e2e-"));
  const mailDir = path.join(work, "mail");
  const mail = await startMailSink(mailDir);
  process.env.E2E_MAIL_DIR = mailDir; // inherited by the test workers

  let db: ChildProcess | undefined;
  let server: ChildProcess | undefined;
  const teardown = async () => {
    await stopChild(server);
    await stopChild(db);
    await mail.stop();
    if (!process.env.E2E_KEEP) fs.rmSync(work, { recursive: true, force: true });
  };

  try {
    db = spawn(bin("tsx"), ["tests/e2e/support/db-server.ts", path.join(work, "pgdata")], {
      cwd: ROOT,
      stdio: ["pipe", "pipe", "inherit"],
    });
    const databaseUrl = await waitForLine(db, "READY ", 120_000);

    const log = fs.openSync(path.join(work, "server.log"), "a");
    // The summary panel must use the built-in digest: no model provider in tests.
    const env = { ...process.env };
    for (const name of ["OPENAI_API_KEY", "OPENAI_BASE_URL", "AI_MODEL"]) delete env[name];
    // What `npm start` runs (ops/start.ts): it checks the secrets and the
    // migrations, then runs `next start` on PORT.
    // Also handed to the specs (E2E_SERVER_ENV): summary.spec.ts starts a second server on the same database, with a model.
    const serverEnv: Record<string, string> = {
      NODE_ENV: "production",
      PORT: port,
      DATABASE_URL: databaseUrl,
      // Small pool: the embedded server serves one query at a time anyway.
      DATABASE_POOL_SIZE: "5",
      TELLTALE_SECRET: randomBytes(32).toString("base64"),
      AUTH_SECRET: randomBytes(32).toString("base64"),
      AUTH_URL: baseURL,
      AUTH_TRUST_HOST: "true",
      EMAIL_SERVER: `smtp://127.0.0.1:${mail.port}`,
      EMAIL_FROM: "Telltale <telltale@e2e.test>",
      // The alerts spec's webhook receiver listens on 127.0.0.1.
      ALERTS_ALLOW_PRIVATE_WEBHOOKS: "true",
      // Each spec signs in with new addresses (the sign-up policies
      // themselves are tested in tests/integration/auth-signin.test.ts).
      SIGNUP: "open",
      // Tests sign in many times from 127.0.0.1.
      SIGNIN_RATE_LIMIT_PER_IP: "1000",
    };
    process.env.E2E_SERVER_ENV = JSON.stringify(serverEnv);
    server = spawn(bin("tsx"), ["ops/start.ts"], { cwd: ROOT, stdio: ["ignore", log, log], env: { ...env, ...serverEnv } });
    await waitForHttp(`${baseURL}/api/health/ready`, server, 60_000);
    process.env.E2E_SERVER_LOG = path.join(work, "server.log");
  } catch (error) {
    if (fs.existsSync(path.join(work, "server.log"))) {
      process.stderr.write(`--- server log ---\n${fs.readFileSync(path.join(work, "server.log"), "utf8").slice(-4000)}\n`);
    }
    await teardown();
    throw error;
  }
  return teardown;
}
