/**
 * The dashboard's server actions, called as functions the way a form calls
 * them: (previous state, FormData). The session comes from a stubbed cookie
 * store, as Next.js would hand it over.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { stubEnv, unstubEnvs } from "@/tests/helpers/env";
import { prisma } from "@/lib/db/client";
import { createTeam, createUserWithSession } from "@/tests/helpers/session";
import { sendEvent } from "@/tests/helpers/ingest";

const session = vi.hoisted(() => ({ token: null as string | null }));

vi.mock("next/headers", () => ({
  cookies: async () => ({ get: (name: string) => (name === "authjs.session-token" && session.token ? { name, value: session.token } : undefined) }),
  headers: async () => new Headers({ host: "localhost:3000" }),
}));
vi.mock("next/cache", () => ({ revalidatePath: vi.fn() }));

const { sendTestAlertAction } = await import("@/app/(dashboard)/projects/[id]/settings/alert-actions");
const { createProjectAction, revealKeyAction, rotateKeyAction, acceptInvitationByIdAction } = await import("@/app/(dashboard)/projects/actions");
const { changeRoleAction, deleteProjectAction, inviteAction, removeMemberAction, revokeInvitationAction, updateAllowedOriginsAction } = await import(
  "@/app/(dashboard)/projects/[id]/settings/actions"
);

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

  it("rotateKeyAction: owners only; says the key was rotated and shows the new one; the old key stops working at once", async () => {
    const { owner, member, outsider, project } = await createTeam("rotate");
    signInAs(member);
    expect(await rotateKeyAction(null, form({ projectId: project.id }))).toEqual({ ok: false, error: "Only an owner of this project can do this." });
    signInAs(outsider);
    expect(await rotateKeyAction(null, form({ projectId: project.id, kind: "public" }))).toEqual({ ok: false, error: "No project with this id, or you are not a member of it." });
    expect((await sendEvent(project.apiKey, { level: "info", message: "before", projectId: project.id })).status).toBe(201);
    signInAs(owner);
    const rotated = await rotateKeyAction(null, form({ projectId: project.id }));
    expect(rotated).toEqual({
      ok: true,
      message: "API key rotated: the old key no longer works. Update your applications with the new one:",
      shown: { label: `New API key for ${project.name}`, value: expect.stringMatching(/^tlt_/) },
    });
    expect((await sendEvent(project.apiKey, { level: "info", message: "after", projectId: project.id })).status).toBe(401);
    const newKey = (rotated as { shown: { value: string } }).shown.value;
    expect((await sendEvent(newKey, { level: "info", message: "new key", projectId: project.id })).status).toBe(201);
  });

  it("rotateKeyAction kind=public: a new DSN (shown), the API key untouched", async () => {
    const { owner, project } = await createTeam("rotate-dsn");
    signInAs(owner);
    const rotated = await rotateKeyAction(null, form({ projectId: project.id, kind: "public" }));
    const { number } = await prisma.project.findUniqueOrThrow({ where: { id: project.id }, select: { number: true } });
    expect(rotated).toEqual({
      ok: true,
      message: "DSN key rotated: the old DSN no longer works. Update your SDKs with the new one:",
      shown: { label: `New DSN for ${project.name}`, value: expect.stringMatching(new RegExp(`^http://[A-Za-z0-9]{32}@localhost:3000/${number}$`)) },
    });
    expect((await sendEvent(project.apiKey, { level: "info", message: "still", projectId: project.id })).status).toBe(201);
    expect(await rotateKeyAction(null, form({ projectId: project.id, kind: "both" }))).toMatchObject({ ok: false });
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
    expect(await removeMemberAction(null, form({ projectId: project.id, userId: owner.user.id }))).toEqual({
      ok: false,
      error: "You are the project's only owner. Make another member an owner first (Team & settings, Make owner), or delete the project.",
    });
  });

  it("changeRoleAction: an owner makes a member an owner and back; never zero owners; members and outsiders can't", async () => {
    const { owner, member, outsider, project } = await createTeam("roles");
    const role = async (userId: string) => (await prisma.membership.findUniqueOrThrow({ where: { projectId_userId: { projectId: project.id, userId } } })).role;
    signInAs(member);
    expect(await changeRoleAction(null, form({ projectId: project.id, userId: member.user.id, role: "owner" }))).toEqual({ ok: false, error: "Only an owner of this project can do this." });
    signInAs(outsider);
    expect(await changeRoleAction(null, form({ projectId: project.id, userId: outsider.user.id, role: "owner" }))).toEqual({ ok: false, error: "No project with this id, or you are not a member of it." });
    expect(await role(member.user.id)).toBe("member");

    signInAs(owner);
    expect(await changeRoleAction(null, form({ projectId: project.id, userId: owner.user.id, role: "member" }))).toEqual({
      ok: false,
      error: "This is the project's only owner; make another member an owner first.",
    });
    expect(await changeRoleAction(null, form({ projectId: project.id, userId: member.user.id, role: "owner" }))).toEqual({ ok: true, message: `${member.user.email} is now an owner.` });
    expect(await role(member.user.id)).toBe("owner");
    // With two owners, the first may step down, and the new owner can make them an owner again.
    expect(await changeRoleAction(null, form({ projectId: project.id, userId: owner.user.id, role: "member" }))).toMatchObject({ ok: true });
    signInAs(member);
    expect(await changeRoleAction(null, form({ projectId: project.id, userId: owner.user.id, role: "owner" }))).toMatchObject({ ok: true });
    expect(await changeRoleAction(null, form({ projectId: project.id, userId: member.user.id, role: "member" }))).toEqual({ ok: true, message: `${member.user.email} is now a member.` });
    expect([await role(owner.user.id), await role(member.user.id)]).toEqual(["owner", "member"]);
    signInAs(owner);
    expect(await changeRoleAction(null, form({ projectId: project.id, userId: outsider.user.id, role: "owner" }))).toEqual({ ok: false, error: "This user is not a member of the project." });
    expect(await changeRoleAction(null, form({ projectId: project.id, userId: member.user.id, role: "admin" }))).toMatchObject({ ok: false, error: "role is one of: owner, member." });
  });

  it("updateAllowedOriginsAction: one origin per line, normalised; bad entries refused; owners only", async () => {
    const { owner, member, project } = await createTeam("origins-action");
    const stored = async () => (await prisma.project.findUniqueOrThrow({ where: { id: project.id } })).allowedOrigins;
    signInAs(member);
    expect(await updateAllowedOriginsAction(null, form({ projectId: project.id, allowedOrigins: "https://mine.example" }))).toEqual({ ok: false, error: "Only an owner of this project can do this." });
    signInAs(owner);
    expect(await updateAllowedOriginsAction(null, form({ projectId: project.id, allowedOrigins: "https://App.example/\n\n http://localhost:5173 ,https://app.example" }))).toEqual({
      ok: true,
      message: "Saved: pages on https://app.example, http://localhost:5173 may send events.",
    });
    expect(await stored()).toEqual(["https://app.example", "http://localhost:5173"]);
    expect(await updateAllowedOriginsAction(null, form({ projectId: project.id, allowedOrigins: "https://app.example/checkout" }))).toMatchObject({
      ok: false,
      error: expect.stringMatching(/“https:\/\/app.example\/checkout” is not an origin/),
    });
    expect(await stored()).toEqual(["https://app.example", "http://localhost:5173"]);
    expect(await updateAllowedOriginsAction(null, form({ projectId: project.id, allowedOrigins: "  " }))).toEqual({ ok: true, message: "Saved: no web page may send events now (servers and apps still can)." });
    expect(await updateAllowedOriginsAction(null, form({ projectId: project.id, allowedOrigins: "*" }))).toEqual({ ok: true, message: "Saved: pages on any origin may send events." });
    expect(await stored()).toEqual(["*"]);
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

describe("alert settings actions", () => {
  afterEach(() => unstubEnvs());

  it("sendTestAlertAction in development without EMAIL_SERVER: the mail goes to the server log, logged as such, not failed", async () => {
    stubEnv("EMAIL_SERVER", "");
    stubEnv("NODE_ENV", "development");
    stubEnv("TELLTALE_LOG", undefined);
    const printed: string[] = [];
    vi.spyOn(console, "info").mockImplementation((line: unknown) => void printed.push(String(line)));
    const { owner, project } = await createTeam("test-mail");
    const rule = await prisma.alertRule.findFirstOrThrow({ where: { projectId: project.id } }); // the default rule mails the owner
    signInAs(owner);
    expect(await sendTestAlertAction(null, form({ projectId: project.id, ruleId: rule.id }))).toEqual({
      ok: true,
      message: "Test mail printed to the server log (development: EMAIL_SERVER is not set).",
    });
    expect(printed.find((line) => line.includes("DEV MAIL"))).toContain(owner.user.email);
    expect(await prisma.alertDelivery.findFirstOrThrow({ where: { projectId: project.id, kind: "test" } })).toMatchObject({ status: "logged" });
  });
});
