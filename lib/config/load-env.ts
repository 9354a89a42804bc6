import { loadEnvConfig } from "@next/env";

/**
 * Reads .env, .env.local, .env.<mode> like Next.js does, so the launchers and
 * the operator CLI see the same configuration as the server they start (the
 * process environment still wins).
 */
export function loadEnvFiles(mode: "development" | "production"): void {
  loadEnvConfig(process.cwd(), mode === "development", { info: () => {}, error: console.error });
}
