import { stubEnv, unstubEnvs } from "@/tests/helpers/env";
import { createHash, randomUUID } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { GET as listProjectInvitationsRoute, POST as inviteRoute } from "@/app/api/projects/[id]/invitations/route";
import { DELETE as revokeRoute } from "@/app/api/projects/[id]/invitations/[invitationId]/route";
import { GET as myInvitationsRoute } from "@/app/api/invitations/route";
import { POST as acceptRoute } from "@/app/api/invitations/[token]/accept/route";
import { prisma } from "@/lib/db/client";
import { acceptInvitationById, getInvitationPreview } from "@/lib/invitations/service";
import { apiRequest, callRoute, createTeam, createUserWithSession, startSmtpSink, uniqueEmail } from "@/tests/helpers/session";

let smtp: Awaited<ReturnType<typeof startSmtpSink>>;

beforeAll(async () => {
  smtp = await startSmtpSink();
  stubEnv("EMAIL_SERVER", smtp.url);
  stubEnv("EMAIL_FROM", "Telltale Test <telltale@example.test>");
});
afterAll(async () => {
  unstubEnvs();
  await smtp.close();
});

const team = () => createTeam("invites");

function invite(projectId: string, cookie: string | null, body: unknown, headers: Record<string, string> = {}) {
  return callRoute(inviteRoute, apiRequest(`/api/projects/${projectId}/invitations`, { method: "POST", cookie, body, headers }), { id: projectId });
}

function accept(token: string, cookie: string | null, headers: Record<string, string> = {}) {
  return callRoute(acceptRoute, apiRequest(`/api/invitations/${token}/accept`, { method: "POST", cookie, headers }), { token });
}

const tokenOf = (inviteUrl: string) => inviteUrl.split("/").at(-1)!;
const sha256 = (s: string) => createHash("sha256").update(s).digest("hex");

describe("POST /api/projects/:id/invitations", () => {
  it("without AUTH_URL or AUTH_TRUST_HOST, the link uses the request's own Host, never a forged X-Forwarded-Host", async () => {
    stubEnv("AUTH_TRUST_HOST", undefined);
    try {
      const { owner, project } = await team();
      const forged = { "x-forwarded-host": "evil.example", "x-forwarded-proto": "https" };
      const { status, body } = await invite(project.id, owner.cookie, { email: uniqueEmail("forged"), role: "member" }, forged);
      expect(status).toBe(201);
      expect(body.inviteUrl).toMatch(/^http:\/\/localhost:3000\/invitations\//);
      stubEnv("AUTH_TRUST_HOST", "true"); // behind a proxy the operator trusts
      const proxied = await invite(project.id, owner.cookie, { email: uniqueEmail("proxied"), role: "member" }, forged);
      expect(proxied.body.inviteUrl).toMatch(/^https:\/\/evil\.example\/invitations\//);
    } finally {
      stubEnv("AUTH_TRUST_HOST", "true");
    }
  });

  it("owner: 201, a mail with a single-use link valid 7 days; only the token's hash is stored", async () => {
    const { owner, project } = await team();
    const email = uniqueEmail("invitee");
    const before = Date.now();
    const { status, body } = await invite(project.id, owner.cookie, { email: email.toUpperCase(), role: "member" });
    expect(status).toBe(201);
    expect(body).toEqual({
      id: expect.any(String),
      email,
      role: "member",
      createdAt: expect.any(String),
      expiresAt: expect.any(String),
      inviteUrl: expect.stringMatching(/^http:\/\/localhost:3000\/invitations\/[A-Za-z0-9_-]{43}$/),
      emailSent: true,
    });
    const ttl = Date.parse(body.expiresAt) - before;
    expect(ttl).toBeGreaterThan(7 * 86400_000 - 60_000);
    expect(ttl).toBeLessThanOrEqual(7 * 86400_000 + 1000);

    const mail = await smtp.mailTo(email);
    expect(mail.text).toContain(body.inviteUrl);
    expect(mail.text).toContain(project.name);
    expect(mail.raw).toMatch(/Content-Type: text\/plain/i);
    expect(mail.raw).toMatch(/Content-Type: text\/html/i);
    expect(mail.raw).toContain("telltale@example.test");

    const token = tokenOf(body.inviteUrl);
    const row = await prisma.invitation.findUniqueOrThrow({ where: { id: body.id } });
    expect(row.tokenHash).toBe(sha256(token));
    expect(JSON.stringify(row)).not.toContain(token);
  });

  it("defaults the role to member and lists every invalid field", async () => {
    const { owner, project } = await team();
    const ok = await invite(project.id, owner.cookie, { email: uniqueEmail() });
    expect([ok.status, ok.body.role]).toEqual([201, "member"]);
    const bad = await invite(project.id, owner.cookie, { email: "not-an-address", role: "admin", extra: 1 });
    expect(bad.status).toBe(400);
    expect(bad.body.code).toBe("validation_failed");
    expect(bad.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(["email", "extra", "role"]);
  });

  it("member 403, outsider 404, signed out 401, cross-site 403; nothing is created or sent", async () => {
    const { owner, member, outsider, project } = await team();
    const email = uniqueEmail();
    const answers = [];
    for (const [cookie, headers] of [[member.cookie, {}], [outsider.cookie, {}], [null, {}], [owner.cookie, { origin: "https://evil.example" }]] as const) {
      const { status, body } = await invite(project.id, cookie, { email, role: "owner" }, headers);
      answers.push([status, body.code]);
    }
    expect(answers).toEqual([[403, "forbidden"], [404, "not_found"], [401, "unauthenticated"], [403, "forbidden"]]);
    expect(await prisma.invitation.count({ where: { projectId: project.id } })).toBe(0);
    expect(smtp.mails.some((m) => m.to.includes(email))).toBe(false);
  });

  it("409 for an address that is already a member", async () => {
    const { owner, member, project } = await team();
    const { status, body } = await invite(project.id, owner.cookie, { email: member.user.email, role: "member" });
    expect([status, body.code]).toEqual([409, "conflict"]);
  });

  it("a new invitation to the same address replaces the pending one", async () => {
    const { owner, project } = await team();
    const invitee = await createUserWithSession();
    const first = await invite(project.id, owner.cookie, { email: invitee.user.email, role: "member" });
    const second = await invite(project.id, owner.cookie, { email: invitee.user.email, role: "owner" });
    expect((await accept(tokenOf(first.body.inviteUrl), invitee.cookie)).status).toBe(404);
    const ok = await accept(tokenOf(second.body.inviteUrl), invitee.cookie);
    expect(ok.body).toEqual({ projectId: project.id, role: "owner" });
  });

  it("without EMAIL_SERVER the invitation stands, emailSent is false, and the link is not logged", async () => {
    const { owner, project } = await team();
    stubEnv("EMAIL_SERVER", "");
    // The logger is silenced for the test run; a leak must be visible here.
    stubEnv("TELLTALE_LOG", "");
    const logged: string[] = [];
    const spies = (["log", "info", "warn", "error"] as const).map((m) =>
      vi.spyOn(console, m).mockImplementation((...args: unknown[]) => void logged.push(args.join(" "))),
    );
    try {
      const { status, body } = await invite(project.id, owner.cookie, { email: uniqueEmail(), role: "member" });
      expect([status, body.emailSent]).toEqual([201, false]);
      expect(logged.join("\n")).not.toContain(tokenOf(body.inviteUrl));
    } finally {
      spies.forEach((s) => s.mockRestore());
      stubEnv("EMAIL_SERVER", smtp.url);
      stubEnv("TELLTALE_LOG", "silent");
    }
  });
});

describe("GET and DELETE project invitations", () => {
  it("owners list pending invitations only; members 403, outsiders 404, signed out 401", async () => {
    const { owner, member, outsider, project } = await team();
    const pending = await invite(project.id, owner.cookie, { email: uniqueEmail(), role: "member" });
    const revoked = await invite(project.id, owner.cookie, { email: uniqueEmail(), role: "member" });
    const expired = await invite(project.id, owner.cookie, { email: uniqueEmail(), role: "member" });
    await prisma.invitation.update({ where: { id: revoked.body.id }, data: { revokedAt: new Date() } });
    await prisma.invitation.update({ where: { id: expired.body.id }, data: { expiresAt: new Date(Date.now() - 1000) } });

    const list = (cookie: string | null) =>
      callRoute(listProjectInvitationsRoute, apiRequest(`/api/projects/${project.id}/invitations`, { cookie }), { id: project.id });
    const asOwner = await list(owner.cookie);
    expect(asOwner.status).toBe(200);
    expect(asOwner.body.invitations).toEqual([
      {
        id: pending.body.id,
        email: pending.body.email,
        role: "member",
        createdAt: pending.body.createdAt,
        expiresAt: pending.body.expiresAt,
        invitedBy: { email: owner.user.email, name: null },
      },
    ]);
    expect(JSON.stringify(asOwner.body)).not.toContain(tokenOf(pending.body.inviteUrl));
    expect([(await list(member.cookie)).status, (await list(outsider.cookie)).status, (await list(null)).status]).toEqual([403, 404, 401]);
  });

  it("owners revoke (204, twice is fine); the link then fails; members 403, outsiders 404, other projects' ids 404", async () => {
    const { owner, member, outsider, project } = await team();
    const invitee = await createUserWithSession();
    const created = await invite(project.id, owner.cookie, { email: invitee.user.email, role: "member" });
    const revoke = (cookie: string | null, projectId = project.id) =>
      callRoute(revokeRoute, apiRequest(`/api/projects/${projectId}/invitations/${created.body.id}`, { method: "DELETE", cookie }), {
        id: projectId,
        invitationId: created.body.id,
      });
    expect([(await revoke(member.cookie)).status, (await revoke(outsider.cookie)).status, (await revoke(null)).status]).toEqual([403, 404, 401]);
    const other = await team();
    expect((await revoke(other.owner.cookie, other.project.id)).status).toBe(404);

    expect((await revoke(owner.cookie)).status).toBe(204);
    expect((await revoke(owner.cookie)).status).toBe(204);
    const { status, body } = await accept(tokenOf(created.body.inviteUrl), invitee.cookie);
    expect([status, body.code]).toEqual([404, "not_found"]);
    expect(body.detail).toMatch(/revoked/);
    expect(await prisma.membership.count({ where: { projectId: project.id, userId: invitee.user.id } })).toBe(0);
  });

  it("an accepted invitation can't be revoked: 409", async () => {
    const { owner, project } = await team();
    const invitee = await createUserWithSession();
    const created = await invite(project.id, owner.cookie, { email: invitee.user.email, role: "member" });
    await accept(tokenOf(created.body.inviteUrl), invitee.cookie);
    const { status } = await callRoute(
      revokeRoute,
      apiRequest(`/api/projects/${project.id}/invitations/${created.body.id}`, { method: "DELETE", cookie: owner.cookie }),
      { id: project.id, invitationId: created.body.id },
    );
    expect(status).toBe(409);
  });
});

describe("GET /api/invitations", () => {
  it("lists the caller's pending invitations by their session's address, nobody else's", async () => {
    const { owner, project } = await team();
    const invitee = await createUserWithSession();
    const someoneElse = await createUserWithSession();
    const created = await invite(project.id, owner.cookie, { email: invitee.user.email, role: "owner" });
    await invite(project.id, owner.cookie, { email: someoneElse.user.email, role: "member" });

    const mine = await callRoute(myInvitationsRoute, apiRequest("/api/invitations", { cookie: invitee.cookie }));
    expect(mine.status).toBe(200);
    expect(mine.body.invitations).toEqual([
      {
        id: created.body.id,
        projectId: project.id,
        projectName: project.name,
        role: "owner",
        createdAt: created.body.createdAt,
        expiresAt: created.body.expiresAt,
        invitedBy: { email: owner.user.email, name: null },
      },
    ]);
    // Accepted ones are no longer pending.
    await accept(tokenOf(created.body.inviteUrl), invitee.cookie);
    expect((await callRoute(myInvitationsRoute, apiRequest("/api/invitations", { cookie: invitee.cookie }))).body.invitations).toEqual([]);
    expect((await callRoute(myInvitationsRoute, apiRequest("/api/invitations"))).status).toBe(401);
  });
});

describe("POST /api/invitations/:token/accept", () => {
  it("the invited address joins with the invited role; the link then refuses a second use", async () => {
    const { owner, project } = await team();
    const invitee = await createUserWithSession();
    const created = await invite(project.id, owner.cookie, { email: invitee.user.email, role: "member" });
    const token = tokenOf(created.body.inviteUrl);
    const first = await accept(token, invitee.cookie);
    expect([first.status, first.body]).toEqual([200, { projectId: project.id, role: "member" }]);
    const membership = await prisma.membership.findUniqueOrThrow({ where: { projectId_userId: { projectId: project.id, userId: invitee.user.id } } });
    expect(membership.role).toBe("member");
    const again = await accept(token, invitee.cookie);
    expect([again.status, again.body.code]).toEqual([404, "not_found"]);
    expect(again.body.detail).toMatch(/already been used/);
  });

  it("403 for a session with another address; the invitation stays usable by the right one", async () => {
    const { owner, outsider, project } = await team();
    const invitee = await createUserWithSession();
    const created = await invite(project.id, owner.cookie, { email: invitee.user.email, role: "member" });
    const token = tokenOf(created.body.inviteUrl);
    const wrong = await accept(token, outsider.cookie);
    expect([wrong.status, wrong.body.code]).toEqual([403, "forbidden"]);
    expect(wrong.body.detail).not.toContain(invitee.user.email);
    expect(await prisma.membership.count({ where: { projectId: project.id, userId: outsider.user.id } })).toBe(0);
    expect((await accept(token, invitee.cookie)).status).toBe(200);
  });

  it("404 for expired, unknown and malformed tokens; 401 signed out; 403 cross-site", async () => {
    const { owner, project } = await team();
    const invitee = await createUserWithSession();
    const created = await invite(project.id, owner.cookie, { email: invitee.user.email, role: "member" });
    const token = tokenOf(created.body.inviteUrl);
    expect((await accept(token, null)).status).toBe(401);
    expect((await accept(token, invitee.cookie, { origin: "https://evil.example" })).status).toBe(403);

    await prisma.invitation.update({ where: { id: created.body.id }, data: { expiresAt: new Date(Date.now() - 1) } });
    const expired = await accept(token, invitee.cookie);
    expect([expired.status, expired.body.code]).toEqual([404, "not_found"]);
    expect(expired.body.detail).toMatch(/expired/);
    for (const bad of ["A".repeat(43), "short", "x".repeat(300)]) {
      expect((await accept(bad, invitee.cookie)).status).toBe(404);
    }
    expect(await prisma.membership.count({ where: { projectId: project.id, userId: invitee.user.id } })).toBe(0);
  });

  it("two concurrent uses of one link: exactly one succeeds", async () => {
    const { owner, project } = await team();
    const invitee = await createUserWithSession();
    const created = await invite(project.id, owner.cookie, { email: invitee.user.email, role: "member" });
    const token = tokenOf(created.body.inviteUrl);
    const answers = await Promise.all([accept(token, invitee.cookie), accept(token, invitee.cookie)]);
    expect(answers.map((a) => a.status).sort()).toEqual([200, 404]);
  });

  it("never demotes: an owner accepting a member invitation stays owner; a member invited as owner is promoted", async () => {
    const { owner, member, project } = await team();
    const asMember = await prisma.invitation.create({
      data: { projectId: project.id, email: member.user.email, role: "owner", tokenHash: randomUUID(), invitedById: owner.user.id, expiresAt: new Date(Date.now() + 60_000) },
    });
    expect(await acceptInvitationById(member.user, asMember.id)).toEqual({ projectId: project.id, role: "owner" });
    const asOwner = await prisma.invitation.create({
      data: { projectId: project.id, email: owner.user.email, role: "member", tokenHash: randomUUID(), invitedById: owner.user.id, expiresAt: new Date(Date.now() + 60_000) },
    });
    expect(await acceptInvitationById(owner.user, asOwner.id)).toEqual({ projectId: project.id, role: "owner" });
  });

  it("the invitation page's preview tells the state and whether it is for the signed-in user", async () => {
    const { owner, outsider, project } = await team();
    const invitee = await createUserWithSession();
    const created = await invite(project.id, owner.cookie, { email: invitee.user.email, role: "member" });
    const token = tokenOf(created.body.inviteUrl);
    expect(await getInvitationPreview(token, null)).toEqual({ projectName: project.name, email: invitee.user.email, role: "member", status: "pending", forThisUser: null });
    expect((await getInvitationPreview(token, outsider.user))?.forThisUser).toBe(false);
    expect((await getInvitationPreview(token, invitee.user))?.forThisUser).toBe(true);
    await accept(token, invitee.cookie);
    expect((await getInvitationPreview(token, invitee.user))?.status).toBe("accepted");
    expect(await getInvitationPreview("B".repeat(43), null)).toBeNull();
  });
});

describe("invitations are not an open mail relay", () => {
  it("each inviter sends at most INVITATIONS_PER_INVITER_PER_HOUR: then 429 with Retry-After, nothing created or sent", async () => {
    stubEnv("INVITATIONS_PER_INVITER_PER_HOUR", "3");
    try {
      const { owner, project } = await team();
      const statuses: number[] = [];
      const addresses = Array.from({ length: 4 }, () => uniqueEmail("quota"));
      for (const email of addresses) statuses.push((await invite(project.id, owner.cookie, { email })).status);
      expect(statuses).toEqual([201, 201, 201, 429]);
      const refused = await invite(project.id, owner.cookie, { email: uniqueEmail("quota") });
      expect(refused.body.code).toBe("rate_limited");
      expect(Number(refused.res.headers.get("retry-after"))).toBeGreaterThan(0);
      expect(await prisma.invitation.count({ where: { email: addresses[3]! } })).toBe(0);
      expect(smtp.mails.some((m) => m.to.includes(addresses[3]!))).toBe(false);
      // Another owner is unaffected.
      const other = await team();
      expect((await invite(other.project.id, other.owner.cookie, { email: uniqueEmail("quota") })).status).toBe(201);
    } finally {
      stubEnv("INVITATIONS_PER_INVITER_PER_HOUR", "20");
    }
  });

  it("each address receives at most INVITATIONS_PER_ADDRESS_PER_DAY, whoever sends them; plus tags count as the address", async () => {
    stubEnv("INVITATIONS_PER_ADDRESS_PER_DAY", "2");
    try {
      const target = uniqueEmail("target");
      const [local, domain] = target.split("@");
      const senders = await Promise.all([team(), team(), team()]);
      const statuses = [];
      statuses.push((await invite(senders[0].project.id, senders[0].owner.cookie, { email: target })).status);
      statuses.push((await invite(senders[1].project.id, senders[1].owner.cookie, { email: `${local}+again@${domain}` })).status);
      statuses.push((await invite(senders[2].project.id, senders[2].owner.cookie, { email: target.toUpperCase() })).status);
      expect(statuses).toEqual([201, 201, 429]);
      expect(await prisma.invitation.count({ where: { projectId: senders[2].project.id } })).toBe(0);
    } finally {
      stubEnv("INVITATIONS_PER_ADDRESS_PER_DAY", "3");
    }
  });

  it("a project name reaches the mail as inert text: no link, no address, no direction override", async () => {
    const { owner } = await team();
    // Names are refused at creation (management-projects tests); one that predates the rule is still made inert.
    const project = await prisma.project.create({ data: { name: "Win \u202Egnp.exe https://evil.example/login mail admin@evil.example www.evil.example" } });
    await prisma.membership.create({ data: { projectId: project.id, userId: owner.user.id, role: "owner" } });
    const email = uniqueEmail("inert");
    const { status, body } = await invite(project.id, owner.cookie, { email });
    expect(status).toBe(201);
    const mail = await smtp.mailTo(email);
    // Text and HTML parts: the invitation's link is the only one.
    const links = new Set(mail.text.match(/https?:\/\/[^\s"<>]+/g) ?? []);
    expect(links).toEqual(new Set([body.inviteUrl]));
    expect(mail.raw).not.toContain("evil.example");
    expect(mail.raw).not.toContain("\u202E");
    expect(mail.raw).not.toMatch(/href="(?!http:\/\/localhost:3000\/invitations\/)/);
    expect(mail.text).toContain("Win gnp");
  });
});
