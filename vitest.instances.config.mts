import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const root = fileURLToPath(new URL("./", import.meta.url));

/**
 * `npm run test:instances`: tests that start the production server
 * (`npm start`) several times over, against the run's database (as
 * `npm test`: DATABASE_URL, or an embedded one) and the machine's Redis.
 * Needs a build; tests/setup/production-build.ts makes one.
 */
export default defineConfig({
  resolve: { alias: [{ find: /^@\//, replacement: root }] },
  test: {
    environment: "node",
    include: ["tests/instances/**/*.test.ts"],
    // The build first, then the database (migrated) that the servers share.
    globalSetup: ["tests/setup/production-build.ts", "tests/setup/global-setup.ts"],
    setupFiles: ["tests/setup/worker-env.ts"],
    // Three servers take the machine: one file at a time.
    fileParallelism: false,
    maxWorkers: 1,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    server: { deps: { inline: ["next-auth"] } },
  },
});
