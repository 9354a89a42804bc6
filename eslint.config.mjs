// ESLint (`npm run lint`): JavaScript's and typescript-eslint's recommended
// rules, Next.js's (eslint-config-next), and the house rules of
// docs/CONVENTIONS.md, some of them in tools/lint/plugin.mjs.
import js from "@eslint/js";
import nextVitals from "eslint-config-next/core-web-vitals";
import { defineConfig, globalIgnores } from "eslint/config";
import tseslint from "typescript-eslint";
import telltale from "./tools/lint/plugin.mjs";

/** Launchers, harnesses, tools, tests and tool configs start processes: they may read and set the environment. */
const LAUNCHERS = ["ops/**", "scripts/**", "tools/**", "harness/**", "tests/**", "*.config.{ts,mts,mjs}"];

const relativeParent = { group: ["../*", "../**"], message: "Import with the `@/` alias (`@/lib/...`), not `../`." };
/** The vocabulary defined once (docs/CONVENTIONS.md, "One place per concept"): no copies of it. */
const vocabulary = [
  {
    selector: "ConditionalExpression[test.type='BinaryExpression'][test.operator=/^[!=]==$/][test.right.value=1][consequent.value=/^s?$/][alternate.value=/^s?$/]",
    message: "Use plural() or pluralWord() from @/lib/text/plural instead of a copy of the plural rule.",
  },
  { selector: "ArrayExpression:has(> Literal[value='error']):has(> Literal[value='warn']):has(> Literal[value='info'])", message: "Use EVENT_LEVELS from @/lib/events/levels (the schema's enum)." },
];

export default defineConfig([
  globalIgnores([
    ".next/**", ".next-*/**", ".telltale/**", "**/node_modules/**", "**/dist/**", "test-results/**", "playwright-report/**",
    "lib/db/generated/**", // written by `prisma generate`
    "next-env.d.ts", // written by Next.js
    "tests/fixtures/clients/**", // stand-ins for users' applications (real SDK calls as their users write them)
  ]),
  js.configs.recommended,
  ...tseslint.configs.recommended,
  ...nextVitals,
  {
    plugins: { telltale },
    settings: { next: { rootDir: "." } },
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none", ignoreRestSiblings: true }],
      // Input cleaning matches control characters on purpose (NUL, C0 codes).
      "no-control-regex": "off",
      // ES modules have no CommonJS `module`; here it is a stack frame's module name.
      "@next/next/no-assign-module-variable": "off",
      // The React Compiler's rules: the app does not use the compiler, and these flag
      // correct code without it (a form reset after a save, the clock in a server component).
      "react-hooks/set-state-in-effect": "off",
      "react-hooks/refs": "off",
      "react-hooks/purity": "off",
      // House rules.
      "no-restricted-imports": ["error", { patterns: [relativeParent] }],
      "telltale/no-process-env": "error",
      "telltale/kebab-case-file": "error",
      "telltale/table-owner": "error",
      "telltale/no-untyped-sql": "error",
    },
  },
  {
    files: ["lib/**", "app/**", "components/**"],
    rules: { "no-restricted-syntax": ["error", ...vocabulary], "telltale/no-enum-copy": "error" },
  },
  {
    // Routes, pages and components call lib/ functions; no database access of their own.
    files: ["app/**", "components/**"],
    rules: {
      "no-restricted-imports": ["error", {
        patterns: [
          relativeParent,
          { group: ["@/lib/db/*", "kysely", "kysely/*", "pg", "@prisma/*"], message: "No database access in app/ or components/: call a function of the owning lib/ module." },
        ],
      }],
      "no-restricted-syntax": ["error", ...vocabulary, { selector: "TaggedTemplateExpression[tag.name='sql']", message: "No SQL in app/ or components/: call a function of the owning lib/ module." }],
    },
  },
  {
    // No React outside app/ and components/: `use...` names there are not hooks.
    ignores: ["app/**", "components/**"],
    rules: { "react-hooks/rules-of-hooks": "off" },
  },
  // The allowed exceptions, each with its reason:
  // the plural rule's one home;
  { files: ["lib/text/plural.ts"], rules: { "no-restricted-syntax": "off" } },
  // the settings module (settings.ts reads, dev-secrets.ts fills in development secrets, startup.ts checks at boot), and launchers;
  { files: ["lib/config/**", ...LAUNCHERS], rules: { "telltale/no-process-env": "off" } },
  // the database layer wraps the driver; harnesses, tools and tests seed and inspect every table;
  { files: ["lib/db/**"], rules: { "telltale/no-untyped-sql": "off" } },
  { files: LAUNCHERS, rules: { "telltale/table-owner": "off", "telltale/no-untyped-sql": "off" } },
  // tests read untyped JSON and provoke errors with bare expressions;
  { files: ["tests/**"], rules: { "@typescript-eslint/no-explicit-any": "off", "@typescript-eslint/no-unused-expressions": "off" } },
  // the published client package stands alone (no `@/` alias, no settings module, its own plural).
  { files: ["packages/**"], rules: { "no-restricted-imports": "off", "telltale/no-process-env": "off" } },
]);
