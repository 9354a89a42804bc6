import fs from "node:fs";
import path from "node:path";

const DEV_SERVER_FILE = path.resolve(".telltale", "dev-server.json");

/** `npm run dev` notes the port it serves on, so operator commands in another terminal print DSNs and links for it. */
export function recordDevServerPort(port: number, file = DEV_SERVER_FILE): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${JSON.stringify({ port, pid: process.pid })}\n`);
}

/**
 * Development only: with neither PORT nor AUTH_URL set, the operator CLI
 * takes the port of a running `npm run dev` (PORT=3400 npm run dev, then
 * `npm run telltale -- project create` in another terminal prints a DSN on
 * 3400, not 3000). Answers the port taken, if any.
 */
export function adoptDevServerPort(env: Record<string, string | undefined> = process.env, file = DEV_SERVER_FILE): number | null {
  if (env.PORT || env.AUTH_URL) return null;
  let recorded: { port?: unknown; pid?: unknown };
  try {
    recorded = JSON.parse(fs.readFileSync(file, "utf8"));
  } catch {
    return null;
  }
  const { port, pid } = recorded;
  if (!Number.isInteger(port) || !Number.isInteger(pid) || !isRunning(pid as number)) return null;
  env.PORT = String(port);
  return port as number;
}

function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}
