/**
 * The dashboard's server actions, called as functions the way a form calls
 * them: (previous state, FormData). The session comes from a stubbed cookie
 * store, as Next.js would hand it over.
 */
import { beforeEach, describe, expect, it, vi } from "vitest";
import { prisma } from "@/lib/db/client";
import { createTeam, createUserWithSession } from "@/tests/helpers/session";
import { sendEvent } from "@/tests/helpers/ingest";

const session = vi.hoisted(() => ({ token: null as string | null }));

vi.mock("next/headers", () => ({
  cookies: async () => ({ get: (name: string) => (name === "authjs.session-token" && session.token ? { name, value: session.token } : undefined) }),
  headers: async () => new Headers({ host: "localhost:3000" }),
}));
vi.mock("next/cache", () => ({ revalidatePath: vi.fn() }));

const { createProjectAction, revealKeyAction, rotateKeyAction, acceptInvitationByIdAction } = await import("@/app/(dashboard)/projects/actions");
const { deleteProjectAction, inviteAction, removeMemberAction, revokeInvitationAction } = await import("@/app/(dashboard)/projects/[id]/settings/actions");

function form(fields: Record<string, string>): FormData {
  const data = new FormData();
  for (const [name, value] of Object.entries(fields)) data.set(name, value);
  return data;
}

function signInAs(who: { sessionToken: string } | null) {
  session.token = who?.sessionToken ?? null;
}

/** Where a redirect() inside the action sent the browser. */
async function redirectOf(run: Promise<unknown>): Promise<string> {
  try {
    await run;
  } catch (error) {
    const digest = (error as { digest?: string }).digest ?? "";
    if (digest.startsWith("NEXT_REDIRECT")) return digest.split(";")[2]!;
    throw error;
  }
  throw new Error("the action did not redirect");
}

beforeEach(() => signInAs(null));

describe("projects page actions", () => {
  it("createProjectAction: validates the name, creates the project with its key once; signed out goes to sign-in", async () => {
    const owner = await createUserWithSession();
    signInAs(owner);
    expect(await createProjectAction(null, form({ name: "   " }))).toEqual({ ok: false, error: "Give the project a name." });
    const created = await createProjectAction(null, form({ name: " Checkout API " }));
    expect(created).toMatchObject({ ok: true, project: { name: "Checkout API", apiKey: expect.stringMatching(/^tlt_/) } });
    const id = (created as { project: { id: string } }).project.id;
    expect(await prisma.membership.findUnique({ where: { projectId_userId: { projectId: id, userId: owner.user.id } } })).toMatchObject({ role: "owner" });

    signInAs(null);
    expect(await redirectOf(createProjectAction(null, form({ name: "x" })))).toMatch(/^\/signin/);
  });

  it("revealKeyAction (bound to a project id): members see the key, outsiders get the not-found message", async () => {
    const { owner, member, outsider, project } = await createTeam("reveal");
    signInAs(member);
    expect(await revealKeyAction(null, { projectId: project.id })).toEqual({ ok: true, apiKey: project.apiKey });
    signInAs(owner);
    expect(await revealKeyAction(null, { projectId: project.id })).toEqual({ ok: true, apiKey: project.apiKey });
    signInAs(outsider);
    expect(await revealKeyAction(null, { projectId: project.id })).toEqual({ ok: false, error: "No project with this id, or you are not a member of it." });
    expect(await revealKeyAction(null, { projectId: "not an id!" })).toMatchObject({ ok: false });
  });

  it("rotateKeyAction: owners only; the old key stops working at once", async () => {
    const { owner, member, project } = await createTeam("rotate");
    signInAs(member);
    expect(await rotateKeyAction(null, form({ projectId: project.id }))).toEqual({ ok: false, error: "Only an owner of this project can do this." });
    expect((await sendEvent(project.apiKey, { level: "info", message: "before", projectId: project.id })).status).toBe(201);
    signInAs(owner);
    expect(await rotateKeyAction(null, form({ projectId: project.id }))).toMatchObject({ ok: true });
    expect((await sendEvent(project.apiKey, { level: "info", message: "after", projectId: project.id })).status).toBe(401);
  });
});

describe("team settings actions", () => {
  it("inviteAction: owners invite (the answer carries the link); bad addresses and members are refused", async () => {
    const { owner, member, project } = await createTeam("invite");
    signInAs(owner);
    expect(await inviteAction(null, form({ projectId: project.id, email: "not-an-email", role: "member" }))).toEqual({ ok: false, error: "Not a valid email address." });
    const invited = await inviteAction(null, form({ projectId: project.id, email: " New.Person@Example.test ", role: "member" }));
    expect(invited).toMatchObject({ ok: true, email: "new.person@example.test", inviteUrl: expect.stringMatching(/^http:\/\/localhost:3000\/invitations\//), emailSent: false });

    signInAs(member);
    expect(await inviteAction(null, form({ projectId: project.id, email: "x@example.test", role: "owner" }))).toEqual({ ok: false, error: "Only an owner of this project can do this." });
  });

  it("revokeInvitationAction and acceptInvitationByIdAction: a revoked invitation can't be accepted; a pending one opens the project", async () => {
    const { owner, project } = await createTeam("revoke");
    const invitee = await createUserWithSession();
    signInAs(owner);
    await inviteAction(null, form({ projectId: project.id, email: invitee.user.email, role: "member" }));
    const first = await prisma.invitation.findFirstOrThrow({ where: { projectId: project.id, email: invitee.user.email, revokedAt: null } });
    expect(await revokeInvitationAction(null, form({ projectId: project.id, invitationId: first.id }))).toEqual({ ok: true });

    signInAs(invitee);
    expect(await acceptInvitationByIdAction(null, form({ invitationId: first.id }))).toMatchObject({ ok: false, error: expect.stringMatching(/revoked/) });

    signInAs(owner);
    await inviteAction(null, form({ projectId: project.id, email: invitee.user.email, role: "member" }));
    const second = await prisma.invitation.findFirstOrThrow({ where: { projectId: project.id, email: invitee.user.email, revokedAt: null, acceptedAt: null } });
    signInAs(invitee);
    expect(await redirectOf(acceptInvitationByIdAction(null, form({ invitationId: second.id })))).toBe(`/projects/${project.id}`);
    expect(await prisma.membership.findUnique({ where: { projectId_userId: { projectId: project.id, userId: invitee.user.id } } })).toMatchObject({ role: "member" });
  });

  it("removeMemberAction: owners remove others, members may only leave (and are sent to their projects)", async () => {
    const { owner, member, project } = await createTeam("remove");
    signInAs(member);
    expect(await removeMemberAction(null, form({ projectId: project.id, userId: owner.user.id }))).toEqual({
      ok: false,
      error: "Only an owner can remove other members. You can remove yourself (leave the project).",
    });
    expect(await redirectOf(removeMemberAction(null, form({ projectId: project.id, userId: member.user.id })))).toBe("/projects");
    expect(await prisma.membership.count({ where: { projectId: project.id } })).toBe(1);

    signInAs(owner);
    expect(await removeMemberAction(null, form({ projectId: project.id, userId: owner.user.id }))).toMatchObject({ ok: false, error: expect.stringMatching(/only owner/) });
  });

  it("deleteProjectAction: only with the project's exact name typed, by an owner", async () => {
    const { owner, member, project } = await createTeam("delete");
    signInAs(member);
    expect(await deleteProjectAction(null, form({ projectId: project.id, confirmation: project.name }))).toEqual({ ok: false, error: "Only an owner of this project can do this." });

    signInAs(owner);
    for (const confirmation of ["", project.name.toUpperCase(), `${project.name} `]) {
      expect(await deleteProjectAction(null, form({ projectId: project.id, confirmation }))).toEqual({ ok: false, error: "Type the project name exactly to confirm." });
    }
    expect(await deleteProjectAction(null, form({ projectId: project.id }))).toMatchObject({ ok: false });
    expect(await prisma.project.count({ where: { id: project.id } })).toBe(1);

    expect(await redirectOf(deleteProjectAction(null, form({ projectId: project.id, confirmation: project.name })))).toBe("/projects");
    expect(await prisma.project.count({ where: { id: project.id } })).toBe(0);
  });
});
