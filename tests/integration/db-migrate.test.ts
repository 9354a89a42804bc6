import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { afterEach, describe, expect, inject, it } from "vitest";
import { startEphemeralPostgres } from "@/tools/db/embedded";
import { applyMigrations, diffMigrationsToSchema, listMigrations, migrationStatus, SCHEMA_PATH } from "@/tools/db/migrate";

const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const ALL = listMigrations().migrationDirectories.map((d) => d.path);

const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const fn of cleanups.splice(0).reverse()) await fn();
});

async function query<T extends pg.QueryResultRow>(url: string, sql: string): Promise<T[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

/** An empty database of the run's kind: a new database on the operator's
 * server, or a new in-memory PGlite for the embedded run. */
async function freshDatabase(): Promise<string> {
  if (inject("databaseKind") === "embedded") {
    const db = await startEphemeralPostgres();
    cleanups.push(() => db.stop());
    return db.url;
  }
  const name = `telltale_test_${Date.now()}_${randomBytes(3).toString("hex")}`;
  const admin = new URL(inject("databaseUrl"));
  await query(admin.href, `CREATE DATABASE "${name}"`);
  cleanups.push(() => query(admin.href, `DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`).then(() => {}));
  const url = new URL(admin.href);
  url.pathname = `/${name}`;
  return url.href;
}

async function appliedRows(url: string) {
  return query<{ migration_name: string; finished: boolean }>(url, "SELECT migration_name, finished_at IS NOT NULL AS finished FROM _prisma_migrations ORDER BY migration_name");
}

function runMigrateScript(url: string): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    // A fresh database reached directly: no DIRECT_URL of the run's pooler.
    const { DIRECT_URL: _direct, ...env } = process.env;
    const child = spawn(process.execPath, ["--import", "tsx", "ops/db-migrate.ts"], { cwd: ROOT, env: { ...env, DATABASE_URL: url } });
    let out = "";
    child.stdout.on("data", (d) => (out += d));
    child.stderr.on("data", (d) => (out += d));
    child.on("exit", (code) => resolve({ code, out }));
  });
}

describe("migrations", () => {
  it("has at least the initial migration and its lock file", () => {
    expect(ALL.length).toBeGreaterThan(0);
    expect(ALL[0]).toMatch(/^\d{14}_init$/);
    expect(listMigrations().lockfile.content).toContain('provider = "postgresql"');
  });

  it("applies every migration once; applying again is a no-op", async () => {
    const url = await freshDatabase();
    expect(await migrationStatus(url)).toEqual({ pending: ALL, failed: [], unassignedEvents: 0 });

    expect(await applyMigrations(url)).toEqual(ALL);
    expect(await applyMigrations(url)).toEqual([]);
    expect(await migrationStatus(url)).toEqual({ pending: [], failed: [], unassignedEvents: 0 });
    expect(await appliedRows(url)).toEqual(ALL.map((migration_name) => ({ migration_name, finished: true })));
    const tables = await query<{ t: string }>(url, "SELECT to_regclass('events')::text AS t");
    expect(tables).toEqual([{ t: "events" }]);
  });

  it("two concurrent applyMigrations on a fresh database both succeed and apply each migration once", async () => {
    const url = await freshDatabase();
    const [a, b] = await Promise.all([applyMigrations(url), applyMigrations(url)]);
    expect([...a, ...b].sort()).toEqual(ALL);
    expect(await appliedRows(url)).toEqual(ALL.map((migration_name) => ({ migration_name, finished: true })));
  });

  it("two concurrent `npm run db:migrate` processes both succeed", async () => {
    const url = await freshDatabase();
    const [a, b] = await Promise.all([runMigrateScript(url), runMigrateScript(url)]);
    expect({ code: a.code, out: a.out }).toMatchObject({ code: 0 });
    expect({ code: b.code, out: b.out }).toMatchObject({ code: 0 });
    const applied = [a.out, b.out].join("\n").match(/^Applied \S+/gm) ?? [];
    expect(applied.sort()).toEqual(ALL.map((n) => `Applied ${n}`));
    expect(await appliedRows(url)).toHaveLength(ALL.length);
  });

  it("prisma/schema.prisma and prisma/migrations agree (else: npm run db:migration -- <name>)", async () => {
    const sql = await diffMigrationsToSchema();
    expect(sql, `schema.prisma has changes no migration covers. Run: npm run db:migration -- <name>\n${sql}`).toBe("");
  });

  it("the agreement check does detect a schema change", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), "telltale-schema-"));
    cleanups.push(async () => fs.rmSync(dir, { recursive: true, force: true }));
    const schemaPath = path.join(dir, "schema.prisma");
    fs.writeFileSync(schemaPath, `${fs.readFileSync(SCHEMA_PATH, "utf8")}\nmodel Probe {\n  id Int @id\n  @@map("probe")\n}\n`);
    expect(await diffMigrationsToSchema({ schemaPath })).toContain('CREATE TABLE "probe"');
  });
});
