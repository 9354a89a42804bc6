/**
 * Operator command line: `npm run telltale -- <command>`.
 *
 *   project create --name <name> --owner <email> [--if-missing] [--json]
 *   project list [--json]
 *   project key rotate --project <id|number> [--public] [--json]
 *   member add|role|remove --project <id|number> --email <email> [--role owner|member] [--json]
 *   user list [--json]
 *   signin-link --email <email>
 *   retention [--days <n>] [--no-pause] [--json]
 *
 * Uses DATABASE_URL, or the embedded database (attaching to a running
 * `npm run dev` when there is one). Exit codes: 0 done, 1 refused (a
 * duplicate name, an unknown project or user, the last owner), 2 bad
 * arguments.
 */
import { parseArgs, type ParseArgsConfig } from "node:util";
import { z } from "zod";
import { adoptDevServerPort } from "@/lib/config/dev-server";
import { loadEnvFiles } from "@/lib/config/load-env";
import { projectNameSchema } from "@/lib/projects/schemas";
import { plural } from "@/lib/text/plural";

const USAGE = `Usage:
  npm run telltale -- project create --name <name> --owner <email> [--if-missing] [--json]
      Creates the owner user if needed and the project, and prints its id, API key and DSN.
      A name the owner already has is refused (exit 1); --if-missing prints that project instead.
  npm run telltale -- project list [--json]
      Every project with its DSN number, owners, member and event counts.
  npm run telltale -- project key rotate --project <id|number> [--public] [--json]
      Replaces the project's API key (--public: the DSN's public key) and prints the new one;
      the old one stops working at once.
  npm run telltale -- member add --project <id|number> --email <email> [--role member|owner] [--json]
  npm run telltale -- member role --project <id|number> --email <email> --role owner|member [--json]
  npm run telltale -- member remove --project <id|number> --email <email> [--json]
      Adds a user (created if needed; default role member), changes a member's role, or removes one.
      A project always keeps an owner.
  npm run telltale -- user list [--json]
      Every user with how many projects they own and belong to.
  npm run telltale -- signin-link --email <email>
      Prints a one-time sign-in link (15 minutes) for an existing user: a way in before SMTP works.
  npm run telltale -- retention [--days <n>] [--no-pause] [--json]
      Deletes events older than RETENTION_DAYS (or --days; 0 keeps them) in small steps, and expired
      idempotency keys; issue totals stay. Safe to run while the server ingests, and to run again.
      Between steps it pauses three times as long as each took, leaving the database to ingestion;
      --no-pause deletes about four times as fast (a one-time cleanup while little is ingested).`;

const email = z.email("must be an email address");
const projectRef = z.string({ error: "is required (a project id or DSN number)" }).regex(/^[A-Za-z0-9_-]{1,100}$/, "must be a project id or DSN number");
const role = z.enum(["owner", "member"], { error: "must be owner or member" });
const json = { json: { type: "boolean", default: false } } as const;

const createArgs = z.object({ name: projectNameSchema, owner: email, "if-missing": z.boolean(), json: z.boolean() });
const listArgs = z.object({ json: z.boolean() });
const rotateArgs = z.object({ project: projectRef, public: z.boolean(), json: z.boolean() });
const memberArgs = z.object({ project: projectRef, email, role: role.optional(), json: z.boolean() });
const signInLinkArgs = z.object({ email });
const retentionArgs = z.object({
  days: z.string().regex(/^\d+$/, "must be a whole number of days (0: keep events forever)").transform(Number).pipe(z.number().max(36_500)).optional(),
  "no-pause": z.boolean(),
  json: z.boolean(),
});

/** Refused by the rules (exit 1), as opposed to a bug (also 1, with its message). */
class Refusal extends Error {}

/** Parses a command's options with node's parser, then checks them with `schema`; null (usage printed) when they are wrong. */
function parseOptions<S extends z.ZodType>(args: string[], options: ParseArgsConfig["options"], schema: S): z.output<S> | null {
  let values;
  try {
    ({ values } = parseArgs({ args, options, strict: true }));
  } catch (error) {
    console.error(`${(error as Error).message}\n\n${USAGE}`);
    return null;
  }
  const parsed = schema.safeParse(values);
  if (!parsed.success) {
    console.error(`${parsed.error.issues.map((i) => `--${String(i.path[0])}: ${i.message}`).join("\n")}\n\n${USAGE}`);
    return null;
  }
  return parsed.data;
}

function printJson(value: unknown): void {
  process.stdout.write(`${JSON.stringify(value)}\n`);
}

type Command = (args: string[]) => Promise<number>;

const COMMANDS: Record<string, Command> = {
  "project create": projectCreate,
  "project list": projectList,
  "project key": projectKey,
  "member add": (args) => memberChange("add", args),
  "member role": (args) => memberChange("role", args),
  "member remove": (args) => memberChange("remove", args),
  "user list": userList,
};

async function main(argv: string[]): Promise<number> {
  const production = process.env.NODE_ENV === "production";
  loadEnvFiles(production ? "production" : "development");
  if (!production) adoptDevServerPort();
  const [group, command, ...rest] = argv;
  if (group === "signin-link") return signInLink(argv.slice(1));
  if (group === "retention") return retention(argv.slice(1));
  const run = COMMANDS[`${group} ${command}`];
  if (!run) {
    console.error(USAGE);
    return group === undefined || group === "help" || group === "--help" ? 0 : 2;
  }
  return run(rest);
}

async function projectCreate(args: string[]): Promise<number> {
  const options = parseOptions(args, { name: { type: "string" }, owner: { type: "string" }, "if-missing": { type: "boolean", default: false }, ...json }, createArgs);
  if (!options) return 2;
  return withDatabase(async () => {
    const { createProject, findOrCreateUserByEmail } = await import("@/lib/project-setup/create-project");
    const { findOwnedProjectByName, readProjectKeys } = await import("@/lib/projects/operator");
    const { configuredOrigin } = await import("@/lib/auth/public-origin");
    const origin = configuredOrigin();
    const owner = await findOrCreateUserByEmail(options.owner);
    const existing = await findOwnedProjectByName(owner.id, options.name);
    if (existing && !options["if-missing"]) {
      throw new Refusal(
        `${owner.email} already owns a project named "${existing.name}" (${existing.id}). Nothing was created: choose another name, or add --if-missing to get that project.`,
      );
    }
    const project = existing ?? (await createProject(owner.id, options.name));
    const { apiKey, dsn } = await readProjectKeys(project.id, origin);
    if (options.json) {
      printJson({ id: project.id, name: project.name, apiKey, dsn });
      return 0;
    }
    process.stdout.write(
      `${existing ? `${owner.email} already owns "${project.name}"; nothing was created.` : `Created project "${project.name}" owned by ${owner.email}.`}\n\n` +
        `  Project ID: ${project.id}\n  API key:    ${apiKey ?? "(can't be shown: rotate it)"}\n  DSN:        ${dsn ?? "(can't be shown: rotate it with --public)"}\n\n` +
        `Point any Sentry SDK at the DSN (its key only sends events, so it may sit in a web page).\n` +
        `Keep the key secret (server-side only). Send a first event:\n\n` +
        `  curl -X POST ${origin}/api/events \\\n` +
        `    -H "Authorization: Bearer ${apiKey ?? "<API key>"}" -H "Content-Type: application/json" \\\n` +
        `    -d '{"level":"info","message":"Hello from Telltale","projectId":"${project.id}"}'\n`,
    );
    return 0;
  });
}

async function projectList(args: string[]): Promise<number> {
  const options = parseOptions(args, { ...json }, listArgs);
  if (!options) return 2;
  return withDatabase(async () => {
    const { listAllProjects } = await import("@/lib/projects/operator");
    const projects = await listAllProjects();
    if (options.json) {
      printJson({ projects });
      return 0;
    }
    if (projects.length === 0) {
      process.stdout.write("No projects yet. Create one with: npm run telltale -- project create --name <name> --owner <email>\n");
      return 0;
    }
    const rows = projects.map((p) => [p.id, String(p.number), p.name, p.owners.join(", ") || "(none)", String(p.members), p.eventCount.toLocaleString("en-US")]);
    process.stdout.write(table(["ID", "NUMBER", "NAME", "OWNERS", "MEMBERS", "EVENTS"], rows));
    return 0;
  });
}

async function projectKey(args: string[]): Promise<number> {
  const [action, ...rest] = args;
  if (action !== "rotate") {
    console.error(USAGE);
    return 2;
  }
  const options = parseOptions(rest, { project: { type: "string" }, public: { type: "boolean", default: false }, ...json }, rotateArgs);
  if (!options) return 2;
  return withDatabase(async () => {
    const { findProjectByRef } = await import("@/lib/projects/operator");
    const { rotateKeyWithDsn } = await import("@/lib/projects/service");
    const { configuredOrigin } = await import("@/lib/auth/public-origin");
    const project = await findProjectByRef(options.project);
    const rotated = await rotateKeyWithDsn(project.id, options.public ? "public" : "secret", configuredOrigin());
    if (options.json) {
      printJson({ id: project.id, ...rotated });
      return 0;
    }
    process.stdout.write(
      rotated.kind === "secret"
        ? `Rotated the API key of "${project.name}": the old key no longer works.\n\n  API key: ${rotated.apiKey}\n\nUpdate every application that sends with it.\n`
        : `Rotated the DSN key of "${project.name}": the old DSN no longer works.\n\n  DSN: ${rotated.dsn}\n\nUpdate every Sentry SDK that sends with it.\n`,
    );
    return 0;
  });
}

async function memberChange(action: "add" | "role" | "remove", args: string[]): Promise<number> {
  const options = parseOptions(args, { project: { type: "string" }, email: { type: "string" }, role: { type: "string" }, ...json }, memberArgs);
  if (!options) return 2;
  if (action === "role" && !options.role) {
    console.error(`--role: must be owner or member\n\n${USAGE}`);
    return 2;
  }
  if (action === "remove" && options.role) {
    console.error(`--role: not an option of member remove\n\n${USAGE}`);
    return 2;
  }
  return withDatabase(async () => {
    const { findProjectByRef } = await import("@/lib/projects/operator");
    const { addMemberAsOperator, changeMemberRoleAsOperator, removeMemberAsOperator } = await import("@/lib/projects/members");
    const { findOrCreateUserByEmail, findUserIdByEmail } = await import("@/lib/auth/users");
    const project = await findProjectByRef(options.project);
    const address = options.email.trim().toLowerCase();
    const userId = action === "add" ? (await findOrCreateUserByEmail(address)).id : await findUserIdByEmail(address);
    if (!userId) throw new Refusal(`No user has the address ${address}.`);
    if (action === "remove") {
      await removeMemberAsOperator(project.id, userId);
      if (options.json) printJson({ projectId: project.id, userId, email: address, removed: true });
      else process.stdout.write(`Removed ${address} from "${project.name}".\n`);
      return 0;
    }
    const member =
      action === "add" ? await addMemberAsOperator(project.id, userId, options.role ?? "member") : await changeMemberRoleAsOperator(project.id, userId, options.role!);
    if (options.json) printJson({ projectId: project.id, userId: member.userId, email: member.email, role: member.role });
    else process.stdout.write(`${member.email} is ${member.role === "owner" ? "an owner" : "a member"} of "${project.name}".\n`);
    return 0;
  });
}

async function userList(args: string[]): Promise<number> {
  const options = parseOptions(args, { ...json }, listArgs);
  if (!options) return 2;
  return withDatabase(async () => {
    const { listUsersWithProjectCounts } = await import("@/lib/auth/users");
    const users = (await listUsersWithProjectCounts()).map((u) => ({ ...u, createdAt: u.createdAt.toISOString() }));
    if (options.json) {
      printJson({ users });
      return 0;
    }
    if (users.length === 0) {
      process.stdout.write("No users yet.\n");
      return 0;
    }
    process.stdout.write(table(["EMAIL", "NAME", "OWNS", "MEMBER OF", "SINCE"], users.map((u) => [u.email, u.name ?? "", String(u.owns), String(u.memberOf), u.createdAt.slice(0, 10)])));
    return 0;
  });
}

/** Left-aligned columns for people. */
function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  return [header, ...rows].map((r) => r.map((cell, i) => cell.padEnd(widths[i]!)).join("  ").trimEnd()).join("\n") + "\n";
}


async function signInLink(args: string[]): Promise<number> {
  const options = parseOptions(args, { email: { type: "string" } }, signInLinkArgs);
  if (!options) return 2;
  return withDatabase(async () => {
    const { createOperatorSignInLink, UnknownUserError } = await import("@/lib/sign-in/operator-link");
    try {
      const link = await createOperatorSignInLink(options.email);
      process.stdout.write(`${link.url}\n`);
      console.error(`One-time sign-in link for ${options.email}, valid until ${link.expires.toISOString()}. Open it in a browser; do not share it.`);
      return 0;
    } catch (error) {
      if (error instanceof UnknownUserError || (error instanceof Error && /AUTH_SECRET/.test(error.message))) throw new Refusal(error.message);
      throw error;
    }
  });
}

async function retention(args: string[]): Promise<number> {
  const options = parseOptions(args, { days: { type: "string" }, "no-pause": { type: "boolean", default: false }, ...json }, retentionArgs);
  if (!options) return 2;
  return withDatabase(async () => {
    const { runRetention } = await import("@/lib/retention/retention");
    const report = await runRetention({ days: options.days, ...(options["no-pause"] ? { pauseRatio: 0 } : {}) });
    if (options.json) {
      printJson(report);
      return 0;
    }
    const n = (count: number) => count.toLocaleString("en-US");
    const { events, minuteCounts, hourCounts, dayCounts, tagHourCounts, tagDayCounts, idempotencyKeys } = report.deleted;
    const took = `${(report.durationMs / 1000).toFixed(1)} s${report.pausedMs >= 100 ? ` (${(report.pausedMs / 1000).toFixed(1)} s of it pausing for ingestion)` : ""}`;
    process.stdout.write(
      report.cutoff
        ? `Deleted ${plural(events, "event")} older than ${report.cutoff} (${plural(report.retentionDays, "day")}), ${n(minuteCounts)} per-minute, ` +
            `${n(hourCounts)} per-hour and ${n(dayCounts)} per-day counts and ${n(tagHourCounts + tagDayCounts)} tag counts before it, and ${n(idempotencyKeys)} expired idempotency keys, in ${took}. Issue totals are unchanged.\n`
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
  async (error) => {
    // What the rules refuse (lib errors such as an unknown project or the
    // last owner, and Refusal) is said as it is; anything else is a failure.
    const { AppError } = await import("@/lib/http/errors");
    const expected = error instanceof Refusal || error instanceof AppError;
    console.error(expected ? (error as Error).message : `telltale: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
