// postinstall: `prisma generate`. The Prisma CLI insists on a schema engine
// binary even though generate only asks it for --version, and downloads one;
// where that download is impossible (offline, registry-only networks) the
// stand-in script answers instead. Set PRISMA_SCHEMA_ENGINE_BINARY yourself to
// use a real engine. Migrations never use it (see tools/db/migrate.ts).
import { spawnSync } from "node:child_process";
import { createRequire } from "node:module";
import path from "node:path";
import { fileURLToPath } from "node:url";

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..", "..");
const env = { ...process.env };
// The stand-in is a shell script: on Windows let Prisma fetch its engine.
if (!env.PRISMA_SCHEMA_ENGINE_BINARY && process.platform !== "win32") {
  env.PRISMA_SCHEMA_ENGINE_BINARY = path.join(root, "scripts", "prisma", "fake-schema-engine.sh");
}
const prisma = createRequire(path.join(root, "package.json")).resolve("prisma/build/index.js");
const result = spawnSync(process.execPath, [prisma, "generate"], { cwd: root, env, stdio: "inherit" });
process.exit(result.status ?? 1);
