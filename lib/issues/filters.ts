import { z } from "zod";
import { levelsParamSchema, limitParamSchema, searchTextSchema, tagFiltersParamSchema, timeParamSchema, uuidParamSchema, type TagFilter } from "@/lib/events/filters";
import { MAX_ENVIRONMENT_CHARS, MAX_RELEASE_CHARS } from "@/lib/events/schema";
import type { EventLevel } from "@/lib/events/schema";
import { IssueStatus } from "@/lib/db/generated/enums";
import { idSchema } from "@/lib/http/input";

/** An issue's status: the schema's `IssueStatus` enum. */
export type { IssueStatus };
export const ISSUE_STATUSES = Object.values(IssueStatus) as [IssueStatus, ...IssueStatus[]];

export const ISSUE_SORTS = ["last_seen", "first_seen", "events", "total"] as const;
export type IssueSort = (typeof ISSUE_SORTS)[number];

export const DEFAULT_ISSUES_LIMIT = 25;
export const MAX_ISSUES_LIMIT = 100;
/** The list's default window: the last 24 hours. */
export const DEFAULT_ISSUE_WINDOW_MS = 86_400_000;

export type IssueFilters = {
  /** Default: open only. */
  status?: IssueStatus[];
  level?: EventLevel[];
  /** Case-insensitive substring of the title or the latest message. */
  q?: string;
  /** Issues with events of this environment, release or tags (all of them) in the window's hours (lib/issues/tag-breakdown.ts). */
  environment?: string;
  release?: string;
  tag?: TagFilter[];
  /** The window: issues with events in [since, until); default the last 24 hours. */
  since?: Date;
  until?: Date;
  /** last_seen (default), first_seen, events (in the window), total (ever). */
  sort?: IssueSort;
  cursor?: string;
  limit?: number;
};

const statusesParamSchema = z.string().transform((value, ctx) => {
  const statuses = [...new Set(value.split(",").map((s) => s.trim().toLowerCase()).filter(Boolean))];
  if (statuses.length === 1 && statuses[0] === "all") return [...ISSUE_STATUSES];
  if (statuses.length === 0 || statuses.some((s) => !(ISSUE_STATUSES as readonly string[]).includes(s))) {
    ctx.addIssue({ code: "custom", message: "Use open, resolved, ignored (several separated by commas) or all." });
    return z.NEVER;
  }
  return statuses as IssueStatus[];
}).describe("open, resolved, ignored (several separated by commas) or all; default open");

export const issuesQuerySchema = z
  .object({
    status: statusesParamSchema.optional(),
    level: levelsParamSchema.optional(),
    q: searchTextSchema.optional(),
    environment: z.string().trim().min(1, "Give an environment name.").max(MAX_ENVIRONMENT_CHARS, `At most ${MAX_ENVIRONMENT_CHARS} characters.`).optional(),
    release: z.string().trim().min(1, "Give a release.").max(MAX_RELEASE_CHARS, `At most ${MAX_RELEASE_CHARS} characters.`).optional(),
    tag: tagFiltersParamSchema.optional(),
    since: timeParamSchema.optional(),
    until: timeParamSchema.optional(),
    sort: z.enum(ISSUE_SORTS, { error: `Use one of ${ISSUE_SORTS.join(", ")}.` }).optional(),
    cursor: z
      .string()
      .regex(/^[A-Za-z0-9_-]{1,300}$/, "Not a valid cursor: pass nextCursor from a previous answer unchanged.")
      .describe("nextCursor of the previous page, unchanged")
      .optional(),
    limit: limitParamSchema(MAX_ISSUES_LIMIT).optional(),
  })
  .refine((f) => !f.since || !f.until || f.since < f.until, { path: ["until"], message: "until must be after since." });

/** The window of one issue's page: default the last 24 hours. */
export const issueWindowQuerySchema = z
  .object({ since: timeParamSchema.optional(), until: timeParamSchema.optional() })
  .refine((f) => !f.since || !f.until || f.since < f.until, { path: ["until"], message: "until must be after since." });

export const issueParamsSchema = z.object({ id: idSchema, issueId: uuidParamSchema("Not an issue id.") });
