import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { prisma } from "@/lib/db/client";
import { sha256Hex } from "@/lib/crypto/hash";
import { decryptApiKey } from "@/lib/keys/crypto";
import { sendEvent } from "@/tests/helpers/ingest";

const run = promisify(execFile);

describe("npm run telltale -- project create", () => {
  it("prints exactly one line of JSON {id, name, apiKey, dsn}; the key and the DSN's public key work", async () => {
    const owner = `cli-${Date.now()}-${process.pid}@example.test`;
    const { stdout } = await run("npm", ["run", "--silent", "telltale", "--", "project", "create", "--name", "CLI demo", "--owner", owner, "--json"], {
      env: process.env,
      timeout: 60_000,
    });
    const lines = stdout.split("\n").filter((l) => l !== "");
    expect(lines).toHaveLength(1);
    const created = JSON.parse(lines[0]!);
    expect(Object.keys(created).sort()).toEqual(["apiKey", "dsn", "id", "name"]);
    expect(created.name).toBe("CLI demo");
    expect(created.apiKey).toMatch(/^tlt_[0-9A-Za-z]{38}$/);

    const membership = await prisma.membership.findFirstOrThrow({ where: { projectId: created.id }, include: { user: true } });
    expect(membership).toMatchObject({ role: "owner", user: { email: owner } });
    const { number } = await prisma.project.findUniqueOrThrow({ where: { id: created.id }, select: { number: true } });
    const dsn = new URL(created.dsn);
    expect(dsn.pathname).toBe(`/${number}`);
    expect(dsn.username).toMatch(/^[0-9A-Za-z]{32}$/);
    const publicKey = await prisma.apiKey.findFirstOrThrow({ where: { projectId: created.id, kind: "public" } });
    expect(publicKey.hash).toBe(sha256Hex(dsn.username));
    const key = await prisma.apiKey.findFirstOrThrow({ where: { projectId: created.id, kind: "secret" } });
    expect(key.hash).toBe(sha256Hex(created.apiKey));
    expect(decryptApiKey(key.encrypted)).toBe(created.apiKey);
    expect((await sendEvent(created.apiKey, { level: "info", message: "from the CLI key", projectId: created.id })).status).toBe(201);
  }, 60_000);

  it("refuses bad arguments with a usage message and exit code 2", async () => {
    const failure = await run("npm", ["run", "telltale", "--", "project", "create", "--name", "", "--owner", "not-an-email"], {
      env: process.env,
      timeout: 60_000,
    }).then(
      () => null,
      (e: { code: number; stderr: string }) => e,
    );
    expect(failure?.code).toBe(2);
    expect(failure?.stderr).toMatch(/--owner: must be an email address/);
    expect(failure?.stderr).toMatch(/Usage:/);
  }, 60_000);
});

describe("npm run telltale -- signin-link", () => {
  it("prints a one-time link to the confirmation page for an existing user; its button signs in once", async () => {
    const email = `cli-link-${Date.now()}-${process.pid}@example.test`;
    await prisma.user.create({ data: { email } });
    const { stdout, stderr } = await run("npm", ["run", "--silent", "telltale", "--", "signin-link", "--email", email.toUpperCase()], { env: process.env, timeout: 60_000 });
    const link = new URL(stdout.trim());
    expect(link.pathname).toBe("/signin/confirm");
    expect(link.searchParams.get("email")).toBe(email);
    expect(stderr).not.toContain(link.searchParams.get("token")!); // the secret goes to stdout only
    const stored = await prisma.verificationToken.findMany({ where: { identifier: email } });
    expect(stored).toHaveLength(1);
    expect(stored[0]!.token).not.toBe(link.searchParams.get("token"));

    const { POST } = await import("@/app/api/auth/[...nextauth]/route");
    const callback = () =>
      POST(
        new Request(`http://localhost:3000/api/auth/callback/nodemailer?${link.searchParams}`, {
          method: "POST",
          headers: { "sec-fetch-site": "same-origin", "content-type": "application/x-www-form-urlencoded" },
          body: "",
        }),
      );
    const signedIn = await callback();
    expect(signedIn.status).toBe(302);
    expect(signedIn.headers.getSetCookie().some((c) => c.startsWith("authjs.session-token="))).toBe(true);
    const again = await callback();
    expect(again.headers.getSetCookie().some((c) => c.startsWith("authjs.session-token=") && !/max-age=0/i.test(c))).toBe(false);
  }, 60_000);

  it("refuses an address with no user (exit 1) and makes no token", async () => {
    const email = `cli-nobody-${Date.now()}-${process.pid}@example.test`;
    const failure = await run("npm", ["run", "--silent", "telltale", "--", "signin-link", "--email", email], { env: process.env, timeout: 60_000 }).then(
      () => null,
      (e: { code: number; stderr: string; stdout: string }) => e,
    );
    expect(failure?.code).toBe(1);
    expect(failure?.stderr).toMatch(/No user has the address/);
    expect(failure?.stdout).toBe("");
    expect(await prisma.verificationToken.count({ where: { identifier: email } })).toBe(0);
  }, 60_000);
});
