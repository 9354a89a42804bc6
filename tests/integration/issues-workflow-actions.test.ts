/**
 * The issue workflow's dashboard actions, called the way their forms call
 * them: (previous state, FormData), with the session from a stubbed cookie store.
 */
import { beforeEach, describe, expect, it, vi } from "vitest";
import { prisma } from "@/lib/db/client";
import { sendEvent } from "@/tests/helpers/ingest";
import { createTeam } from "@/tests/helpers/session";

const session = vi.hoisted(() => ({ token: null as string | null }));

vi.mock("next/headers", () => ({
  cookies: async () => ({ get: (name: string) => (name === "authjs.session-token" && session.token ? { name, value: session.token } : undefined) }),
  headers: async () => new Headers({ host: "localhost:3000" }),
}));
vi.mock("next/cache", () => ({ revalidatePath: vi.fn() }));

const { changeIssueAction, bulkChangeIssuesAction, commentIssueAction } = await import("@/app/(dashboard)/projects/[id]/issues/workflow-actions");

function form(fields: Record<string, string>): FormData {
  const data = new FormData();
  for (const [name, value] of Object.entries(fields)) data.set(name, value);
  return data;
}

beforeEach(() => {
  session.token = null;
});

async function teamWithIssues(label: string, messages: string[]) {
  const team = await createTeam(label);
  for (const message of messages) await sendEvent(team.project.apiKey, { projectId: team.project.id, level: "error", message, release: "3.0.0" });
  const issues = await prisma.issue.findMany({ where: { projectId: team.project.id }, orderBy: { title: "asc" }, select: { id: true } });
  return { team, ids: issues.map((i) => i.id) };
}

describe("issue page and list actions", () => {
  it("resolve in the next release, ignore until N events, assign, comment: as a member; errors come back as messages", async () => {
    const { team, ids } = await teamWithIssues("wf-actions", ["Action A", "Action B", "Action C"]);
    const [a, b, c] = ids as [string, string, string];
    session.token = team.member.sessionToken;
    const base = { projectId: team.project.id, issueId: a };

    expect(await changeIssueAction(null, form({ ...base, status: "resolved", resolvedIn: "next_release" }))).toEqual({ ok: true, message: "Issue resolved." });
    expect(await prisma.issue.findUniqueOrThrow({ where: { id: a } })).toMatchObject({ status: "resolved", resolveMode: "next_release", resolvedIn: "3.0.0" });
    expect(await changeIssueAction(null, form({ ...base, status: "ignored", ignoreEvents: "100" }))).toEqual({ ok: true, message: "Issue ignored." });
    expect(await prisma.issue.findUniqueOrThrow({ where: { id: a } })).toMatchObject({ status: "ignored", ignoredUntilCount: 101n });
    expect(await changeIssueAction(null, form({ ...base, assigneeId: team.owner.user.id }))).toMatchObject({ ok: true, message: expect.stringContaining("Assigned to") });
    expect(await changeIssueAction(null, form({ ...base, assigneeId: "" }))).toEqual({ ok: true, message: "Unassigned." });
    expect(await changeIssueAction(null, form({ ...base, assigneeId: team.outsider.user.id }))).toEqual({ ok: false, error: "Not a member of this project: only members can be assigned." });
    expect(await changeIssueAction(null, form({ ...base, status: "ignored", ignoreMinutes: "soon" }))).toMatchObject({ ok: false });

    expect(await commentIssueAction(null, form({ ...base, text: "On it" }))).toEqual({ ok: true, message: "Comment added." });
    expect(await commentIssueAction(null, form({ ...base, text: "  " }))).toEqual({ ok: false, error: "Write a comment first." });
    expect(await prisma.issueActivity.count({ where: { issueId: a } })).toBe(5);

    expect(await bulkChangeIssuesAction(null, form({ projectId: team.project.id, issueIds: `${b},${c}`, status: "resolved" }))).toEqual({ ok: true, message: "2 issues updated." });
    expect(await bulkChangeIssuesAction(null, form({ projectId: team.project.id, issueIds: `${b},${c}`, assigneeId: team.member.user.id }))).toEqual({ ok: true, message: "2 issues updated." });
    const rows = await prisma.issue.findMany({ where: { id: { in: [b, c] } }, select: { status: true, assigneeId: true } });
    expect(rows).toEqual([{ status: "resolved", assigneeId: team.member.user.id }, { status: "resolved", assigneeId: team.member.user.id }]);
  });

  it("an outsider's actions change nothing: the project answers as not found", async () => {
    const { team, ids } = await teamWithIssues("wf-actions-outsider", ["Outsider A"]);
    session.token = team.outsider.sessionToken;
    const denied = await changeIssueAction(null, form({ projectId: team.project.id, issueId: ids[0]!, status: "resolved" }));
    expect(denied).toMatchObject({ ok: false });
    expect(await bulkChangeIssuesAction(null, form({ projectId: team.project.id, issueIds: ids[0]!, status: "resolved" }))).toMatchObject({ ok: false });
    expect(await commentIssueAction(null, form({ projectId: team.project.id, issueId: ids[0]!, text: "hi" }))).toMatchObject({ ok: false });
    expect((await prisma.issue.findUniqueOrThrow({ where: { id: ids[0]! } })).status).toBe("open");
    expect(await prisma.issueActivity.count({ where: { issueId: ids[0]! } })).toBe(0);
  });
});
