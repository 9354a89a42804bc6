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
    const people = await telltaleWith({ AUTH_URL: "https://telltale.example/api/auth" }, "project", "create", "--name", "Shop API", "--owner", owner, "--if-missing");
    expect(people.code, people.stderr).toBe(0);
    expect(people.stdout).toContain(`${owner} already owns "Shop API"; nothing was created.`);
    expect(people.stdout).toContain(`DSN:        https://${new URL(first.dsn).username}@telltale.example/`);
    expect(people.stdout).toContain("curl -X POST https://telltale.example/api/events");

    // Another owner may use the name.
    const other = jsonLine(await telltale("project", "create", "--name", "Shop API", "--owner", `${unique("other")}@example.test`, "--json"));
    expect(other.id).not.toBe(first.id);
  }, 120_000);
});

describe("npm run telltale -- project list / key rotate", () => {
  it("lists every project with number, owners and counts; rotates the API key and the DSN key each on its own", async () => {
    const owner = `${unique("keys")}@example.test`;
    const created = jsonLine(await telltale("project", "create", "--name", "Keys", "--owner", owner, "--json"));
    const { number } = await prisma.project.findUniqueOrThrow({ where: { id: created.id }, select: { number: true } });

    const { projects } = jsonLine(await telltale("project", "list", "--json"));
    expect(projects.find((p: { id: string }) => p.id === created.id)).toEqual({
      id: created.id,
      number,
      name: "Keys",
      createdAt: expect.any(String),
      owners: [owner],
      members: 1,
      eventCount: 0,
    });
    const people = await telltale("project", "list");
    expect(people.stdout).toMatch(/^ID\s+NUMBER\s+NAME\s+OWNERS/);
    expect(people.stdout).toContain(owner);

    // --public: a new DSN key; the API key keeps working.
    const publicKey = jsonLine(await telltale("project", "key", "rotate", "--project", String(number), "--public", "--json"));
    expect(publicKey).toMatchObject({ id: created.id, kind: "public", publicKey: expect.stringMatching(/^[A-Za-z0-9]{32}$/) });
    expect(publicKey.dsn).toBe(`${new URL(created.dsn).protocol}//${publicKey.publicKey}@${new URL(created.dsn).host}/${number}`);
    expect(await prisma.apiKey.findFirst({ where: { hash: sha256Hex(new URL(created.dsn).username) } })).toMatchObject({ revokedAt: expect.any(Date) });
    expect((await sendEvent(created.apiKey, { level: "info", message: "api key untouched", projectId: created.id })).status).toBe(201);

    // Without --public: the API key; the DSN key stays.
    const secret = jsonLine(await telltale("project", "key", "rotate", "--project", created.id, "--json"));
    expect(secret).toEqual({ id: created.id, kind: "secret", apiKey: expect.stringMatching(/^tlt_/) });
    expect((await sendEvent(created.apiKey, { level: "info", message: "old key", projectId: created.id })).status).toBe(401);
    expect((await sendEvent(secret.apiKey, { level: "info", message: "new key", projectId: created.id })).status).toBe(201);
    expect(await prisma.apiKey.findFirst({ where: { hash: sha256Hex(publicKey.publicKey) } })).toMatchObject({ revokedAt: null });

    const people2 = await telltale("project", "key", "rotate", "--project", created.id);
    expect(people2.stdout).toMatch(/Rotated the API key of "Keys": the old key no longer works/);

    const unknown = await telltale("project", "key", "rotate", "--project", "no-such-project", "--json");
    expect(unknown).toMatchObject({ code: 1, stdout: "" });
    expect(unknown.stderr).toContain("No project with this id or number.");
    const missing = await telltale("project", "key", "rotate");
    expect(missing.code).toBe(2);
    expect(missing.stderr).toMatch(/--project: is required/);
  }, 180_000);
});

describe("npm run telltale -- member add|role|remove, user list", () => {
  it("adds a user (created if needed), changes roles, removes; never leaves a project without an owner", async () => {
    const owner = `${unique("team")}@example.test`;
    const teammate = `${unique("mate")}@example.test`;
    const created = jsonLine(await telltale("project", "create", "--name", "Team", "--owner", owner, "--json"));

    const added = jsonLine(await telltale("member", "add", "--project", created.id, "--email", teammate.toUpperCase(), "--json"));
    expect(added).toEqual({ projectId: created.id, userId: expect.any(String), email: teammate, role: "member" });
    const twice = await telltale("member", "add", "--project", created.id, "--email", teammate);
    expect(twice.code).toBe(1);
    expect(twice.stderr).toMatch(/already a member of the project \(role member\)/);

    // The sole owner cannot be demoted or removed.
    const demote = await telltale("member", "role", "--project", created.id, "--email", owner, "--role", "member");
    expect(demote.code).toBe(1);
    expect(demote.stderr).toMatch(/only owner/);
    const remove = await telltale("member", "remove", "--project", created.id, "--email", owner);
    expect(remove.code).toBe(1);

    expect(jsonLine(await telltale("member", "role", "--project", created.id, "--email", teammate, "--role", "owner", "--json"))).toMatchObject({ role: "owner" });
    expect(jsonLine(await telltale("member", "role", "--project", created.id, "--email", owner, "--role", "member", "--json"))).toMatchObject({ role: "member" });
    expect(jsonLine(await telltale("member", "remove", "--project", created.id, "--email", owner, "--json"))).toEqual({
      projectId: created.id,
      userId: expect.any(String),
      email: owner,
      removed: true,
    });
    const memberships = await prisma.membership.findMany({ where: { projectId: created.id }, include: { user: true } });
    expect(memberships.map((m) => [m.user.email, m.role])).toEqual([[teammate, "owner"]]);

    const { users } = jsonLine(await telltale("user", "list", "--json"));
    expect(users.find((u: { email: string }) => u.email === teammate)).toMatchObject({ owns: 1, memberOf: 1, createdAt: expect.any(String) });
    expect(users.find((u: { email: string }) => u.email === owner)).toMatchObject({ owns: 0, memberOf: 0 });

    const nobody = await telltale("member", "remove", "--project", created.id, "--email", `${unique("nobody")}@example.test`);
    expect(nobody.code).toBe(1);
    expect(nobody.stderr).toMatch(/No user has the address/);
    const badRole = await telltale("member", "role", "--project", created.id, "--email", teammate, "--role", "admin");
    expect(badRole.code).toBe(2);
    expect(badRole.stderr).toMatch(/--role: must be owner or member/);
  }, 240_000);
});
