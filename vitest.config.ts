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
    include: ["tests/unit/**/*.test.ts", "tests/integration/**/*.test.ts"],
    globalSetup: ["tests/setup/global-setup.ts"],
    setupFiles: ["tests/setup/worker-env.ts"],
    // Files run in parallel on one shared database: tests make their own
    // users and projects with unique names and never truncate tables.
    fileParallelism: true,
    testTimeout: 30_000,
    hookTimeout: 60_000,
    server: { deps: { inline: ["next-auth"] } },
  },
});
