// dependency-cruiser (`npm run lint:layers`, part of `npm run lint`): the
// layers of docs/CONVENTIONS.md ("Layers"), no import cycle between lib/
// folders, and none between the modules of lib/, app/ and components/.
// Type-only imports count: a type that a lower folder needs lives in that
// folder or below it.

/**
 * lib/'s folders from the bottom up. A folder (or top-level file) may import
 * its own layer and the layers below it, never one above. A new folder goes
 * into its layer here and in the table of docs/CONVENTIONS.md.
 */
const LAYERS = [
  // The base: settings and the logger (the logger reads LOG_SILENT; the boot check logs).
  ["config", "log.ts"],
  // The foundation, each on the ones before it.
  ["text"],
  ["crypto"],
  ["redis"],
  ["http"],
  ["db"],
  ["mail"],
  ["jobs"],
  // Who is calling: users, sessions, memberships, ProjectAccess, roles.
  ["auth"],
  // The domains, each the owner of its tables.
  ["keys"],
  ["events"],
  ["grouping"],
  ["releases"],
  ["issues"],
  ["projects"],
  ["invitations"],
  ["alerts"],
  // The composers: each puts several domains together.
  ["sign-in"],
  ["project-setup"],
  ["ingest"],
  ["sentry", "otlp"],
  ["retention"],
  ["schedule"],
  ["ai"],
  ["health.ts"],
  ["edge"],
  ["openapi"],
];

const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
/** A folder's modules, or a top-level file of lib/. */
const member = (name) => (name.endsWith(".ts") ? `lib/${escape(name)}$` : `lib/${escape(name)}/`);
const anyOf = (names) => `^(${names.map(member).join("|")})`;

const layerRules = LAYERS.slice(0, -1).map((layer, index) => ({
  name: `layer-${layer[0]}`,
  severity: "error",
  comment: `lib/ ${layer.join(", ")} may not import a higher layer (docs/CONVENTIONS.md, "Layers").`,
  from: { path: anyOf(layer) },
  to: { path: anyOf(LAYERS.slice(index + 1).flat()) },
}));

const config = {
  forbidden: [
    ...layerRules,
    {
      name: "layer-missing",
      severity: "error",
      comment: "Every lib/ folder and top-level file is in a layer (LAYERS in dependency-cruiser.config.mjs and docs/CONVENTIONS.md).",
      from: { path: "^lib/", pathNot: anyOf(LAYERS.flat()) },
      to: {},
    },
    {
      name: "no-folder-cycle",
      severity: "error",
      comment: "No import cycle between lib/ folders, type-only imports included.",
      scope: "folder",
      from: { path: "^lib/" },
      to: { circular: true },
    },
    {
      name: "no-cycle",
      severity: "error",
      comment: "No import cycle between modules of lib/, app/ or components/, type-only imports included.",
      from: { path: "^(lib|app|components)/" },
      to: { circular: true },
    },
  ],
  options: {
    // Type-only imports are dependencies too.
    tsPreCompilationDeps: true,
    tsConfig: { fileName: "tsconfig.json" },
    doNotFollow: { path: "node_modules" },
    // Written by `prisma generate`; it imports nothing of lib/.
    exclude: { path: "^lib/db/generated/" },
  },
};
export default config;
