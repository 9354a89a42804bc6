/**
 * The package as a user gets it: `npm pack` (which builds dist/ with tsc),
 * installed into a scratch project, used from plain Node.js ESM (the client,
 * and pino loading the transport in its worker thread by package name)
 * against a real Telltale server. The script never calls flush(): the exit
 * hooks and pino's close must deliver. Its TypeScript types are checked too.
 */
import { execFile, spawn } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { promisify } from "node:util";
import { afterAll, beforeAll, expect, it } from "vitest";
import { prisma } from "@/lib/db/client";
import { startIngestHttp, type IngestHttp } from "@/tests/helpers/ingest-http";
import { makeProject } from "@/tests/helpers/ingest";

const run = promisify(execFile);
const repo = path.resolve(__dirname, "../..");
const packageDir = path.join(repo, "packages/client");

/** The environment for a child npm: without the npm_* variables of the `npm test` running us (npm_config_local_prefix would point it at this repository). */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, ...extra };
  for (const name of Object.keys(env)) if (/^npm_/i.test(name)) delete env[name];
  return env;
}

let server: IngestHttp;
let scratch: string;
beforeAll(async () => {
  server = await startIngestHttp();
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), "telltale-client-pack-"));
});
afterAll(async () => {
  await server.close();
  fs.rmSync(scratch, { recursive: true, force: true });
});

// About 20 s on a quiet machine (tsc twice, npm install from the cache); the
// limit is a hang guard for a machine shared with other test runs.
it("npm pack, npm install ./telltale-client-0.1.0.tgz, then plain Node.js ESM sends events", { timeout: 600_000 }, async () => {
  const { stdout } = await run("npm", ["pack", "--json", "--pack-destination", scratch], { cwd: packageDir, env: cleanEnv(), maxBuffer: 16 * 1024 * 1024 });
  const [packed] = JSON.parse(stdout.slice(stdout.indexOf("["))) as { filename: string; files: { path: string }[] }[];
  expect(packed!.filename).toBe("telltale-client-0.1.0.tgz");
  const files = packed!.files.map((f) => f.path).sort();
  expect(files).toEqual(expect.arrayContaining(["LICENSE", "README.md", "package.json", "dist/index.js", "dist/index.d.ts", "dist/pino.js", "dist/pino.d.ts", "dist/winston.js", "dist/winston.d.ts"]));
  expect(files.filter((f) => !f.startsWith("dist/") && !["LICENSE", "README.md", "package.json"].includes(f))).toEqual([]);

  const app = path.join(scratch, "app");
  fs.mkdirSync(app);
  fs.writeFileSync(path.join(app, "package.json"), JSON.stringify({ name: "scratch-app", private: true, type: "module" }));
  await run("npm", ["install", "--prefer-offline", "--no-audit", "--no-fund", "--loglevel=error", path.join(scratch, packed!.filename), "pino@10.4.0"], {
    cwd: app,
    env: cleanEnv(),
    maxBuffer: 16 * 1024 * 1024,
  });

  // The declarations work for a TypeScript user (NodeNext resolution through the exports map).
  fs.writeFileSync(
    path.join(app, "check.mts"),
    [
      'import { createClient, type EventInput, type TelltaleClient } from "@telltale/client";',
      'import transport, { type PinoTransportOptions } from "@telltale/client/pino";',
      'import { TelltaleTransport } from "@telltale/client/winston";',
      'const client: TelltaleClient = createClient({ url: "https://t.example", apiKey: "tlt_x", projectId: "p", tags: { a: "b" } });',
      'client.captureException(new Error("x"), { k: 1 }, { release: "1.0.0", user: { id: "u" } });',
      'const flushed: Promise<boolean> = client.flush({ timeoutMs: 10 });',
      'const event: EventInput = { level: "warn", message: "m", projectId: "p" };',
      'const options: PinoTransportOptions = { url: "u", projectId: "p" };',
      "void flushed; void event; void transport(options); void TelltaleTransport;",
      '// @ts-expect-error: not a level',
      'const bad: EventInput = { level: "debug", message: "m", projectId: "p" };',
      "void bad;",
    ].join("\n"),
  );
  await run(path.join(repo, "node_modules/.bin/tsc"), ["--noEmit", "--strict", "--module", "nodenext", "--moduleResolution", "nodenext", "--target", "es2022", "--types", "node", "--typeRoots", path.join(repo, "node_modules/@types"), "check.mts"], { cwd: app });

  const project = await makeProject("npm-pack");
  fs.writeFileSync(
    path.join(app, "main.mjs"),
    [
      'import { createClient } from "@telltale/client";',
      'import pino from "pino";',
      "// A long shutdown timeout: the test server may be slow on a busy machine.",
      "const options = { url: process.env.TELLTALE_URL, apiKey: process.env.TELLTALE_API_KEY, projectId: process.env.TELLTALE_PROJECT_ID, shutdownTimeoutMs: 120000 };",
      "const telltale = createClient({ ...options, release: 'scratch@1.0.0', environment: 'test' });",
      'telltale.info("hello from the packed client", { node: process.version });',
      'telltale.captureException(new Error("packed failure", { cause: new TypeError("packed cause") }));',
      'const logger = pino(pino.transport({ target: "@telltale/client/pino", options }));',
      'logger.warn({ via: "worker" }, "hello from pino in a worker");',
      "// No flush, no close: the process just ends.",
    ].join("\n"),
  );
  const exit = await new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
    const child = spawn(process.execPath, ["main.mjs"], { cwd: app, env: cleanEnv({ TELLTALE_URL: server.url, TELLTALE_API_KEY: project.apiKey, TELLTALE_PROJECT_ID: project.id }), stdio: ["ignore", "ignore", "pipe"] });
    let stderr = "";
    child.stderr.on("data", (chunk) => (stderr += chunk));
    child.on("error", reject);
    child.on("close", (code) => resolve({ code, stderr }));
  });
  expect(exit).toEqual({ code: 0, stderr: "" });

  const rows = await prisma.event.findMany({ where: { projectId: project.id }, select: { level: true, message: true, context: true, release: true } });
  const byMessage = new Map(rows.map((r) => [r.message, r]));
  expect([...byMessage.keys()].sort()).toEqual(["Error: packed failure", "hello from pino in a worker", "hello from the packed client"]);
  expect(byMessage.get("hello from the packed client")).toMatchObject({ level: "info", release: "scratch@1.0.0" });
  expect(byMessage.get("Error: packed failure")).toMatchObject({ level: "error", context: { cause: [{ type: "TypeError", message: "packed cause" }] } });
  expect(byMessage.get("hello from pino in a worker")).toMatchObject({ level: "warn", context: { level: "warn", via: "worker" } });
});
