import { describe, expect, it } from "vitest";
import { GET as listMembersRoute } from "@/app/api/projects/[id]/members/route";
import { PATCH as changeRoleRoute, DELETE as removeMemberRoute } from "@/app/api/projects/[id]/members/[userId]/route";
import { prisma } from "@/lib/db/client";
import { apiRequest, callRoute, createTeam, createUserWithSession } from "@/tests/helpers/session";

async function team() {
  const base = await createTeam("members");
  const member2 = await createUserWithSession();
  await prisma.membership.create({ data: { projectId: base.project.id, userId: member2.user.id, role: "member" } });
  return { ...base, member2 };
}

function remove(projectId: string, userId: string, cookie: string | null, headers: Record<string, string> = {}) {
  return callRoute(removeMemberRoute, apiRequest(`/api/projects/${projectId}/members/${userId}`, { method: "DELETE", cookie, headers }), { id: projectId, userId });
}

const isMember = async (projectId: string, userId: string) =>
  (await prisma.membership.count({ where: { projectId, userId } })) === 1;

describe("GET /api/projects/:id/members", () => {
  it("members see everyone with role and join time, owners first; outsiders 404, signed out 401", async () => {
    const { owner, member, member2, outsider, project } = await team();
    for (const who of [owner, member]) {
      const { status, body } = await callRoute(listMembersRoute, apiRequest(`/api/projects/${project.id}/members`, { cookie: who.cookie }), { id: project.id });
      expect(status).toBe(200);
      expect(body.members[0]).toEqual({ userId: owner.user.id, email: owner.user.email, name: null, role: "owner", joinedAt: expect.any(String) });
      expect(body.members.map((m: { userId: string }) => m.userId).sort()).toEqual([owner.user.id, member.user.id, member2.user.id].sort());
    }
    const hidden = await callRoute(listMembersRoute, apiRequest(`/api/projects/${project.id}/members`, { cookie: outsider.cookie }), { id: project.id });
    expect([hidden.status, hidden.body.code]).toEqual([404, "not_found"]);
    const signedOut = await callRoute(listMembersRoute, apiRequest(`/api/projects/${project.id}/members`), { id: project.id });
    expect(signedOut.status).toBe(401);
  });
});

describe("DELETE /api/projects/:id/members/:userId", () => {
  it("an owner removes a member, who then loses access", async () => {
    const { owner, member, project } = await team();
    const { status } = await remove(project.id, member.user.id, owner.cookie);
    expect(status).toBe(204);
    expect(await isMember(project.id, member.user.id)).toBe(false);
    const after = await callRoute(listMembersRoute, apiRequest(`/api/projects/${project.id}/members`, { cookie: member.cookie }), { id: project.id });
    expect(after.status).toBe(404);
  });

  it("a member may leave, but not remove others: 403", async () => {
    const { owner, member, member2, project } = await team();
    expect((await remove(project.id, member2.user.id, member.cookie)).status).toBe(403);
    const onOwner = await remove(project.id, owner.user.id, member.cookie);
    expect([onOwner.status, onOwner.body.code]).toEqual([403, "forbidden"]);
    expect(await isMember(project.id, member2.user.id)).toBe(true);
    expect(await isMember(project.id, owner.user.id)).toBe(true);
    expect((await remove(project.id, member.user.id, member.cookie)).status).toBe(204);
    expect(await isMember(project.id, member.user.id)).toBe(false);
  });

  it("outsiders get 404 and signed-out callers 401; nobody is removed", async () => {
    const { member, outsider, project } = await team();
    const hidden = await remove(project.id, member.user.id, outsider.cookie);
    expect([hidden.status, hidden.body.code]).toEqual([404, "not_found"]);
    expect((await remove(project.id, member.user.id, null)).status).toBe(401);
    expect(await isMember(project.id, member.user.id)).toBe(true);
  });

  it("404 for a user who is not a member", async () => {
    const { owner, outsider, project } = await team();
    const { status, body } = await remove(project.id, outsider.user.id, owner.cookie);
    expect([status, body.code]).toEqual([404, "not_found"]);
  });

  it("the last owner can neither leave nor be removed: 409 conflict", async () => {
    const { owner, project } = await team();
    const { status, body } = await remove(project.id, owner.user.id, owner.cookie);
    expect([status, body.code]).toEqual([409, "conflict"]);
    expect(await isMember(project.id, owner.user.id)).toBe(true);
  });

  it("with two owners one may go; then the other is the last", async () => {
    const { owner, project } = await team();
    const second = await createUserWithSession();
    await prisma.membership.create({ data: { projectId: project.id, userId: second.user.id, role: "owner" } });
    expect((await remove(project.id, second.user.id, owner.cookie)).status).toBe(204);
    expect((await remove(project.id, owner.user.id, owner.cookie)).status).toBe(409);
  });

  it("two owners removing each other at once leave exactly one owner", async () => {
    const { owner, project } = await team();
    const second = await createUserWithSession();
    await prisma.membership.create({ data: { projectId: project.id, userId: second.user.id, role: "owner" } });
    const answers = await Promise.all([remove(project.id, second.user.id, owner.cookie), remove(project.id, owner.user.id, second.cookie)]);
    // The first to take the lock wins; the other is no longer a member by then.
    expect(answers.map((a) => a.status).sort()).toEqual([204, 404]);
    expect(await prisma.membership.count({ where: { projectId: project.id, role: "owner" } })).toBe(1);
  });

  it("refuses a cross-site request: 403", async () => {
    const { owner, member, project } = await team();
    const { status } = await remove(project.id, member.user.id, owner.cookie, { origin: "https://evil.example" });
    expect(status).toBe(403);
    expect(await isMember(project.id, member.user.id)).toBe(true);
  });
});

describe("PATCH /api/projects/:id/members/:userId", () => {
  function changeRole(projectId: string, userId: string, cookie: string | null, body: unknown) {
    return callRoute(changeRoleRoute, apiRequest(`/api/projects/${projectId}/members/${userId}`, { method: "PATCH", cookie, body }), { id: projectId, userId });
  }
  const roleOf = async (projectId: string, userId: string) =>
    (await prisma.membership.findUnique({ where: { projectId_userId: { projectId, userId } }, select: { role: true } }))?.role;

  it("an owner promotes a member and demotes an owner; the last owner stays: 409", async () => {
    const { owner, member, project } = await team();
    const promoted = await changeRole(project.id, member.user.id, owner.cookie, { role: "owner" });
    expect(promoted.status).toBe(200);
    expect(promoted.body).toMatchObject({ userId: member.user.id, role: "owner" });
    expect(await roleOf(project.id, member.user.id)).toBe("owner");
    // Two owners: one may step down, then the other is the last.
    expect((await changeRole(project.id, owner.user.id, owner.cookie, { role: "member" })).status).toBe(200);
    const last = await changeRole(project.id, member.user.id, member.cookie, { role: "member" });
    expect([last.status, last.body.code]).toEqual([409, "conflict"]);
    expect(await roleOf(project.id, member.user.id)).toBe("owner");
  });

  it("members 403, outsiders 404, signed out 401, bad roles 400; nothing changes", async () => {
    const { owner, member, member2, outsider, project } = await team();
    expect((await changeRole(project.id, member2.user.id, member.cookie, { role: "owner" })).status).toBe(403);
    expect((await changeRole(project.id, member2.user.id, outsider.cookie, { role: "owner" })).status).toBe(404);
    expect((await changeRole(project.id, member2.user.id, null, { role: "owner" })).status).toBe(401);
    const bad = await changeRole(project.id, member2.user.id, owner.cookie, { role: "admin" });
    expect([bad.status, bad.body.code, bad.body.errors?.[0]?.path]).toEqual([400, "validation_failed", "role"]);
    expect((await changeRole(project.id, outsider.user.id, owner.cookie, { role: "owner" })).status).toBe(404);
    expect(await roleOf(project.id, member2.user.id)).toBe("member");
    expect(await roleOf(project.id, outsider.user.id)).toBeUndefined();
  });
});
