import { seedEvents } from "@/tests/helpers/events";
import { setEnv } from "@/tests/helpers/env";
import { randomUUID } from "node:crypto";
import { describe, expect, it } from "vitest";
import * as projectsRoute from "@/app/api/projects/route";
import * as projectRoute from "@/app/api/projects/[id]/route";
import * as keyRoute from "@/app/api/projects/[id]/key/route";
import { prisma } from "@/lib/db/client";
import { authenticateApiKey } from "@/lib/keys/service";
import { createProject } from "@/lib/project-setup/create-project";
import { apiRequest, callRoute, createTeam, createUserWithSession } from "@/tests/helpers/session";

const team = () => createTeam("proj");

describe("GET /api/projects", () => {
  it("lists the caller's projects with their role and event count, and nobody else's", async () => {
    const { owner, member, outsider, project } = await team();
    await seedEvents(project.id, [{ level: "info", message: "hello", at: new Date() }]);

    const asOwner = await callRoute(projectsRoute.GET, apiRequest("/api/projects", { cookie: owner.cookie }));
    expect(asOwner.status).toBe(200);
    expect(asOwner.body.projects).toEqual([
      { id: project.id, name: project.name, role: "owner", createdAt: expect.any(String), eventCount: 1, keyLast4: project.apiKey.slice(-4) },
    ]);
    const asMember = await callRoute(projectsRoute.GET, apiRequest("/api/projects", { cookie: member.cookie }));
    expect(asMember.body.projects.map((p: { id: string; role: string }) => [p.id, p.role])).toEqual([[project.id, "member"]]);
    const asOutsider = await callRoute(projectsRoute.GET, apiRequest("/api/projects", { cookie: outsider.cookie }));
    expect(asOutsider.body).toEqual({ projects: [] });
    // No key in the list: it is only in the details.
    expect(JSON.stringify(asOwner.body)).not.toContain("tlt_");
  });

  it("gives the active key's last four characters (for the Projects page's mask) and each project's own event count", async () => {
    const { owner, project } = await team();
    const other = await createProject(owner.user.id, `proj-other-${randomUUID()}`);
    await seedEvents(project.id, [1, 2, 3].map(() => ({ level: "info" as const, message: "x", at: new Date() })));
    await seedEvents(other.id, [{ level: "info", message: "x", at: new Date() }]);
    const rotated = await callRoute(keyRoute.POST, apiRequest(`/api/projects/${project.id}/key`, { method: "POST", cookie: owner.cookie }), { id: project.id });
    expect(rotated.status).toBe(200);
    const newKey: string = rotated.body.apiKey;

    const { body } = await callRoute(projectsRoute.GET, apiRequest("/api/projects", { cookie: owner.cookie }));
    const byId = new Map(body.projects.map((p: { id: string }) => [p.id, p]));
    expect(byId.get(project.id)).toMatchObject({ eventCount: 3, keyLast4: newKey.slice(-4) });
    expect(byId.get(other.id)).toMatchObject({ eventCount: 1, keyLast4: other.apiKey.slice(-4) });
    expect(body.projects.map((p: { id: string }) => p.id)).toEqual([other.id, project.id]); // newest first

    // A project whose key was revoked by hand shows none.
    await prisma.apiKey.updateMany({ where: { projectId: other.id }, data: { revokedAt: new Date() } });
    const after = await callRoute(projectsRoute.GET, apiRequest("/api/projects", { cookie: owner.cookie }));
    expect(after.body.projects.find((p: { id: string }) => p.id === other.id).keyLast4).toBeNull();

    // A public key (the Sentry DSN's), even a newer one, is not the key the mask stands for.
    await prisma.apiKey.create({ data: { projectId: project.id, kind: "public", hash: randomUUID(), encrypted: "x", last4: "pub4" } });
    const withPublic = await callRoute(projectsRoute.GET, apiRequest("/api/projects", { cookie: owner.cookie }));
    expect(withPublic.body.projects.find((p: { id: string }) => p.id === project.id).keyLast4).toBe(newKey.slice(-4));
  });

  it("401 unauthenticated without a session, with an unknown or an expired one", async () => {
    const expired = await createUserWithSession(undefined, { expires: new Date(Date.now() - 1000) });
    for (const cookie of [null, "authjs.session-token=nope", expired.cookie, "other=1"]) {
      const { status, body, res } = await callRoute(projectsRoute.GET, apiRequest("/api/projects", { cookie }));
      expect(status).toBe(401);
      expect(body.code).toBe("unauthenticated");
      expect(res.headers.get("content-type")).toBe("application/problem+json");
    }
  });

  it("accepts the __Secure- cookie used over https", async () => {
    const { cookie } = await createUserWithSession(undefined, { secureCookie: true });
    expect((await callRoute(projectsRoute.GET, apiRequest("/api/projects", { cookie }))).status).toBe(200);
  });

  it("refuses an API key, even next to a valid session: 401 api_key_not_accepted", async () => {
    const { owner, project } = await team();
    const { status, body } = await callRoute(
      projectsRoute.GET,
      apiRequest("/api/projects", { cookie: owner.cookie, headers: { authorization: `Bearer ${project.apiKey}` } }),
    );
    expect(status).toBe(401);
    expect(body.code).toBe("api_key_not_accepted");
  });
});

describe("POST /api/projects", () => {
  it("creates a project owned by the caller: 201 {id, name, apiKey, dsn} and the key works", async () => {
    const { user, cookie } = await createUserWithSession();
    const { status, body } = await callRoute(projectsRoute.POST, apiRequest("/api/projects", { method: "POST", cookie, body: { name: "  Shop backend  " } }));
    expect(status).toBe(201);
    expect(Object.keys(body).sort()).toEqual(["apiKey", "dsn", "id", "name"]);
    expect(body.name).toBe("Shop backend");
    expect(body.apiKey).toMatch(/^tlt_[0-9A-Za-z]{38}$/);
    expect(await authenticateApiKey(body.apiKey)).toMatchObject({ projectId: body.id });
    const membership = await prisma.membership.findUniqueOrThrow({ where: { projectId_userId: { projectId: body.id, userId: user.id } } });
    expect(membership.role).toBe("owner");
  });

  it("400 validation_failed listing every problem, and creates nothing", async () => {
    const { user, cookie } = await createUserWithSession();
    const cases: [unknown, string[]][] = [
      [{}, ["name"]],
      [{ name: "   " }, ["name"]],
      [{ name: "x".repeat(101) }, ["name"]],
      [{ name: 42, extra: true }, ["name", "extra"]],
      [{ name: "a\u0000b" }, ["name"]],
      [{ name: "Shop \u202Egnp.exe" }, ["name"]],
      [{ name: "Shop\u200Bbackend" }, ["name"]],
      [{ name: "Claim at https://evil.example" }, ["name"]],
      [{ name: "visit www.evil.example" }, ["name"]],
      [{ name: "write to boss@evil.example" }, ["name"]],
      [[], ["body"]],
    ];
    for (const [payload, paths] of cases) {
      const { status, body } = await callRoute(projectsRoute.POST, apiRequest("/api/projects", { method: "POST", cookie, body: payload }));
      expect(status, JSON.stringify(payload)).toBe(400);
      expect(body.code).toBe("validation_failed");
      expect(body.errors.map((e: { path: string }) => e.path).sort()).toEqual(paths.sort());
    }
    expect(await prisma.membership.count({ where: { userId: user.id } })).toBe(0);
  });

  it("a user owns at most MAX_PROJECTS_PER_USER projects: then 409, and deleting one makes room", async () => {
    setEnv("MAX_PROJECTS_PER_USER", "2");
    try {
      const { cookie } = await createUserWithSession();
      const create = (name: string) => callRoute(projectsRoute.POST, apiRequest("/api/projects", { method: "POST", cookie, body: { name } }));
      const first = await create("one");
      expect((await create("two")).status).toBe(201);
      const third = await create("three");
      expect([third.status, third.body.code]).toEqual([409, "conflict"]);
      expect(third.body.detail).toContain("MAX_PROJECTS_PER_USER");
      await callRoute(projectRoute.DELETE, apiRequest(`/api/projects/${first.body.id}`, { method: "DELETE", cookie, body: { confirmName: "one" } }), { id: first.body.id });
      expect((await create("three")).status).toBe(201);
    } finally {
      setEnv("MAX_PROJECTS_PER_USER", undefined);
    }
  });

  it("409 for a name the owner already has (ignoring case, also when sent at once); another person may use it", async () => {
    const { cookie } = await createUserWithSession();
    const create = (name: string, as = cookie) => callRoute(projectsRoute.POST, apiRequest("/api/projects", { method: "POST", cookie: as, body: { name } }));
    expect((await create("Checkout")).status).toBe(201);
    const again = await create("checkout");
    expect([again.status, again.body.code]).toEqual([409, "conflict"]);
    expect(again.body.detail).toContain('already own a project named "Checkout"');
    const racing = await Promise.all([create("Storefront"), create("Storefront"), create("Storefront")]);
    expect(racing.map((r) => r.status).sort()).toEqual([201, 409, 409]);
    const { cookie: other } = await createUserWithSession();
    expect((await create("Checkout", other)).status).toBe(201);
  });

  it("400 invalid_json, 415 for another media type, 413 over 64 KiB", async () => {
    const { cookie } = await createUserWithSession();
    const bad = await callRoute(projectsRoute.POST, apiRequest("/api/projects", { method: "POST", cookie, body: "{nope" }));
    expect([bad.status, bad.body.code]).toEqual([400, "invalid_json"]);
    const form = await callRoute(
      projectsRoute.POST,
      apiRequest("/api/projects", { method: "POST", cookie, body: "name=x", headers: { "content-type": "application/x-www-form-urlencoded" } }),
    );
    expect([form.status, form.body.code]).toEqual([415, "unsupported_media_type"]);
    const big = await callRoute(projectsRoute.POST, apiRequest("/api/projects", { method: "POST", cookie, body: { name: "x".repeat(70_000) } }));
    expect([big.status, big.body.code]).toEqual([413, "payload_too_large"]);
  });

  it("401 when signed out", async () => {
    const { status, body } = await callRoute(projectsRoute.POST, apiRequest("/api/projects", { method: "POST", body: { name: "x" } }));
    expect([status, body.code]).toEqual([401, "unauthenticated"]);
  });
});

describe("CSRF: state changes from another site are refused", () => {
  it("403 forbidden for a foreign Origin, a foreign Referer, Origin: null or Sec-Fetch-Site: cross-site; nothing changes", async () => {
    const { user, cookie } = await createUserWithSession();
    // `origin: undefined`: no Origin header at all (only the other headers).
    const foreign: Record<string, string | undefined>[] = [
      { origin: "https://evil.example" },
      { origin: "http://localhost:3001" },
      { origin: "null" },
      { origin: undefined, referer: "https://evil.example/page" },
      { origin: undefined, "sec-fetch-site": "cross-site" },
    ];
    for (const headers of foreign) {
      const request = apiRequest("/api/projects", { method: "POST", cookie, body: { name: "csrf" } });
      for (const [name, value] of Object.entries(headers)) {
        if (value === undefined) request.headers.delete(name);
        else request.headers.set(name, value);
      }
      const { status, body } = await callRoute(projectsRoute.POST, request);
      expect(status, JSON.stringify(headers)).toBe(403);
      expect(body.code).toBe("forbidden");
    }
    expect(await prisma.membership.count({ where: { userId: user.id } })).toBe(0);
  });

  it("refuses a cross-site DELETE and key rotation; the project and key survive", async () => {
    const { owner, project } = await team();
    const headers = { origin: "https://evil.example" };
    const del = await callRoute(projectRoute.DELETE, apiRequest(`/api/projects/${project.id}`, { method: "DELETE", cookie: owner.cookie, headers }), { id: project.id });
    const rot = await callRoute(keyRoute.POST, apiRequest(`/api/projects/${project.id}/key`, { method: "POST", cookie: owner.cookie, headers }), { id: project.id });
    expect([del.status, rot.status]).toEqual([403, 403]);
    expect(await prisma.project.count({ where: { id: project.id } })).toBe(1);
    expect(await authenticateApiKey(project.apiKey)).toMatchObject({ projectId: project.id });
  });

  it("allows the same origin (Origin or Referer) and clients that send neither (curl)", async () => {
    const { cookie } = await createUserWithSession();
    const sameReferer = apiRequest("/api/projects", { method: "POST", cookie, body: { name: "r" }, headers: { referer: "http://localhost:3000/projects" } });
    sameReferer.headers.delete("origin");
    const curl = apiRequest("/api/projects", { method: "POST", cookie, body: { name: "c" } });
    curl.headers.delete("origin");
    for (const request of [apiRequest("/api/projects", { method: "POST", cookie, body: { name: "o" } }), sameReferer, curl]) {
      expect((await callRoute(projectsRoute.POST, request)).status).toBe(201);
    }
  });
});

describe("GET /api/projects/:id", () => {
  it("members and owners get the details with the key; outsiders and unknown ids the same 404", async () => {
    const { owner, member, outsider, project } = await team();
    for (const [who, role] of [[owner, "owner"], [member, "member"]] as const) {
      const { status, body } = await callRoute(projectRoute.GET, apiRequest(`/api/projects/${project.id}`, { cookie: who.cookie }), { id: project.id });
      expect(status).toBe(200);
      expect(body).toEqual({
        id: project.id,
        name: project.name,
        role,
        createdAt: expect.any(String),
        apiKey: project.apiKey,
        dsn: expect.stringMatching(/^http:\/\/[A-Za-z0-9]{32}@localhost:3000\/\d+$/),
        allowedOrigins: ["*"],
      });
    }
    const hidden = await callRoute(projectRoute.GET, apiRequest(`/api/projects/${project.id}`, { cookie: outsider.cookie }), { id: project.id });
    const missing = await callRoute(projectRoute.GET, apiRequest("/api/projects/doesnotexist", { cookie: outsider.cookie }), { id: "doesnotexist" });
    const malformed = await callRoute(projectRoute.GET, apiRequest("/api/projects/%20x", { cookie: outsider.cookie }), { id: " x" });
    expect(hidden.status).toBe(404);
    expect(hidden.body).toEqual(missing.body);
    expect(malformed.body).toEqual(missing.body);
    expect(hidden.body.code).toBe("not_found");
    const signedOut = await callRoute(projectRoute.GET, apiRequest(`/api/projects/${project.id}`), { id: project.id });
    expect(signedOut.status).toBe(401);
  });
});

describe("PATCH /api/projects/:id (rename)", () => {
  const rename = (id: string, cookie: string | null, body: unknown) =>
    callRoute(projectRoute.PATCH, apiRequest(`/api/projects/${id}`, { method: "PATCH", cookie, body }), { id });

  it("owners rename (the same rules as a new name); members 403, outsiders 404, signed out 401", async () => {
    const { owner, member, outsider, project } = await team();
    const renamed = await rename(project.id, owner.cookie, { name: "  Checkout API  " });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toEqual({ id: project.id, name: "Checkout API", role: "owner", createdAt: expect.any(String), apiKey: project.apiKey, dsn: expect.any(String), allowedOrigins: ["*"] });
    const link = await rename(project.id, owner.cookie, { name: "see https://evil.example" });
    expect([link.status, link.body.code, link.body.errors[0].path]).toEqual([400, "validation_failed", "name"]);
    expect((await rename(project.id, member.cookie, { name: "Mine now" })).status).toBe(403);
    expect((await rename(project.id, outsider.cookie, { name: "Mine now" })).status).toBe(404);
    expect((await rename(project.id, null, { name: "Mine now" })).status).toBe(401);
    expect((await prisma.project.findUnique({ where: { id: project.id } }))?.name).toBe("Checkout API");
  });
});

describe("POST /api/projects/:id/key (rotate)", () => {
  it("owner: a new key, the old one is refused at once", async () => {
    const { owner, project } = await team();
    await authenticateApiKey(project.apiKey); // cached
    const { status, body } = await callRoute(keyRoute.POST, apiRequest(`/api/projects/${project.id}/key`, { method: "POST", cookie: owner.cookie }), { id: project.id });
    expect(status).toBe(200);
    expect(Object.keys(body)).toEqual(["kind", "apiKey"]);
    expect(body.kind).toBe("secret");
    expect(body.apiKey).not.toBe(project.apiKey);
    await expect(authenticateApiKey(project.apiKey)).rejects.toMatchObject({ code: "invalid_api_key" });
    expect(await authenticateApiKey(body.apiKey)).toMatchObject({ projectId: project.id });
    const details = await callRoute(projectRoute.GET, apiRequest(`/api/projects/${project.id}`, { cookie: owner.cookie }), { id: project.id });
    expect(details.body.apiKey).toBe(body.apiKey);
  });

  it("member 403, outsider 404, signed out 401; the key is unchanged", async () => {
    const { member, outsider, project } = await team();
    const answers = [];
    for (const cookie of [member.cookie, outsider.cookie, null]) {
      const { status, body } = await callRoute(keyRoute.POST, apiRequest(`/api/projects/${project.id}/key`, { method: "POST", cookie }), { id: project.id });
      answers.push([status, body.code]);
    }
    expect(answers).toEqual([[403, "forbidden"], [404, "not_found"], [401, "unauthenticated"]]);
    expect(await authenticateApiKey(project.apiKey)).toMatchObject({ projectId: project.id });
  });
});

describe("DELETE /api/projects/:id", () => {
  it("member 403, outsider 404, signed out 401; the project stays", async () => {
    const { member, outsider, project } = await team();
    const answers = [];
    for (const cookie of [member.cookie, outsider.cookie, null]) {
      const { status, body } = await callRoute(projectRoute.DELETE, apiRequest(`/api/projects/${project.id}`, { method: "DELETE", cookie }), { id: project.id });
      answers.push([status, body.code]);
    }
    expect(answers).toEqual([[403, "forbidden"], [404, "not_found"], [401, "unauthenticated"]]);
    expect(await prisma.project.count({ where: { id: project.id } })).toBe(1);
  });

  it("owner: 204, and the project's events, key, memberships and invitations are gone", async () => {
    const { owner, member, project } = await team();
    await seedEvents(project.id, [1, 2, 3].map((i) => ({ level: "info" as const, message: `m${i}`, at: new Date() })));
    await prisma.invitation.create({
      data: { projectId: project.id, email: "x@example.test", role: "member", tokenHash: randomUUID(), invitedById: owner.user.id, expiresAt: new Date(Date.now() + 1e6) },
    });
    await authenticateApiKey(project.apiKey); // cached
    const { status, body } = await callRoute(projectRoute.DELETE, apiRequest(`/api/projects/${project.id}`, { method: "DELETE", cookie: owner.cookie }), { id: project.id });
    expect(status).toBe(204);
    expect(body).toBeNull();
    expect(await prisma.event.count({ where: { projectId: project.id } })).toBe(0);
    expect(await prisma.issue.count({ where: { projectId: project.id } })).toBe(0);
    expect(await prisma.membership.count({ where: { projectId: project.id } })).toBe(0);
    expect(await prisma.invitation.count({ where: { projectId: project.id } })).toBe(0);
    await expect(authenticateApiKey(project.apiKey)).rejects.toMatchObject({ code: "invalid_api_key" });
    const after = await callRoute(projectRoute.GET, apiRequest(`/api/projects/${project.id}`, { cookie: member.cookie }), { id: project.id });
    expect(after.status).toBe(404);
    const again = await callRoute(projectRoute.DELETE, apiRequest(`/api/projects/${project.id}`, { method: "DELETE", cookie: owner.cookie }), { id: project.id });
    expect(again.status).toBe(404);
  });
});

describe("a key sealed under another TELLTALE_SECRET", () => {
  it("does not break the project: details answer apiKey null, ingestion still works", async () => {
    const { prisma } = await import("@/lib/db/client");
    const { encryptApiKey } = await import("@/lib/keys/crypto");
    const { makeProject, sendEvent } = await import("@/tests/helpers/ingest");
    const { getProjectDetails } = await import("@/lib/projects/service");
    const { resolveProjectAccess } = await import("@/lib/auth/access");
    const p = await makeProject();
    const previous = process.env.TELLTALE_SECRET;
    setEnv("TELLTALE_SECRET", "a-different-secret-a-different-secret-0123");
    const foreign = encryptApiKey(p.apiKey);
    setEnv("TELLTALE_SECRET", previous);
    await prisma.apiKey.updateMany({ where: { projectId: p.id }, data: { encrypted: foreign } });
    const details = await getProjectDetails(await resolveProjectAccess(p.ownerId, p.id), "http://localhost:3000");
    expect(details.apiKey).toBeNull();
    expect(details.dsn).toMatch(/^http:\/\/[A-Za-z0-9]{32}@localhost:3000\//); // the public key is a key of its own
    expect(details.name).toBe(p.name);
    expect((await sendEvent(p.apiKey, { level: "info", message: "still ingests", projectId: p.id })).status).toBe(201);
  });
});
