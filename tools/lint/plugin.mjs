/**
 * Telltale's house rules that ESLint has no built-in rule for (see
 * docs/CONVENTIONS.md): each table is queried only by its owner module, no
 * untyped SQL, kebab-case file names.
 */
import fs from "node:fs";
import path from "node:path";
import { TABLE_OWNERS } from "./table-owners.mjs";

/** Prisma model accessor (`prisma.issueCount`) -> table (`issue_counts`), read from the schema. */
function prismaAccessors(cwd) {
  const schema = fs.readFileSync(path.join(cwd, "prisma/schema.prisma"), "utf8");
  const accessors = new Map();
  for (const m of schema.matchAll(/^model (\w+) \{([\s\S]*?)^\}/gm)) {
    const table = /@@map\("([^"]+)"\)/.exec(m[2])?.[1] ?? m[1];
    accessors.set(m[1][0].toLowerCase() + m[1].slice(1), table);
  }
  return accessors;
}

const PRISMA_METHODS = new Set(["findUnique", "findUniqueOrThrow", "findFirst", "findFirstOrThrow", "findMany", "create", "createMany", "createManyAndReturn", "update", "updateMany", "updateManyAndReturn", "upsert", "delete", "deleteMany", "count", "aggregate", "groupBy"]);
const KYSELY_TABLE_METHODS = new Set(["selectFrom", "insertInto", "replaceInto", "updateTable", "deleteFrom", "mergeInto", "innerJoin", "leftJoin", "rightJoin", "fullJoin", "innerJoinLateral", "leftJoinLateral", "crossJoin", "using"]);
const SQL_TABLE = /\b(?:FROM|JOIN|INTO|UPDATE|TABLE)\s+(?:ONLY\s+)?"?([a-z_][a-z0-9_]*)"?/g;
const UNTYPED = new Set(["$queryRaw", "$executeRaw", "$queryRawUnsafe", "$executeRawUnsafe", "queryRows"]);

const relative = (context) => path.relative(context.cwd, context.filename).split(path.sep).join("/");
const propertyName = (node) => (node.type === "MemberExpression" && !node.computed && node.property.type === "Identifier" ? node.property.name : null);

const tableOwner = {
  meta: {
    type: "problem",
    docs: { description: "A table is queried only by its owner module (tools/lint/table-owners.mjs)" },
    messages: { notOwner: "`{{table}}` belongs to {{owner}}: call a function of {{owner}} instead of querying it here ({{how}})." },
    schema: [],
  },
  create(context) {
    const file = relative(context);
    const accessors = prismaAccessors(context.cwd);
    const check = (node, table, how) => {
      const owner = TABLE_OWNERS[table];
      if (owner && !file.startsWith(`${owner}/`)) context.report({ node, messageId: "notOwner", data: { table, owner, how } });
    };
    const checkText = (node, text) => {
      for (const m of text.matchAll(SQL_TABLE)) check(node, m[1], "SQL text");
    };
    return {
      CallExpression(node) {
        const method = propertyName(node.callee);
        if (!method) return;
        if (KYSELY_TABLE_METHODS.has(method)) {
          const args = node.arguments[0]?.type === "ArrayExpression" ? node.arguments[0].elements : node.arguments.slice(0, 1);
          for (const arg of args) if (arg?.type === "Literal" && typeof arg.value === "string") check(arg, arg.value.trim().split(/\s+/)[0], `.${method}()`);
        } else if (PRISMA_METHODS.has(method) && node.callee.object.type === "MemberExpression") {
          const table = accessors.get(propertyName(node.callee.object));
          if (table) check(node, table, "Prisma");
        }
      },
      Literal(node) {
        if (typeof node.value === "string") checkText(node, node.value);
      },
      TemplateLiteral(node) {
        checkText(node, node.quasis.map((q) => q.value.cooked ?? q.value.raw).join(" "));
      },
    };
  },
};

const noUntypedSql = {
  meta: {
    type: "problem",
    docs: { description: "SQL is built with Kysely on the generated types (lib/db/sql.ts), never as raw Prisma SQL" },
    messages: { untyped: "`{{name}}` runs untyped SQL: build the query with Kysely (sqlDb(), lib/db/sql.ts) in the table's owner module." },
    schema: [],
  },
  create(context) {
    return {
      MemberExpression(node) {
        const name = propertyName(node);
        if (name && UNTYPED.has(name)) context.report({ node, messageId: "untyped", data: { name } });
        if (node.object.type === "Identifier" && node.object.name === "Prisma" && (name === "sql" || name === "raw")) context.report({ node, messageId: "untyped", data: { name: `Prisma.${name}` } });
      },
      Identifier(node) {
        if (UNTYPED.has(node.name) && node.parent.type !== "MemberExpression") context.report({ node, messageId: "untyped", data: { name: node.name } });
      },
    };
  },
};

/** Set by Next.js (and inlined at build), not settings of Telltale's. */
const FRAMEWORK_ENV = new Set(["NODE_ENV", "NEXT_RUNTIME"]);

const noProcessEnv = {
  meta: {
    type: "problem",
    docs: { description: "Settings are read only through lib/config/settings.ts" },
    messages: { env: "Read settings through settings() in @/lib/config/settings (add the variable to SETTING_SPECS, the README table and .env.example)." },
    schema: [],
  },
  create(context) {
    return {
      MemberExpression(node) {
        if (node.object.type !== "Identifier" || node.object.name !== "process" || propertyName(node) !== "env") return;
        const parent = node.parent;
        const read = parent.type === "MemberExpression" && parent.object === node ? propertyName(parent) : null;
        if (!FRAMEWORK_ENV.has(read)) context.report({ node, messageId: "env" });
      },
    };
  },
};

/** Literal unions that copy an enum of the schema, and where its one definition is. */
const ENUM_COPIES = [
  { values: ["error", "warn", "info"], use: "EventLevel from @/lib/events/levels" },
  { values: ["owner", "member"], use: "ProjectRole from @/lib/auth/roles" },
  { values: ["open", "resolved", "ignored"], use: "IssueStatus from @/lib/issues/filters" },
];

const noEnumCopy = {
  meta: {
    type: "problem",
    docs: { description: "A union of an enum's values is the generated enum, not a copy" },
    messages: { copy: "Use {{use}} (the schema's enum) instead of a copy of its values." },
    schema: [],
  },
  create(context) {
    return {
      TSUnionType(node) {
        const literals = new Set(node.types.flatMap((t) => (t.type === "TSLiteralType" && typeof t.literal.value === "string" ? [t.literal.value] : [])));
        for (const { values, use } of ENUM_COPIES) {
          if (values.every((v) => literals.has(v))) context.report({ node, messageId: "copy", data: { use } });
        }
      },
    };
  },
};

const kebabCaseFile = {
  meta: {
    type: "suggestion",
    docs: { description: "File names are kebab-case" },
    messages: { name: "File names are kebab-case (`{{suggested}}`)." },
    schema: [],
  },
  create(context) {
    const base = path.basename(context.filename);
    const [stem, ...rest] = base.split(".");
    if (/^[a-z0-9]+(-[a-z0-9]+)*$/.test(stem)) return {};
    const suggested = [stem.replace(/([a-z0-9])([A-Z])/g, "$1-$2").replace(/_/g, "-").toLowerCase(), ...rest].join(".");
    return { Program: (node) => context.report({ node, loc: { line: 1, column: 0 }, messageId: "name", data: { suggested } }) };
  },
};

const plugin = {
  meta: { name: "telltale" },
  rules: { "table-owner": tableOwner, "no-untyped-sql": noUntypedSql, "no-process-env": noProcessEnv, "no-enum-copy": noEnumCopy, "kebab-case-file": kebabCaseFile },
};
export default plugin;
