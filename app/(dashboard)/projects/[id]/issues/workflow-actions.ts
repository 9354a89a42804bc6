"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { projectAction, type ActionState } from "@/lib/edge/action";
import { parseInput } from "@/lib/http/input";
import { addIssueComment } from "@/lib/issues/activities";
import { issueParamsSchema } from "@/lib/issues/filters";
import { changeIssue, changeIssues } from "@/lib/issues/workflow";
import { bulkIssueChangeBodySchema, commentBodySchema, issueChangeBodySchema, workflowFormFields, workflowFormToBody } from "@/lib/issues/workflow-schemas";
import { plural } from "@/lib/text/plural";

// The issue workflow's forms (components/issues/workflow-*.tsx): the same
// changes as PATCH /api/projects/:id/issues[/:issueId], by any member.

const done = (projectId: string, message: string): ActionState => {
  // The list and the issue page both show statuses and assignees.
  revalidatePath(`/projects/${projectId}`, "layout");
  return { ok: true, message };
};

/** Resolve (now, in the next release, in a release), ignore (forever, for a while, N events), reopen, or assign one issue. */
export const changeIssueAction = projectAction(
  { role: "member", input: z.object({ issueId: issueParamsSchema.shape.issueId, ...workflowFormFields }) },
  async ({ access, input }) => {
    const change = parseInput(issueChangeBodySchema, workflowFormToBody(input));
    const issue = await changeIssue(access, input.issueId, change);
    return done(access.projectId, change.status ? `Issue ${issue.status === "open" ? "reopened" : issue.status}.` : issue.assignee ? `Assigned to ${issue.assignee.name ?? issue.assignee.email}.` : "Unassigned.");
  },
);

/** The same change for the issues checked in the list (`issueIds`, separated by commas). */
export const bulkChangeIssuesAction = projectAction(
  { role: "member", input: z.object({ issueIds: z.string().max(4000), ...workflowFormFields }) },
  async ({ access, input }) => {
    const { issueIds, change } = parseInput(bulkIssueChangeBodySchema, { issueIds: input.issueIds.split(",").filter(Boolean), ...workflowFormToBody(input) });
    const { issues } = await changeIssues(access, issueIds, change);
    return done(access.projectId, `${plural(issues.length, "issue")} updated.`);
  },
);

/** A comment on the issue, added to its activity. */
export const commentIssueAction = projectAction(
  { role: "member", input: z.object({ issueId: issueParamsSchema.shape.issueId, text: z.string() }) },
  async ({ access, input }) => {
    const { text } = parseInput(commentBodySchema, { text: input.text });
    await addIssueComment(access, input.issueId, text);
    return done(access.projectId, "Comment added.");
  },
);
