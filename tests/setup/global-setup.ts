/**
 * Vitest global setup: ONE database per run, shared by every test file.
 * - DATABASE_URL unset: a FRESH embedded PostgreSQL (PGlite) in a temp folder,
 *   migrated, deleted afterwards. A fresh clone needs no database server.
 * - DATABASE_URL set: migrations are applied to it (CI uses a new database).
 * - TEST_PGBOUNCER=1 (with DATABASE_URL): then PgBouncer in transaction mode
 *   is started in front of it, and the tests get DATABASE_URL through it and
 *   DIRECT_URL to the server (tests/helpers/pgbouncer.ts).
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
import { startPgBouncer } from "@/tests/helpers/pgbouncer";

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
  // Likewise for a statement queued behind others (tests of the deadline set their own).
  process.env.DATABASE_QUERY_TIMEOUT_MS ??= "30000";

  let stop = async () => {};
  let kind: "embedded" | "external" = "external";
  if (!process.env.DATABASE_URL) {
    const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), "telltale-test-db-"));
    // Three workers' pools, child processes (CLI, crash tests) and three
    // extra instances at once: far more connections than one app opens.
    const server = await startEmbeddedPostgres({ dataDir, handleSignals: false, maxConnections: 400 });
    process.env.DATABASE_URL = server.url;
    // One session shared by every connection (see tools/db/ensure.ts).
    process.env.DATABASE_PREPARED_STATEMENTS ??= "false";
    kind = "embedded";
    stop = async () => {
      await server.stop();
      fs.rmSync(dataDir, { recursive: true, force: true });
    };
  }
  const url = process.env.DATABASE_URL;
  try {
    await applyMigrations(url);
    // TEST_PGBOUNCER=1: everything but migrations goes through PgBouncer in
    // transaction mode (as on a host with a pooler); DIRECT_URL is the server.
    if (process.env.TEST_PGBOUNCER === "1") {
      if (kind === "embedded") throw new Error("TEST_PGBOUNCER=1 needs DATABASE_URL: a PostgreSQL server to put PgBouncer in front of.");
      const bouncer = await startPgBouncer(url);
      const stopDatabase = stop;
      stop = async () => {
        await bouncer.stop();
        await stopDatabase();
      };
      process.env.DIRECT_URL = url;
      process.env.DATABASE_URL = bouncer.url;
    }
  } catch (error) {
    await stop();
    throw error;
  }
  project.provide("databaseUrl", url);
  project.provide("databaseKind", kind);
  const names = ["DATABASE_URL", "DIRECT_URL", "TELLTALE_SECRET", "AUTH_SECRET", "AUTH_TRUST_HOST", "TELLTALE_LOG", "DATABASE_CONNECT_TIMEOUT_MS", "DATABASE_QUERY_TIMEOUT_MS", "DATABASE_PREPARED_STATEMENTS"];
  project.provide("testEnv", Object.fromEntries(names.map((n) => [n, process.env[n] ?? ""])));
  return stop;
}
