/**
 * Vitest global setup: ONE database per run, shared by every test file.
 * - DATABASE_URL unset: a FRESH embedded PostgreSQL (PGlite) in a temp folder,
 *   migrated, deleted afterwards. A fresh clone needs no database server.
 * - DATABASE_URL set: migrations are applied to it (CI uses a new database).
 * Tests create their own users and projects with unique names, so files can
 * run in parallel against the shared database.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { startEmbeddedPostgres } from "@/tools/db/embedded";
import { applyMigrations } from "@/tools/db/migrate";

declare module "vitest" {
  export interface ProvidedContext {
    databaseUrl: string;
    /** "embedded": the run's own PGlite; "external": the operator's DATABASE_URL. */
    databaseKind: "embedded" | "external";
    /** Environment the workers take on (they may not inherit ours). */
    testEnv: Record<string, string>;
  }
}

export default async function setup(project: TestProject): Promise<() => Promise<void>> {
  // Test values, only when the caller did not choose them.
  process.env.TELLTALE_SECRET ??= randomBytes(32).toString("base64url");
  process.env.AUTH_SECRET ??= randomBytes(32).toString("base64url");
  process.env.AUTH_TRUST_HOST ??= "true";
  process.env.TELLTALE_LOG ??= "silent";
  // A loaded machine (and the embedded database, which serves one query at a
  // time) can take seconds to accept a connection; production's 3 s would fail tests, not code.
  process.env.DATABASE_CONNECT_TIMEOUT_MS ??= "30000";

  let stop = async () => {};
  let kind: "embedded" | "external" = "external";
  if (!process.env.DATABASE_URL) {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "telltale-test-db-"));
    const server = await startEmbeddedPostgres({ dataDir, handleSignals: false });
    process.env.DATABASE_URL = server.url;
    kind = "embedded";
    stop = async () => {
      await server.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    };
  }
  const url = process.env.DATABASE_URL;
  try {
    await applyMigrations(url);
  } catch (error) {
    await stop();
    throw error;
  }
  project.provide("databaseUrl", url);
  project.provide("databaseKind", kind);
  const names = ["DATABASE_URL", "TELLTALE_SECRET", "AUTH_SECRET", "AUTH_TRUST_HOST", "TELLTALE_LOG", "DATABASE_CONNECT_TIMEOUT_MS"];
  project.provide("testEnv", Object.fromEntries(names.map((n) => [n, process.env[n] ?? ""])));
  return stop;
}
