import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const root = fileURLToPath(new URL("./", import.meta.url));

/**
 * `npm run test:dev`: the development server (`npm run dev`) as a developer
 * runs it, restarts included, with its own embedded database and build
 * folder inside the project. Two cold `next dev` starts take minutes on a
 * small machine, so it stays out of `npm test`.
 */
export default defineConfig({
  resolve: { alias: [{ find: /^@\//, replacement: root }] },
  test: {
    environment: "node",
    include: ["tests/dev/**/*.test.ts"],
    fileParallelism: false,
    testTimeout: 300_000,
    hookTimeout: 120_000,
  },
});
