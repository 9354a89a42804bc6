/**
 * Operator command line: `npm run telltale -- <command>`.
 *
 *   project create --name <name> --owner <email> [--json]
 *   signin-link --email <email>
 *   retention [--days <n>] [--no-pause] [--json]
 *
 * Uses DATABASE_URL, or the embedded database (attaching to a running
 * `npm run dev` when there is one).
 */
import { parseArgs } from "node:util";
import { z } from "zod";
import { loadEnvFiles } from "@/lib/config/load-env";
import { settings } from "@/lib/config/settings";
import { projectNameSchema } from "@/lib/projects/schemas";
import { plural } from "@/lib/text/plural";

const USAGE = `Usage:
  npm run telltale -- project create --name <name> --owner <email> [--json]
      Creates the owner user if needed and the project, and prints its id and API key.
  npm run telltale -- signin-link --email <email>
      Prints a one-time sign-in link (15 minutes) for an existing user: a way in before SMTP works.
  npm run telltale -- retention [--days <n>] [--no-pause] [--json]
      Deletes events older than RETENTION_DAYS (or --days; 0 keeps them) in small steps, and expired
      idempotency keys; issue totals stay. Safe to run while the server ingests, and to run again.
      Between steps it pauses three times as long as each took, leaving the database to ingestion;
      --no-pause deletes about four times as fast (a one-time cleanup while little is ingested).`;

const createArgs = z.object({
  name: projectNameSchema,
  owner: z.email("must be an email address"),
  json: z.boolean(),
});

const signInLinkArgs = z.object({ email: z.email("must be an email address") });

const retentionArgs = z.object({
  days: z.string().regex(/^\d+$/, "must be a whole number of days (0: keep events forever)").transform(Number).pipe(z.number().max(36_500)).optional(),
  "no-pause": z.boolean(),
  json: z.boolean(),
});

async function main(argv: string[]): Promise<number> {
  loadEnvFiles((process.env.NODE_ENV === "production" ? "production" : "development"));
  const [group, command, ...rest] = argv;
  if (group === "signin-link") return signInLink(argv.slice(1));
  if (group === "retention") return retention(argv.slice(1));
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

  return withDatabase(async () => {
    const { createProject, findOrCreateUserByEmail } = await import("@/lib/projects/create-project");
    {
      const owner = await findOrCreateUserByEmail(parsed.data.owner);
      const project = await createProject(owner.id, parsed.data.name);
      const { readProjectDsn } = await import("@/lib/projects/dsn");
      const dsn = await readProjectDsn(project.id, settings().auth.url ?? `http://localhost:${settings().port}`);
      if (parsed.data.json) {
        process.stdout.write(`${JSON.stringify({ id: project.id, name: project.name, apiKey: project.apiKey, dsn })}\n`);
      } else {
        process.stdout.write(
          `Created project "${project.name}" owned by ${owner.email}.\n\n  Project ID: ${project.id}\n  API key:    ${project.apiKey}\n  DSN:        ${dsn}\n\n` +
            `Point any Sentry SDK at the DSN (its key only sends events, so it may sit in a web page).\n` +
            `Keep the key secret (server-side only). Send a first event:\n\n` +
            `  curl -X POST http://localhost:${settings().port}/api/events \\\n` +
            `    -H "Authorization: Bearer ${project.apiKey}" -H "Content-Type: application/json" \\\n` +
            `    -d '{"level":"info","message":"Hello from Telltale","projectId":"${project.id}"}'\n`,
        );
      }
    }
    return 0;
  });
}

async function signInLink(args: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({ args, options: { email: { type: "string" } }, strict: true }));
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const parsed = signInLinkArgs.safeParse(values);
  if (!parsed.success) {
    console.error(`--email: ${parsed.error.issues[0]!.message}\n\n${USAGE}`);
    return 2;
  }
  return withDatabase(async () => {
    const { createOperatorSignInLink, UnknownUserError } = await import("@/lib/auth/operator-link");
    try {
      const link = await createOperatorSignInLink(parsed.data.email);
      process.stdout.write(`${link.url}\n`);
      console.error(`One-time sign-in link for ${parsed.data.email}, valid until ${link.expires.toISOString()}. Open it in a browser; do not share it.`);
      return 0;
    } catch (error) {
      if (error instanceof UnknownUserError || (error instanceof Error && /AUTH_SECRET/.test(error.message))) {
        console.error(error.message);
        return 1;
      }
      throw error;
    }
  });
}

async function retention(args: string[]): Promise<number> {
  let values;
  try {
    ({ values } = parseArgs({ args, options: { days: { type: "string" }, "no-pause": { type: "boolean", default: false }, json: { type: "boolean", default: false } }, strict: true }));
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${USAGE}`);
    return 2;
  }
  const parsed = retentionArgs.safeParse(values);
  if (!parsed.success) {
    console.error(`--days: ${parsed.error.issues[0]!.message}\n\n${USAGE}`);
    return 2;
  }
  return withDatabase(async () => {
    const { runRetention } = await import("@/lib/retention/retention");
    const report = await runRetention({ days: parsed.data.days, ...(parsed.data["no-pause"] ? { pauseRatio: 0 } : {}) });
    if (parsed.data.json) {
      process.stdout.write(`${JSON.stringify(report)}\n`);
      return 0;
    }
    const n = (count: number) => count.toLocaleString("en-US");
    const { events, minuteCounts, hourCounts, dayCounts, idempotencyKeys } = report.deleted;
    const took = `${(report.durationMs / 1000).toFixed(1)} s${report.pausedMs >= 100 ? ` (${(report.pausedMs / 1000).toFixed(1)} s of it pausing for ingestion)` : ""}`;
    process.stdout.write(
      report.cutoff
        ? `Deleted ${plural(events, "event")} older than ${report.cutoff} (${plural(report.retentionDays, "day")}), ${n(minuteCounts)} per-minute, ` +
            `${n(hourCounts)} per-hour and ${n(dayCounts)} per-day counts before it, and ${n(idempotencyKeys)} expired idempotency keys, in ${took}. Issue totals are unchanged.\n`
        : `Retention is off (0 days): events are kept forever. Deleted ${n(idempotencyKeys)} expired idempotency keys in ${took}.\n`,
    );
    return 0;
  });
}

/** Runs `fn` against DATABASE_URL, or the embedded database (attached to a running `npm run dev` when there is one). */
async function withDatabase(fn: () => Promise<number>): Promise<number> {
  // With the embedded database this is a development setup: use the same
  // generated secrets as `npm run dev`, or keys and links would not work there.
  if (!process.env.DATABASE_URL) (await import("@/lib/config/dev-secrets")).loadDevSecrets();
  const { ensureDatabase } = await import("@/tools/db/ensure");
  const database = await ensureDatabase({ migrate: true, attach: true });
  try {
    process.env.DATABASE_URL = database.url;
    const { disconnectDb } = await import("@/lib/db/client");
    try {
      return await fn();
    } finally {
      await disconnectDb();
    }
  } finally {
    await database.stop();
  }
}

main(process.argv.slice(2)).then(
  (code) => process.exit(code),
  (error) => {
    console.error(`telltale: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
