/**
 * @telltale/client as a user gets it: `npm pack` in packages/client, the
 * tarball installed into a scratch project beside pino and winston, and three
 * plain Node.js ESM programs (tests/fixtures/clients/telltale-client) run
 * against the production server: the client itself, its pino transport (in
 * pino's worker thread, loaded by package name) and its winston transport.
 * None of them flushes: exit hooks and pino's close must deliver.
 */
import { execFile } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { byMessage, clientProject, FIXTURES, REPO, runNodeProgram, serverUrl, waitForEvents } from "@/tests/clients/helpers";

const run = promisify(execFile);

/** A child npm without the npm_* variables of the npm running us (they would point it at this repository). */
function npmEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env };
  for (const name of Object.keys(env)) if (/^npm_/i.test(name)) delete env[name];
  return env;
}

let scratch: string;
let app: string;

beforeAll(async () => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), "telltale-clients-pack-"));
  const { stdout } = await run("npm", ["pack", "--json", "--pack-destination", scratch], { cwd: path.join(REPO, "packages/client"), env: npmEnv(), maxBuffer: 16 * 1024 * 1024 });
  const [packed] = JSON.parse(stdout.slice(stdout.indexOf("["))) as { filename: string }[];
  app = path.join(scratch, "app");
  fs.mkdirSync(app);
  fs.writeFileSync(path.join(app, "package.json"), JSON.stringify({ name: "scratch-app", private: true, type: "module" }));
  await run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error", path.join(scratch, packed!.filename), "pino@10.4.0", "winston@3.19.0"], {
    cwd: app,
    env: npmEnv(),
    maxBuffer: 16 * 1024 * 1024,
  });
  for (const file of ["client.mjs", "pino.mjs", "winston.mjs"]) fs.copyFileSync(path.join(FIXTURES, "telltale-client", file), path.join(app, file));
}, 600_000);

afterAll(() => {
  if (scratch) fs.rmSync(scratch, { recursive: true, force: true });
});

async function runApp(file: string, label: string) {
  const project = await clientProject(label);
  const result = await runNodeProgram(path.join(app, file), { TELLTALE_URL: serverUrl(), TELLTALE_API_KEY: project.apiKey, TELLTALE_PROJECT_ID: project.id }, { cwd: app });
  return { project, result };
}

describe("@telltale/client from npm pack, in a scratch project", () => {
  it("the client: events with release, environment, tags, user, and an exception with its cause chain, delivered at exit", async () => {
    const { project, result } = await runApp("client.mjs", "client-pack");
    expect(result).toMatchObject({ code: 0, stderr: "" });
    const events = await waitForEvents(project.id, 3);
    expect(events).toHaveLength(3);
    expect(byMessage(events, "Order placed")).toMatchObject({ level: "info", release: "shop@2.4.1", environment: "production", context: { orderId: "o_123" } });
    expect(byMessage(events, "Payment slow")).toMatchObject({ level: "warn", tags: { provider: "acme" }, context: { ms: 950 } });
    const failure = byMessage(events, "Error: card declined");
    expect(failure).toMatchObject({ level: "error", user: { id: "u_9" }, context: { orderId: "o_124", cause: [{ type: "SyntaxError" }] } });
    expect(failure.context.stack).toMatch(/^Error: card declined\n\s+at chargeCard /);
  });

  it("pino through @telltale/client/pino: every level with its name, Error objects with stack and cause", async () => {
    const { project, result } = await runApp("pino.mjs", "pino-pack");
    expect(result).toMatchObject({ code: 0, stderr: "" });
    const events = await waitForEvents(project.id, 6);
    expect(events).toHaveLength(6);
    const levels = ["trace line", "debug line", "order placed", "stock low", "checkout failed", "RangeError: out of memory"].map((m) => {
      const e = byMessage(events, m);
      return [m, e.level, e.context.level];
    });
    expect(levels).toEqual([
      ["trace line", "info", "trace"],
      ["debug line", "info", "debug"],
      ["order placed", "info", "info"],
      ["stock low", "warn", "warn"],
      ["checkout failed", "error", "error"],
      ["RangeError: out of memory", "error", "fatal"],
    ]);
    const failed = byMessage(events, "checkout failed");
    expect(failed.context).toMatchObject({ error: { type: "Error", message: "payment failed", code: "E_PAY" }, cause: [{ type: "TypeError", message: "connection reset" }] });
    expect(failed.context.stack).toMatch(/^Error: payment failed\n\s+at /);
    expect(byMessage(events, "RangeError: out of memory").context.stack).toMatch(/^RangeError: out of memory\n\s+at /);
  });

  it("winston through @telltale/client/winston: levels with their names, Error objects with stack and cause", async () => {
    const { project, result } = await runApp("winston.mjs", "winston-pack");
    expect(result.code, result.stderr).toBe(0);
    const events = await waitForEvents(project.id, 6);
    expect(events).toHaveLength(6);
    const levels = ["Error: disk full", "slow query", "started", "GET /health 200", "state", "validation failed"].map((m) => {
      const e = byMessage(events, m);
      return [m, e.level, e.context.level];
    });
    expect(levels).toEqual([
      ["Error: disk full", "error", "error"],
      ["slow query", "warn", "warn"],
      ["started", "info", "info"],
      ["GET /health 200", "info", "http"],
      ["state", "info", "debug"],
      ["validation failed", "error", "error"],
    ]);
    const disk = byMessage(events, "Error: disk full");
    expect(disk.context.stack).toMatch(/^Error: disk full\n\s+at /);
    expect(disk.context.cause).toEqual([expect.objectContaining({ message: "quota exceeded" })]);
    expect(byMessage(events, "validation failed").context).toMatchObject({ error: { type: "TypeError", message: "bad input" }, stack: expect.stringMatching(/^TypeError: bad input/) });
    expect(byMessage(events, "slow query").context).toMatchObject({ ms: 950 });
  });
});
