import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const root = fileURLToPath(new URL("./", import.meta.url));

export default defineConfig({
  resolve: {
    // `@/lib/...` as in tsconfig; a regex so `@prisma/...` is left alone.
    alias: [{ find: /^@\//, replacement: root }],
  },
  test: {
    environment: "node",
    include: ["tests/unit/**/*.test.{ts,tsx}", "tests/integration/**/*.test.ts"],
    globalSetup: ["tests/setup/global-setup.ts"],
    setupFiles: ["tests/setup/worker-env.ts"],
    // Files run in parallel on one shared database: tests make their own
    // users and projects with unique names and never truncate tables.
    fileParallelism: true,
    // Most of a test's time is spent waiting on the database, child processes
    // and sockets, not on the CPU: three workers on two cores finish the
    // suite in about two thirds of the time one worker takes.
    maxWorkers: 3,
    // Hang guards, not speed checks. On a slow 2-core host with another
    // suite or a build beside it, tests on the embedded database that take
    // 1-6 s alone took 20-31 s (migrations, retention): 30 s failed them.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    server: { deps: { inline: ["next-auth"] } },
  },
});
