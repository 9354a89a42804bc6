/**
 * The container image without a container engine: reads the Dockerfile's
 * runner and tools stages and performs them on a local build, so that
 * `npm run test:standalone` and `npm run bench:cold-start` run exactly what
 * the image would. Only the instructions the runner stage may use are
 * understood; anything else stops with an error rather than being skipped.
 */
import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import pg from "pg";

export const ROOT = path.resolve(import.meta.dirname, "..");
/** Where the image builds and runs (WORKDIR of both stages). */
const IMAGE_APP = "/app";

export type RunnerStage = {
  workdir: string;
  env: Record<string, string>;
  copies: { from: string; to: string }[];
  user: string | null;
  healthcheck: string[] | null;
  cmd: string[];
};

type Instruction = { keyword: string; args: string };

/** The Dockerfile's stages by name, each a list of instructions (continuations joined, comments dropped). */
function readStages(file: string): Map<string, Instruction[]> {
  const text = fs.readFileSync(file, "utf8").replace(/\\\r?\n/g, " ");
  const stages = new Map<string, Instruction[]>();
  let current: Instruction[] | null = null;
  for (const raw of text.split("\n")) {
    const line = raw.trim();
    if (!line || line.startsWith("#")) continue;
    const match = /^([A-Za-z]+)\s+(.*)$/.exec(line);
    if (!match) throw new Error(`Dockerfile: cannot read the line "${line}"`);
    const keyword = match[1]!.toUpperCase();
    const args = match[2]!.replace(/\s+/g, " ").trim();
    if (keyword === "FROM") {
      const name = / AS (\S+)$/i.exec(args)?.[1];
      current = [];
      if (name) stages.set(name, current);
      continue;
    }
    current?.push({ keyword, args });
  }
  return stages;
}

const jsonArray = (text: string, what: string): string[] => {
  const value: unknown = JSON.parse(text);
  if (!Array.isArray(value) || !value.every((v) => typeof v === "string")) throw new Error(`Dockerfile: ${what} must be a JSON array of strings`);
  return value;
};

/** The runner stage, as data. */
export function readRunnerStage(dockerfile = path.join(ROOT, "Dockerfile")): RunnerStage {
  const instructions = readStages(dockerfile).get("runner");
  if (!instructions) throw new Error("Dockerfile: no stage named runner");
  const stage: RunnerStage = { workdir: IMAGE_APP, env: {}, copies: [], user: null, healthcheck: null, cmd: [] };
  for (const { keyword, args } of instructions) {
    switch (keyword) {
      case "WORKDIR":
        if (args !== IMAGE_APP) throw new Error(`Dockerfile: the runner's WORKDIR must be ${IMAGE_APP}`);
        break;
      case "ENV":
        for (const pair of args.split(" ")) {
          const eq = pair.indexOf("=");
          if (eq < 1) throw new Error(`Dockerfile: ENV ${pair}: write NAME=value`);
          stage.env[pair.slice(0, eq)] = pair.slice(eq + 1);
        }
        break;
      case "COPY": {
        const parts = args.split(" ");
        const from = parts.find((p) => p.startsWith("--from="));
        const paths = parts.filter((p) => !p.startsWith("--"));
        if (from !== "--from=build" || paths.length !== 2) throw new Error(`Dockerfile: the runner copies only from the build stage, one path at a time (COPY ${args})`);
        stage.copies.push({ from: paths[0]!, to: paths[1]! });
        break;
      }
      case "USER":
        stage.user = args;
        break;
      case "EXPOSE":
        break;
      case "HEALTHCHECK":
        stage.healthcheck = jsonArray(args.replace(/^(--\S+ )*CMD /, ""), "HEALTHCHECK CMD");
        break;
      case "CMD":
        stage.cmd = jsonArray(args, "CMD");
        break;
      default:
        throw new Error(`Dockerfile: scripts/standalone-image.ts does not perform ${keyword} in the runner stage; teach it or keep the stage simple`);
    }
  }
  if (stage.cmd.length === 0) throw new Error("Dockerfile: the runner has no CMD");
  return stage;
}

/** The tools stage's CMD (the one-off migration command). */
export function readToolsCommand(dockerfile = path.join(ROOT, "Dockerfile")): string[] {
  const cmd = readStages(dockerfile).get("tools")?.find((i) => i.keyword === "CMD");
  if (!cmd) throw new Error("Dockerfile: the tools stage has no CMD");
  return jsonArray(cmd.args, "CMD");
}

/** The build's dist folder: `.next`, or NEXT_DIST_DIR as next.config.ts reads it. */
export function distDir(): string {
  return process.env.NEXT_DIST_DIR || ".next";
}

/**
 * A path of the image (under /app) in this checkout or in the assembled
 * folder; the build's `.next` is this build's dist folder.
 */
function localPath(imagePath: string, base: string): string {
  const relative = path.posix.relative(IMAGE_APP, path.posix.resolve(IMAGE_APP, imagePath));
  if (relative.startsWith("..")) throw new Error(`Dockerfile: ${imagePath} is outside ${IMAGE_APP}`);
  return path.join(base, relative.replace(/^\.next(?=\/|$)/, distDir()));
}

/**
 * Performs the runner stage's COPY steps from this checkout's build into a
 * new folder outside the checkout (so nothing resolves from the checkout's
 * node_modules by accident), and returns it.
 */
export function assembleRunner(stage: RunnerStage): string {
  const server = path.join(ROOT, distDir(), "standalone", "server.js");
  if (!fs.existsSync(server)) {
    throw new Error(`No standalone build at ${path.relative(ROOT, server)}: run \`npm run build\` first (output: "standalone" in next.config.ts).`);
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), "telltale-image-"));
  for (const { from, to } of stage.copies) {
    fs.cpSync(localPath(from, ROOT), localPath(to, dir), { recursive: true, verbatimSymlinks: true });
  }
  return dir;
}

/** The environment the container's process sees: the image's ENV and what `docker run -e` adds, nothing of this shell. */
export function containerEnv(stage: RunnerStage, runtime: Record<string, string>): Record<string, string> {
  return { PATH: process.env.PATH ?? "/usr/local/bin:/usr/bin:/bin", HOME: os.tmpdir(), ...stage.env, ...runtime };
}

/** Starts a command of the image (`node …` is this Node) in `cwd`, in its own process group. */
export function spawnImageCommand(command: string[], cwd: string, env: Record<string, string>, output: "inherit" | "ignore" | number = "ignore"): ChildProcess {
  const [bin, ...args] = command;
  return spawn(bin === "node" ? process.execPath : bin!, args, { cwd, env: env as NodeJS.ProcessEnv, detached: true, stdio: ["ignore", output, output] });
}

/** Stops a process group: SIGTERM, SIGKILL after `graceMs`. */
export async function stopGroup(child: ChildProcess, graceMs = 10_000): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise<void>((resolve) => child.once("exit", () => resolve()));
  const signal = (s: NodeJS.Signals) => {
    try {
      process.kill(-child.pid!, s);
    } catch {
      // already gone
    }
  };
  signal("SIGTERM");
  const timer = setTimeout(() => signal("SIGKILL"), graceMs);
  await exited;
  clearTimeout(timer);
}


/** A new, empty database on the machine's PostgreSQL (PGHOST, PGPORT, PGUSER; trust auth), dropped by `drop`. */
export async function scratchDatabase(label: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const host = process.env.PGHOST ?? "127.0.0.1";
  const port = process.env.PGPORT ?? "5432";
  const user = process.env.PGUSER ?? "postgres";
  const name = `telltale_${label}_${Date.now()}_${process.pid}`;
  const admin = async (sql: string) => {
    const client = new pg.Client({ host, port: Number(port), user, database: "postgres", connectionTimeoutMillis: 5000 });
    await client.connect();
    try {
      await client.query(sql);
    } finally {
      await client.end().catch(() => {});
    }
  };
  await admin(`CREATE DATABASE "${name}"`);
  return { url: `postgresql://${user}@${host}:${port}/${name}`, drop: () => admin(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`) };
}

/** Secrets as an operator would generate them (openssl rand -base64 32). */
export function generatedSecret(): string {
  return randomBytes(32).toString("base64");
}

/** Runs an npm script of this checkout (what the tools image runs), returning its output; throws on failure. */
export function runTool(command: string[], env: Record<string, string>): string {
  const [bin, ...args] = command;
  const result = spawnSync(bin!, args, { cwd: ROOT, env: { ...process.env, ...env }, encoding: "utf8", timeout: 180_000 });
  if (result.status !== 0) throw new Error(`${command.join(" ")} failed (${result.status ?? result.signal}):\n${result.stdout}\n${result.stderr}`);
  return result.stdout;
}
