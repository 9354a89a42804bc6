/**
 * Operator command line: `npm run telltale -- <command>`.
 *
 *   project create --name <name> --owner <email> [--json]
 *
 * Uses DATABASE_URL, or the embedded database (attaching to a running
 * `npm run dev` when there is one).
 */
import { parseArgs } from "node:util";
import { z } from "zod";
import { loadEnvFiles } from "@/lib/config/load-env";
import { settings } from "@/lib/config/settings";
import { projectNameSchema } from "@/lib/projects/schemas";

const USAGE = `Usage:
  npm run telltale -- project create --name <name> --owner <email> [--json]

Creates the owner user if needed and the project, and prints its id and API key.`;

const createArgs = z.object({
  name: projectNameSchema,
  owner: z.email("must be an email address"),
  json: z.boolean(),
});

async function main(argv: string[]): Promise<number> {
  loadEnvFiles((process.env.NODE_ENV === "production" ? "production" : "development"));
  const [group, command, ...rest] = argv;
  if (group !== "project" || command !== "create") {
    console.error(USAGE);
    return group === undefined || group === "help" || group === "--help" ? 0 : 2;
  }
  let values;
  try {
    ({ values } = parseArgs({
      args: rest,
      options: { name: { type: "string" }, owner: { type: "string" }, json: { type: "boolean", default: false } },
      strict: true,
    }));
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const parsed = createArgs.safeParse(values);
  if (!parsed.success) {
    console.error(`${parsed.error.issues.map((i) => `--${String(i.path[0])}: ${i.message}`).join("\n")}\n\n${USAGE}`);
    return 2;
  }

  // With the embedded database this is a development setup: use the same
  // generated secrets as `npm run dev`, or keys could not be shown later.
  if (!process.env.DATABASE_URL) (await import("@/lib/config/dev-secrets")).loadDevSecrets();
  const { ensureDatabase } = await import("@/tools/db/ensure");
  const database = await ensureDatabase({ migrate: true, attach: true });
  try {
    process.env.DATABASE_URL = database.url;
    const { createProject, findOrCreateUserByEmail } = await import("@/lib/projects/create-project");
    const { disconnectDb } = await import("@/lib/db/client");
    try {
      const owner = await findOrCreateUserByEmail(parsed.data.owner);
      const project = await createProject(owner.id, parsed.data.name);
      if (parsed.data.json) {
        process.stdout.write(`${JSON.stringify({ id: project.id, name: project.name, apiKey: project.apiKey })}\n`);
      } else {
        process.stdout.write(
          `Created project "${project.name}" owned by ${owner.email}.\n\n  Project ID: ${project.id}\n  API key:    ${project.apiKey}\n\n` +
            `Keep the key secret (server-side only). Send a first event:\n\n` +
            `  curl -X POST http://localhost:${settings().port}/api/events \\\n` +
            `    -H "Authorization: Bearer ${project.apiKey}" -H "Content-Type: application/json" \\\n` +
            `    -d '{"level":"info","message":"Hello from Telltale","projectId":"${project.id}"}'\n`,
        );
      }
    } finally {
      await disconnectDb();
    }
  } finally {
    await database.stop();
  }
  return 0;
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    console.error(`telltale: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
