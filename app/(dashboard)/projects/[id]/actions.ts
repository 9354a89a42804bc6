"use server";

import { revalidatePath } from "next/cache";
import { z } from "zod";
import { projectAction, type ActionState } from "@/lib/edge/action";
import { ISSUE_STATUSES, issueParamsSchema } from "@/lib/issues/filters";
import { changeIssue } from "@/lib/issues/workflow";

const MESSAGES = { open: "Issue reopened.", resolved: "Issue resolved.", ignored: "Issue ignored." } as const;

/** Resolve, ignore or reopen an issue: any member may (as with PATCH /api/projects/:id/issues/:issueId). */
export const setIssueStatusAction = projectAction(
  { role: "member", input: z.object({ issueId: issueParamsSchema.shape.issueId, status: z.enum(ISSUE_STATUSES) }) },
  async ({ access, input }): Promise<ActionState> => {
    const { status } = await changeIssue(access, input.issueId, { status: { status: input.status } });
    // Every page of the project shows statuses (issues list, issue page).
    revalidatePath(`/projects/${access.projectId}`, "layout");
    return { ok: true, message: MESSAGES[status] };
  },
);
