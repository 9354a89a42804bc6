/**
 * Vitest global setup of the suites that run the production server
 * (`npm run test:instances`): a build to serve. `next build` runs unless
 * TEST_REUSE_BUILD=1 says the one in NEXT_DIST_DIR (default `.next`) is
 * current (CI, right after the browser tests built it).
 */
import { spawnSync } from "node:child_process";
import fs from "node:fs";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "../..");

export default function setup(): void {
  const buildId = path.join(ROOT, process.env.NEXT_DIST_DIR || ".next", "BUILD_ID");
  if (process.env.TEST_REUSE_BUILD === "1") {
    if (!fs.existsSync(buildId)) throw new Error(`TEST_REUSE_BUILD=1 but there is no build (${buildId}): run \`npm run build\` first.`);
    return;
  }
  console.log("building the production server (next build; TEST_REUSE_BUILD=1 reuses a current build)…");
  const built = spawnSync(path.join(ROOT, "node_modules", ".bin", "next"), ["build"], { cwd: ROOT, stdio: "inherit", env: { ...process.env, NODE_ENV: "production" } });
  if (built.status !== 0) throw new Error("next build failed");
}
