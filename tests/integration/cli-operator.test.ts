/**
 * The operator commands beside `project create`: listing projects and users,
 * rotating either key, changing members, and `project create` refusing a
 * name its owner already has. Each runs `npm run telltale` as an operator
 * would, against the test database.
 */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { prisma } from "@/lib/db/client";
import { sha256Hex } from "@/lib/crypto/hash";
import { readOrCreatePublicKey } from "@/lib/projects/dsn";
import { createProject, findOrCreateUserByEmail } from "@/lib/project-setup/create-project";
import { sendEvent } from "@/tests/helpers/ingest";

const exec = promisify(execFile);

type Outcome = { code: number; stdout: string; stderr: string };

async function telltale(...args: string[]): Promise<Outcome> {
  return telltaleWith({}, ...args);
}

async function telltaleWith(env: Record<string, string>, ...args: string[]): Promise<Outcome> {
  return exec("npm", ["run", "--silent", "telltale", "--", ...args], { env: { ...process.env, ...env }, timeout: 60_000 }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
  );
}

/** One line of JSON on stdout, nothing else. */
function jsonLine(outcome: Outcome) {
  expect(outcome.code, outcome.stderr).toBe(0);
  const lines = outcome.stdout.split("\n").filter((l) => l !== "");
  expect(lines).toHaveLength(1);
  return JSON.parse(lines[0]!);
}

const unique = (label: string) => `${label}-${Date.now().toString(36)}-${process.pid}-${Math.random().toString(36).slice(2, 6)}`;

describe("npm run telltale -- project create (same name twice)", () => {
  it("refuses a name the owner already has (any case), exit 1 and nothing created; --if-missing answers the existing project", async () => {
    const owner = `${unique("dup")}@example.test`;
    const first = jsonLine(await telltale("project", "create", "--name", "Shop API", "--owner", owner, "--json"));

    const again = await telltale("project", "create", "--name", "shop api", "--owner", owner, "--json");
    expect(again.code).toBe(1);
    expect(again.stdout).toBe("");
    expect(again.stderr).toContain(`already owns a project named "Shop API" (${first.id})`);
    expect(again.stderr).toContain("--if-missing");
    expect(await prisma.project.count({ where: { memberships: { some: { user: { email: owner } } } } })).toBe(1);

    const existing = jsonLine(await telltale("project", "create", "--name", "Shop API", "--owner", owner, "--if-missing", "--json"));
    expect(existing).toEqual(first);
    expect(await prisma.project.count({ where: { memberships: { some: { user: { email: owner } } } } })).toBe(1);

    // The DSN and the first-event line are on the public origin (AUTH_URL's), as the dashboard's are.
    const [people, otherOwner] = await Promise.all([
      telltaleWith({ AUTH_URL: "https://telltale.example/api/auth" }, "project", "create", "--name", "Shop API", "--owner", owner, "--if-missing"),
      telltale("project", "create", "--name", "Shop API", "--owner", `${unique("other")}@example.test`, "--json"),
    ]);
    expect(people.code, people.stderr).toBe(0);
    expect(people.stdout).toContain(`${owner} already owns "Shop API"; nothing was created.`);
    expect(people.stdout).toContain(`DSN:        https://${new URL(first.dsn).username}@telltale.example/`);
    expect(people.stdout).toContain("curl -X POST https://telltale.example/api/events");

    // Another owner may use the name.
    expect(jsonLine(otherOwner).id).not.toBe(first.id);
  }, 600_000);
});

describe("npm run telltale -- project list / key rotate", () => {
  it("lists every project with number, owners and counts; rotates the API key and the DSN key each on its own", async () => {
    const owner = await findOrCreateUserByEmail(`${unique("keys")}@example.test`);
    const created = await createProject(owner.id, "Keys");
    const { number } = await prisma.project.findUniqueOrThrow({ where: { id: created.id }, select: { number: true } });
    const publicBefore = (await readOrCreatePublicKey(created.id))!;

    const [listed, people] = await Promise.all([telltale("project", "list", "--json"), telltale("project", "list")]);
    expect(jsonLine(listed).projects.find((p: { id: string }) => p.id === created.id)).toEqual({
      id: created.id,
      number,
      name: "Keys",
      createdAt: expect.any(String),
      owners: [owner.email],
      members: 1,
      eventCount: 0,
    });
    expect(people.stdout).toMatch(/^ID\s+NUMBER\s+NAME\s+OWNERS/);
    expect(people.stdout).toContain(owner.email);

    // --public: a new DSN key; the API key keeps working.
    const publicKey = jsonLine(await telltale("project", "key", "rotate", "--project", String(number), "--public", "--json"));
    expect(publicKey).toMatchObject({ id: created.id, kind: "public", publicKey: expect.stringMatching(/^[A-Za-z0-9]{32}$/) });
    expect(new URL(publicKey.dsn)).toMatchObject({ username: publicKey.publicKey, pathname: `/${number}` });
    expect(await prisma.apiKey.findFirst({ where: { hash: sha256Hex(publicBefore) } })).toMatchObject({ revokedAt: expect.any(Date) });
    expect((await sendEvent(created.apiKey, { level: "info", message: "api key untouched", projectId: created.id })).status).toBe(201);

    // Without --public: the API key; the DSN key stays. Said in words without --json.
    const [secretOutcome, people2] = await Promise.all([
      telltale("project", "key", "rotate", "--project", created.id, "--json"),
      telltale("project", "key", "rotate", "--project", String(number)),
    ]);
    const secret = jsonLine(secretOutcome);
    expect(secret).toEqual({ id: created.id, kind: "secret", apiKey: expect.stringMatching(/^tlt_/) });
    expect(people2.stdout).toMatch(/Rotated the API key of "Keys": the old key no longer works\.\n\n {2}API key: tlt_/);
    expect((await sendEvent(created.apiKey, { level: "info", message: "old key", projectId: created.id })).status).toBe(401);
    expect(await prisma.apiKey.findFirst({ where: { hash: sha256Hex(publicKey.publicKey) } })).toMatchObject({ revokedAt: null });

    const [unknown, missing] = await Promise.all([telltale("project", "key", "rotate", "--project", "no-such-project", "--json"), telltale("project", "key", "rotate")]);
    expect(unknown).toMatchObject({ code: 1, stdout: "" });
    expect(unknown.stderr).toContain("No project with this id or number.");
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--project: is required/);
  }, 600_000);
});

describe("npm run telltale -- member add|role|remove, user list", () => {
  it("adds a user (created if needed), changes roles, removes; never leaves a project without an owner", async () => {
    const owner = (await findOrCreateUserByEmail(`${unique("team")}@example.test`)).email;
    const teammate = `${unique("mate")}@example.test`;
    const created = await createProject((await findOrCreateUserByEmail(owner)).id, "Team");

    const added = jsonLine(await telltale("member", "add", "--project", created.id, "--email", teammate.toUpperCase(), "--json"));
    expect(added).toEqual({ projectId: created.id, userId: expect.any(String), email: teammate, role: "member" });

    // Refused: adding twice; demoting or removing the only owner; an unknown address; a role that does not exist.
    const [twice, demote, remove, nobody, badRole] = await Promise.all([
      telltale("member", "add", "--project", created.id, "--email", teammate),
      telltale("member", "role", "--project", created.id, "--email", owner, "--role", "member"),
      telltale("member", "remove", "--project", created.id, "--email", owner),
      telltale("member", "remove", "--project", created.id, "--email", `${unique("nobody")}@example.test`),
      telltale("member", "role", "--project", created.id, "--email", teammate, "--role", "admin"),
    ]);
    expect(twice.code).toBe(1);
    expect(twice.stderr).toMatch(/already a member of the project \(role member\)/);
    expect(demote.code).toBe(1);
    expect(demote.stderr).toMatch(/only owner/);
    expect(remove.code).toBe(1);
    expect(remove.stderr).toMatch(/only owner/);
    expect(nobody.code).toBe(1);
    expect(nobody.stderr).toMatch(/No user has the address/);
    expect(badRole.code).toBe(2);
    expect(badRole.stderr).toMatch(/--role: must be owner or member/);
    expect(await prisma.membership.count({ where: { projectId: created.id, role: "owner" } })).toBe(1);

    expect(jsonLine(await telltale("member", "role", "--project", created.id, "--email", teammate, "--role", "owner", "--json"))).toMatchObject({ role: "owner" });
    expect(jsonLine(await telltale("member", "role", "--project", created.id, "--email", owner, "--role", "member", "--json"))).toMatchObject({ role: "member" });
    const [removed, users] = await Promise.all([telltale("member", "remove", "--project", created.id, "--email", owner, "--json"), telltale("user", "list", "--json")]);
    expect(jsonLine(removed)).toEqual({ projectId: created.id, userId: expect.any(String), email: owner, removed: true });
    const memberships = await prisma.membership.findMany({ where: { projectId: created.id }, include: { user: true } });
    expect(memberships.map((m) => [m.user.email, m.role])).toEqual([[teammate, "owner"]]);
    // (listed while the removal ran: the teammate owns the project either way)
    expect(jsonLine(users).users.find((u: { email: string }) => u.email === teammate)).toMatchObject({ owns: 1, memberOf: 1, createdAt: expect.any(String) });
  }, 600_000);
});
