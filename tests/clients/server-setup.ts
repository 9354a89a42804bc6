/**
 * Vitest global setup of `npm run test:clients`: ONE production server
 * (`npm start`, i.e. ops/start.ts then `next start`) on a free port, against
 * the run's database (the previous global setup made and migrated it), shared
 * by every client test. Its address is `inject("clientsServer")`.
 */
import { spawn, type ChildProcess } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { freePort } from "@/tests/helpers/free-port";

declare module "vitest" {
  export interface ProvidedContext {
    /** The production server's origin, e.g. http://127.0.0.1:41234 (also its AUTH_URL, so DSNs name it). */
    clientsServer: string;
  }
}

const ROOT = path.resolve(import.meta.dirname, "../..");
const START_TIMEOUT_MS = 120_000;

async function waitUntilLive(base: string, child: ChildProcess, logFile: string): Promise<void> {
  const deadline = Date.now() + START_TIMEOUT_MS;
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) {
      throw new Error(`npm start exited (${child.exitCode ?? child.signalCode}) before answering:\n${fs.readFileSync(logFile, "utf8").slice(-4000)}`);
    }
    try {
      const res = await fetch(`${base}/api/health/ready`);
      if (res.status === 200) return;
    } catch {
      // Not listening yet.
    }
    if (Date.now() > deadline) throw new Error(`npm start did not become ready in ${START_TIMEOUT_MS / 1000} s:\n${fs.readFileSync(logFile, "utf8").slice(-4000)}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const logDir = fs.mkdtempSync(path.join(os.tmpdir(), "telltale-clients-server-"));
  const logFile = path.join(logDir, "server.log");
  const log = fs.openSync(logFile, "a");
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: "production",
    PORT: String(port),
    // The public URL: DSNs are built from it, as on a real installation.
    AUTH_URL: base,
  };
  // The server's log lines go to a file: a failed start shows its last lines.
  delete env.TELLTALE_LOG;
  // Rate limits in this process's memory, as a single server without Redis.
  delete env.REDIS_URL;
  for (const name of Object.keys(env)) if (/^npm_/i.test(name)) delete env[name];
  const child = spawn(process.execPath, ["--import", "tsx", "ops/start.ts"], { cwd: ROOT, env, stdio: ["ignore", log, log], detached: true });
  fs.closeSync(log);
  const stop = () =>
    new Promise<void>((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve();
      child.once("exit", () => resolve());
      try {
        process.kill(-child.pid!, "SIGTERM");
      } catch {
        resolve();
      }
    });
  try {
    await waitUntilLive(base, child, logFile);
  } catch (error) {
    await stop();
    throw error;
  }
  project.provide("clientsServer", base);
  return async () => {
    await stop();
    if (process.env.TEST_KEEP_SERVER_LOG !== "1") fs.rmSync(logDir, { recursive: true, force: true });
    else console.log(`server log: ${logFile}`);
  };
}
