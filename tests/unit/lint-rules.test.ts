/**
 * The house rules the linter keeps (eslint.config.mjs, tools/lint/): each
 * one refuses what it is for and lets the allowed places be; and every table
 * of the schema has an owner module.
 */
import fs from "node:fs";
import path from "node:path";
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";
import { TABLE_OWNERS } from "@/tools/lint/table-owners.mjs";

const ROOT = path.resolve(__dirname, "../..");
const eslint = new ESLint({ cwd: ROOT });

/** The rule ids reported for `code` as if it were the file at `file`. */
async function ruleIds(file: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, file) });
  return result!.messages.map((m) => m.ruleId ?? m.message);
}

describe("house lint rules", () => {
  it("a table is queried only in its owner's folder: Kysely, SQL text and Prisma calls", async () => {
    const kysely = 'import { sqlDb } from "@/lib/db/sql";\nexport const q = () => sqlDb().selectFrom("issues").selectAll().execute();\n';
    expect(await ruleIds("lib/alerts/example.ts", kysely)).toContain("telltale/table-owner");
    expect(await ruleIds("lib/issues/example.ts", kysely)).toEqual([]);
    const text = 'import { sql } from "kysely";\nexport const q = sql`SELECT 1 FROM events WHERE true`;\n';
    expect(await ruleIds("lib/ai/example.ts", text)).toContain("telltale/table-owner");
    expect(await ruleIds("lib/events/example.ts", text)).toEqual([]);
    const orm = 'import { prisma } from "@/lib/db/client";\nexport const q = () => prisma.alertRule.findMany();\n';
    expect(await ruleIds("lib/projects/example.ts", orm)).toContain("telltale/table-owner");
    expect(await ruleIds("lib/alerts/example.ts", orm)).toEqual([]);
  });

  it("no untyped SQL ($queryRaw, Prisma.sql) outside lib/db", async () => {
    const raw = 'import { prisma } from "@/lib/db/client";\nexport const q = () => prisma.$queryRaw`SELECT 1`;\n';
    expect(await ruleIds("lib/events/example.ts", raw)).toContain("telltale/no-untyped-sql");
  });

  it("no database access in app/ or components/", async () => {
    const code = 'import { sqlDb } from "@/lib/db/sql";\nexport const db = sqlDb;\n';
    expect(await ruleIds("app/api/example/route.ts", code)).toContain("no-restricted-imports");
    expect(await ruleIds("components/example.tsx", code)).toContain("no-restricted-imports");
  });

  it("imports use the @/ alias across folders", async () => {
    const code = 'import { plural } from "../text/plural";\nexport const p = plural;\n';
    expect(await ruleIds("lib/ai/example.ts", code)).toContain("no-restricted-imports");
    expect(await ruleIds("lib/ai/example.ts", 'import { plural } from "@/lib/text/plural";\nexport const p = plural;\n')).toEqual([]);
  });

  it("process.env only in the settings module and launchers", async () => {
    const code = "export const url = process.env.DATABASE_URL;\n";
    expect(await ruleIds("lib/events/example.ts", code)).toContain("telltale/no-process-env");
    expect(await ruleIds("lib/config/settings.ts", code)).toEqual([]);
    expect(await ruleIds("ops/example.ts", code)).toEqual([]);
    expect(await ruleIds("lib/events/example.ts", 'export const dev = process.env.NODE_ENV === "development";\n')).toEqual([]);
  });

  it("the plural rule is not copied outside lib/text/plural.ts", async () => {
    const code = 'export const label = (n: number) => `${n} event${n === 1 ? "" : "s"}`;\n';
    expect(await ruleIds("components/example.tsx", code)).toContain("no-restricted-syntax");
    expect(await ruleIds("lib/sentry/example.ts", code)).toContain("no-restricted-syntax");
  });

  it("an enum of the schema is not copied as a literal union", async () => {
    expect(await ruleIds("lib/ai/example.ts", 'export type Level = "error" | "warn" | "info";\n')).toContain("telltale/no-enum-copy");
    expect(await ruleIds("lib/ai/example.ts", 'export type Change = { status: "open" } | { status: "resolved" } | { status: "ignored" };\n')).toEqual([]);
  });

  it("file names are kebab-case", async () => {
    expect(await ruleIds("lib/events/lastEvent.ts", "export const a = 1;\n")).toContain("telltale/kebab-case-file");
  });
});

describe("table owners", () => {
  it("every table of prisma/schema.prisma has an owner module that exists", () => {
    const schema = fs.readFileSync(path.join(ROOT, "prisma/schema.prisma"), "utf8");
    const tables = [...schema.matchAll(/^model (\w+) \{[\s\S]*?@@map\("([^"]+)"\)[\s\S]*?^\}/gm)].map((m) => m[2]);
    expect(tables.length).toBeGreaterThan(20);
    expect(Object.keys(TABLE_OWNERS).sort()).toEqual([...tables].sort());
    for (const owner of new Set(Object.values(TABLE_OWNERS))) expect(fs.existsSync(path.join(ROOT, owner)), owner).toBe(true);
  });
});
