/**
 * A project's DSN and public key through the management API: the DSN in
 * the details on the public origin, the public key rotated on its own, the
 * allowed origins of the Sentry routes (validated, effective at once), and
 * another tenant reading or changing none of it.
 */
import { describe, expect, it } from "vitest";
import * as projectsRoute from "@/app/api/projects/route";
import * as projectRoute from "@/app/api/projects/[id]/route";
import * as keyRoute from "@/app/api/projects/[id]/key/route";
import { POST as postStore } from "@/app/api/[projectNumber]/store/route";
import { prisma } from "@/lib/db/client";
import { authenticateApiKey, authenticatePublicKey } from "@/lib/keys/service";
import { lockProjectInPrismaTransaction } from "@/lib/projects/lock";
import { CLIENT_ADDRESS_HEADER } from "@/lib/http/client-address";
import { stubEnv, unstubEnvs } from "@/tests/helpers/env";
import { apiRequest, callRoute, createTeam } from "@/tests/helpers/session";

const details = (id: string, cookie: string | null, headers: Record<string, string> = {}) =>
  callRoute(projectRoute.GET, apiRequest(`/api/projects/${id}`, { cookie, headers }), { id });
const rotate = (id: string, cookie: string | null, query = "") =>
  callRoute(keyRoute.POST, apiRequest(`/api/projects/${id}/key${query}`, { method: "POST", cookie }), { id });
const patch = (id: string, cookie: string | null, body: unknown) =>
  callRoute(projectRoute.PATCH, apiRequest(`/api/projects/${id}`, { method: "PATCH", cookie, body }), { id });

/** A Sentry SDK's store request from a page on `origin` (or a server: no origin). */
async function storeFrom(dsn: string, origin?: string) {
  const url = new URL(dsn);
  const number = url.pathname.slice(1);
  const headers: Record<string, string> = { [CLIENT_ADDRESS_HEADER]: `10.9.${Number(number) % 250}.1`, "x-sentry-auth": `Sentry sentry_version=7, sentry_key=${url.username}` };
  if (origin) headers.origin = origin;
  const body = JSON.stringify({ event_id: crypto.randomUUID().replaceAll("-", ""), level: "error", message: "from a page", timestamp: Date.now() / 1000 });
  const res = await postStore(new Request(`http://localhost/api/${number}/store/`, { method: "POST", headers, body }), { params: Promise.resolve({ projectNumber: number }) });
  return res.status;
}

describe("POST /api/projects: dsn", () => {
  it("answers the new project's DSN, the one GET /api/projects/:id shows", async () => {
    const { owner } = await createTeam("dsn-create");
    const created = await callRoute(projectsRoute.POST, apiRequest("/api/projects", { method: "POST", cookie: owner.cookie, body: { name: `dsn-new-${crypto.randomUUID()}` } }));
    expect(created.status).toBe(201);
    expect(created.body.dsn).toMatch(/^http:\/\/[^@]+@localhost:3000\/\d+$/);
    expect((await details(created.body.id, owner.cookie)).body).toMatchObject({ id: created.body.id, apiKey: created.body.apiKey, dsn: created.body.dsn });
  });
});

describe("GET /api/projects/:id: dsn", () => {
  it("is the public key and project number on the public origin: AUTH_URL when set, else the request's host", async () => {
    const { owner, member, project } = await createTeam("dsn");
    const { number } = await prisma.project.findUniqueOrThrow({ where: { id: project.id }, select: { number: true } });
    const asOwner = await details(project.id, owner.cookie);
    const dsn = new URL(asOwner.body.dsn);
    expect([dsn.protocol, dsn.host, dsn.pathname]).toEqual(["http:", "localhost:3000", `/${number}`]);
    expect(await authenticatePublicKey(dsn.username)).toMatchObject({ projectId: project.id, projectNumber: number });
    // Members see the same DSN (made once, not per reader).
    expect((await details(project.id, member.cookie)).body.dsn).toBe(asOwner.body.dsn);
    try {
      stubEnv("AUTH_URL", "https://telltale.example/api/auth");
      expect((await details(project.id, owner.cookie)).body.dsn).toBe(`https://${dsn.username}@telltale.example/${number}`);
    } finally {
      unstubEnvs();
    }
  });

  it("another tenant gets the same 404 as for no project, and no DSN", async () => {
    const { outsider, project } = await createTeam("dsn-tenant");
    const hidden = await details(project.id, outsider.cookie);
    expect(hidden.status).toBe(404);
    expect(JSON.stringify(hidden.body)).not.toMatch(/dsn|@localhost/);
  });
});

describe("POST /api/projects/:id/key?kind=public", () => {
  it("owner: a new public key and DSN; the old DSN is refused at once, the API key keeps working", async () => {
    const { owner, project } = await createTeam("rotate-public");
    const before = new URL((await details(project.id, owner.cookie)).body.dsn);
    await authenticatePublicKey(before.username); // cached
    const { status, body } = await rotate(project.id, owner.cookie, "?kind=public");
    expect(status).toBe(200);
    expect(body).toEqual({ kind: "public", publicKey: expect.stringMatching(/^[A-Za-z0-9]{32}$/), dsn: expect.any(String) });
    expect(body.dsn).toBe(`http://${body.publicKey}@localhost:3000${before.pathname}`);
    await expect(authenticatePublicKey(before.username)).rejects.toMatchObject({ code: "invalid_api_key" });
    expect(await storeFrom(before.href)).toBe(401);
    expect(await storeFrom(body.dsn)).toBe(200);
    expect(await authenticateApiKey(project.apiKey)).toMatchObject({ projectId: project.id });
    expect((await details(project.id, owner.cookie)).body.dsn).toBe(body.dsn);

    // ?kind=secret (the default) leaves the DSN alone.
    const secret = await rotate(project.id, owner.cookie, "?kind=secret");
    expect(secret.body).toEqual({ kind: "secret", apiKey: expect.stringMatching(/^tlt_/) });
    expect((await details(project.id, owner.cookie)).body.dsn).toBe(body.dsn);
  });

  it("member 403, another tenant 404, signed out 401, for either kind; both keys unchanged. An unknown kind is a 400", async () => {
    const { owner, member, outsider, project } = await createTeam("rotate-public-tenancy");
    const dsn = (await details(project.id, owner.cookie)).body.dsn;
    const answers = [];
    for (const query of ["?kind=public", ""]) {
      for (const cookie of [member.cookie, outsider.cookie, null]) {
        const { status, body } = await rotate(project.id, cookie, query);
        answers.push([query, status, body.code]);
      }
    }
    expect(answers).toEqual([
      ["?kind=public", 403, "forbidden"],
      ["?kind=public", 404, "not_found"],
      ["?kind=public", 401, "unauthenticated"],
      ["", 403, "forbidden"],
      ["", 404, "not_found"],
      ["", 401, "unauthenticated"],
    ]);
    const bad = await rotate(project.id, owner.cookie, "?kind=both");
    expect([bad.status, bad.body.code, bad.body.errors[0]]).toEqual([400, "validation_failed", { path: "kind", message: "kind is secret (the API key) or public (the DSN's key)." }]);
    expect((await details(project.id, owner.cookie)).body.dsn).toBe(dsn);
    expect(await authenticateApiKey(project.apiKey)).toMatchObject({ projectId: project.id });
  });
});

describe("PATCH /api/projects/:id {allowedOrigins}", () => {
  it("stores origins as browsers send them and applies them to the Sentry routes at once", async () => {
    const { owner, project } = await createTeam("origins");
    const { dsn } = (await details(project.id, owner.cookie)).body;
    expect(await storeFrom(dsn, "https://evil.example")).toBe(200); // default: any page

    const set = await patch(project.id, owner.cookie, { allowedOrigins: ["HTTPS://App.Example:443/", "http://localhost:5173", "capacitor://localhost", "http://[::1]:8080"] });
    expect(set.status).toBe(200);
    expect(set.body.allowedOrigins).toEqual(["https://app.example", "http://localhost:5173", "capacitor://localhost", "http://[::1]:8080"]);
    expect(set.body.name).toBe(project.name);
    // The cached public key carried the old list: it is dropped with the change.
    expect(await storeFrom(dsn, "https://evil.example")).toBe(403);
    expect(await storeFrom(dsn, "https://app.example")).toBe(200);
    expect(await storeFrom(dsn)).toBe(200); // servers send no Origin

    expect((await patch(project.id, owner.cookie, { allowedOrigins: [] })).body.allowedOrigins).toEqual([]);
    expect(await storeFrom(dsn, "https://app.example")).toBe(403);
    expect((await patch(project.id, owner.cookie, { allowedOrigins: ["*"], name: "Renamed too" })).body).toMatchObject({ allowedOrigins: ["*"], name: "Renamed too" });
    expect(await storeFrom(dsn, "https://app.example")).toBe(200);
  });

  it("refuses what is not an origin, with a problem per entry; nothing changes", async () => {
    const { owner, project } = await createTeam("origins-bad");
    const cases: [unknown, string][] = [
      [{ allowedOrigins: ["https://app.example/path"] }, "allowedOrigins.0"],
      [{ allowedOrigins: ["ok.example"] }, "allowedOrigins.0"],
      [{ allowedOrigins: ["https://a.example", "null"] }, "allowedOrigins.1"],
      [{ allowedOrigins: ["https://user@a.example"] }, "allowedOrigins.0"],
      [{ allowedOrigins: ["https://a.example:99999"] }, "allowedOrigins.0"],
      [{ allowedOrigins: ["*", "https://a.example"] }, "allowedOrigins"],
      [{ allowedOrigins: "*" }, "allowedOrigins"],
      [{ allowedOrigins: [42] }, "allowedOrigins.0"],
      [{ allowedOrigins: Array.from({ length: 51 }, (_, i) => `https://a${i}.example`) }, "allowedOrigins"],
      [{}, ""],
      [{ allowedOrigins: ["*"], other: 1 }, ""],
    ];
    for (const [body, path] of cases) {
      const answer = await patch(project.id, owner.cookie, body);
      expect([answer.status, answer.body.code], JSON.stringify(body)).toEqual([400, "validation_failed"]);
      expect(answer.body.errors.map((e: { path: string }) => e.path), JSON.stringify(body)).toContain(path === "" ? answer.body.errors[0].path : path);
    }
    const oneBad = await patch(project.id, owner.cookie, { allowedOrigins: ["https://app.example/path"] });
    expect(oneBad.body.errors[0].message).toMatch(/is not an origin: write scheme:\/\/host\[:port\]/);
    expect((await prisma.project.findUniqueOrThrow({ where: { id: project.id } })).allowedOrigins).toEqual(["*"]);
  });

  it("refuses an entry with whitespace in it (an origin never has any), naming it, rather than splitting or trimming it", async () => {
    const { owner, project } = await createTeam("origins-space");
    for (const entry of ["https://a.example https://b.example", "https://a.example,\nhttps://b.example", " https://a.example", "https://a.example\t", "* "]) {
      const answer = await patch(project.id, owner.cookie, { allowedOrigins: ["https://ok.example", entry] });
      expect([answer.status, answer.body.errors], JSON.stringify(entry)).toEqual([
        400,
        [{ path: "allowedOrigins.1", message: expect.stringMatching(/contains whitespace: give each origin as its own element of the list/) }],
      ]);
    }
    expect((await prisma.project.findUniqueOrThrow({ where: { id: project.id } })).allowedOrigins).toEqual(["*"]);
  });

  it("members 403, another tenant 404: the list is unchanged", async () => {
    const { member, outsider, project } = await createTeam("origins-tenancy");
    expect((await patch(project.id, member.cookie, { allowedOrigins: ["https://mine.example"] })).status).toBe(403);
    expect((await patch(project.id, outsider.cookie, { allowedOrigins: ["https://mine.example"] })).status).toBe(404);
    expect((await prisma.project.findUniqueOrThrow({ where: { id: project.id } })).allowedOrigins).toEqual(["*"]);
  });
});

describe("the DSN's key, made on first look", () => {
  it("is one key however many first looks race (the page, the API, two tabs)", async () => {
    const { owner, project } = await createTeam("dsn-race");
    const { readOrCreatePublicKey } = await import("@/lib/projects/dsn");
    const keys = await Promise.all(Array.from({ length: 8 }, () => readOrCreatePublicKey(project.id)));
    expect(new Set(keys).size).toBe(1);
    expect(await prisma.apiKey.count({ where: { projectId: project.id, kind: "public" } })).toBe(1);
    expect(new URL((await details(project.id, owner.cookie)).body.dsn).username).toBe(keys[0]);
    expect(await authenticatePublicKey(keys[0]!)).toMatchObject({ projectId: project.id });
  });
});

describe("key caches across bundles", () => {
  it("a change made by another copy of the keys module (a production build has one per route) reaches this one at once", async () => {
    const { vi } = await import("vitest");
    const { project } = await createTeam("dsn-bundles");
    const routeCopy = await import("@/lib/keys/service");
    const oldKey = (await routeCopy.readOrCreatePublicKeyWith(project.id, lockProjectInPrismaTransaction))!;
    await routeCopy.authenticatePublicKey(oldKey); // cached by the "route"
    vi.resetModules();
    const actionCopy = await import("@/lib/keys/service");
    expect(actionCopy).not.toBe(routeCopy);
    await actionCopy.rotateProjectKey(project.id, "public"); // the "dashboard action"
    await expect(routeCopy.authenticatePublicKey(oldKey)).rejects.toMatchObject({ code: "invalid_api_key" });

    const newKey = (await routeCopy.readOrCreatePublicKeyWith(project.id, lockProjectInPrismaTransaction))!;
    expect(await routeCopy.authenticatePublicKey(newKey)).toMatchObject({ allowedOrigins: ["*"] });
    await prisma.project.update({ where: { id: project.id }, data: { allowedOrigins: ["https://app.example"] } });
    actionCopy.forgetProjectKeys(project.id);
    expect(await routeCopy.authenticatePublicKey(newKey)).toMatchObject({ allowedOrigins: ["https://app.example"] });
  });
});
