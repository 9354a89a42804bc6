import { z } from "zod";
import { limitParamSchema } from "@/lib/events/filters";
import { MAX_RELEASE_CHARS } from "@/lib/events/schema";
import { MAX_ID_CHARS } from "@/lib/http/input";
import { MAX_ACTIVITY_LIMIT, MAX_COMMENT_CHARS } from "@/lib/issues/activities";
import { ISSUE_STATUSES } from "@/lib/issues/filters";
import type { IssueChange, StatusChange } from "@/lib/issues/workflow";

/** Longest "ignore for": a year, in minutes. */
export const MAX_IGNORE_MINUTES = 525_600;
export const MAX_IGNORE_EVENTS = 1_000_000_000;
/** Issues one bulk change may name (a page of the list at most). */
export const MAX_BULK_ISSUES = 100;

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const wholeNumber = (max: number) => z.int({ error: `Use a whole number from 1 to ${max}.` }).min(1, `Use a whole number from 1 to ${max}.`).max(max, `Use a whole number from 1 to ${max}.`);

/** The fields of a change, shared by one issue's PATCH, the bulk PATCH and the dashboard's forms. */
const changeFields = {
  status: z.enum(ISSUE_STATUSES, { error: `Use one of ${ISSUE_STATUSES.join(", ")}.` }).optional(),
  resolvedIn: z
    .string({ error: 'Use "next_release" or a release\'s version.' })
    .min(1, 'Use "next_release" or a release\'s version.')
    .max(MAX_RELEASE_CHARS, `A release has at most ${MAX_RELEASE_CHARS} characters.`)
    .optional(),
  ignoreMinutes: wholeNumber(MAX_IGNORE_MINUTES).optional(),
  ignoreEvents: wholeNumber(MAX_IGNORE_EVENTS).optional(),
  assigneeId: z
    .string({ error: "A member's user id, or null to unassign." })
    .regex(new RegExp(`^[A-Za-z0-9_-]{1,${MAX_ID_CHARS}}$`), "A member's user id, or null to unassign.")
    .nullable()
    .optional(),
};

type ChangeFields = z.output<z.ZodObject<typeof changeFields>>;

function checkChange(f: ChangeFields, ctx: z.core.$RefinementCtx<ChangeFields>) {
  if (f.status === undefined && f.assigneeId === undefined) ctx.addIssue({ code: "custom", path: ["status"], message: "Send a status, an assigneeId, or both." });
  if (f.resolvedIn !== undefined && f.status !== "resolved") ctx.addIssue({ code: "custom", path: ["resolvedIn"], message: 'resolvedIn goes with status "resolved".' });
  for (const name of ["ignoreMinutes", "ignoreEvents"] as const) {
    if (f[name] !== undefined && f.status !== "ignored") ctx.addIssue({ code: "custom", path: [name], message: `${name} goes with status "ignored".` });
  }
}

function toChange(f: ChangeFields): IssueChange {
  let status: StatusChange | undefined;
  if (f.status === "resolved") status = { status: "resolved", ...(f.resolvedIn !== undefined && { resolvedIn: f.resolvedIn }) };
  else if (f.status === "ignored") status = { status: "ignored", ignoreMinutes: f.ignoreMinutes, ignoreEvents: f.ignoreEvents };
  else if (f.status === "open") status = { status: "open" };
  return { ...(status && { status }), ...(f.assigneeId !== undefined && { assigneeId: f.assigneeId }) };
}

/**
 * PATCH /api/projects/:id/issues/:issueId: `{status?, resolvedIn?,
 * ignoreMinutes?, ignoreEvents?, assigneeId?}` (docs/api.md).
 */
export const issueChangeBodySchema = z.strictObject(changeFields).superRefine(checkChange).transform(toChange);

/** PATCH /api/projects/:id/issues: the same change for `issueIds` of the project. */
export const bulkIssueChangeBodySchema = z
  .strictObject({
    issueIds: z
      .array(z.string().regex(UUID, "Not an issue id.").transform((id) => id.toLowerCase()), { error: "A list of issue ids." })
      .min(1, "Name at least one issue.")
      .max(MAX_BULK_ISSUES, `At most ${MAX_BULK_ISSUES} issues at once.`),
    ...changeFields,
  })
  .superRefine(checkChange)
  .transform((f) => ({ issueIds: f.issueIds, change: toChange(f) }));

/** POST /api/projects/:id/issues/:issueId/comments: `{text}`. */
export const commentBodySchema = z.strictObject({
  text: z
    .string({ error: "A comment is text." })
    .trim()
    .min(1, "Write a comment first.")
    .max(MAX_COMMENT_CHARS, `A comment has at most ${MAX_COMMENT_CHARS} characters.`)
    .refine((t) => !t.includes("\u0000"), "A comment cannot hold a NUL character."),
});

/** GET /api/projects/:id/issues/:issueId/activity: `?cursor=&limit=`. */
export const activityQuerySchema = z.object({
  cursor: z.string().regex(/^[A-Za-z0-9_-]{1,300}$/, "Not a valid cursor: pass nextCursor from a previous answer unchanged.").optional(),
  limit: limitParamSchema(MAX_ACTIVITY_LIMIT).optional(),
});

/** A change as the dashboard's forms send it: strings, empty for "not given" (an empty assigneeId, when the field is sent, unassigns). */
export const workflowFormFields = {
  status: z.string().optional(),
  resolvedIn: z.string().optional(),
  ignoreMinutes: z.string().optional(),
  ignoreEvents: z.string().optional(),
  assigneeId: z.string().optional(),
};

/** A form's fields -> the API's body, to be checked by the same schema. */
export function workflowFormToBody(form: { [K in keyof typeof workflowFormFields]?: string }): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  if (form.status) body.status = form.status;
  if (form.resolvedIn) body.resolvedIn = form.resolvedIn;
  if (form.ignoreMinutes) body.ignoreMinutes = Number(form.ignoreMinutes);
  if (form.ignoreEvents) body.ignoreEvents = Number(form.ignoreEvents);
  if (form.assigneeId !== undefined) body.assigneeId = form.assigneeId === "" ? null : form.assigneeId;
  return body;
}
