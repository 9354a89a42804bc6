import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const root = fileURLToPath(new URL("./", import.meta.url));

/**
 * `npm run test:clients`: real clients (the Sentry SDKs for Node.js, the
 * browser, Ruby and Python, OpenTelemetry exporters, pino, winston, the
 * packed @telltale/client) run as their users run them, against ONE
 * production server (`npm start`) on the run's database (as `npm test`:
 * DATABASE_URL, or an embedded one). Needs a build;
 * tests/setup/production-build.ts makes one unless TEST_REUSE_BUILD=1.
 */
export default defineConfig({
  resolve: { alias: [{ find: /^@\//, replacement: root }] },
  test: {
    environment: "node",
    include: ["tests/clients/**/*.test.ts"],
    // The build, then the database (migrated), then the server on it.
    globalSetup: ["tests/setup/production-build.ts", "tests/setup/global-setup.ts", "tests/clients/server-setup.ts"],
    setupFiles: ["tests/setup/worker-env.ts"],
    // Each test makes its own project. Most of a test's time is a child
    // process starting or a browser loading, not the server: two files at once.
    fileParallelism: true,
    maxWorkers: 2,
    // Hang guards for a loaded 2-core machine, not speed checks.
    testTimeout: 120_000,
    hookTimeout: 180_000,
    server: { deps: { inline: ["next-auth"] } },
  },
});
