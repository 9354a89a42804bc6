import { sqlDb } from "@/lib/db/sql";
import { errors } from "@/lib/http/errors";
import { getProjectIssue, issueWindowSince } from "@/lib/issues/service";
import { issueTagBreakdown, type TagBreakdown } from "@/lib/issues/tag-breakdown";
import { releaseVersionOf } from "@/lib/releases/versions";
import type { ProjectAccess } from "@/lib/auth/access";

/** One issue as its page and `GET /api/projects/:id/issues/:issueId` show it: the list's view, its workflow state and what triage asks first. */
export type IssueDetails = Awaited<ReturnType<typeof getProjectIssue>> & {
  /** The oldest and newest release its events came from (ever), in the order releases were first seen. */
  firstRelease: string | null;
  lastRelease: string | null;
  /** Environments of its events in the window, most events first. */
  environments: string[];
  /** Distinct users (id, else email, else IP address) in the window. */
  usersAffected: number;
  /** True when usersAffected is a lower bound (see TagBreakdown.distinctCountEstimate). */
  usersAffectedEstimate: boolean;
  /** The tag breakdown of the window. */
  tags: TagBreakdown[];
  /** False when a busy edge of the window was estimated (see lib/issues/tag-breakdown.ts, MAX_EDGE_EVENTS). */
  tagsExact: boolean;
};

/** The issue with its counts, releases, environments, users and tags in the window (default the last 24 hours), or 404. */
export async function getIssueDetails(
  access: ProjectAccess,
  issueId: string,
  filters: { since?: Date; until?: Date } = {},
  now = new Date(),
): Promise<IssueDetails> {
  // The window first (a refused one is a validation error before any read),
  // then every read at once: each is scoped to the project and the issue.
  const window = { since: issueWindowSince(filters, now), until: filters.until ?? null };
  const [issue, row, breakdown] = await Promise.all([
    getProjectIssue(access, issueId, filters, now),
    sqlDb()
      .selectFrom("issues as i")
      .select((eb) => [
        releaseVersionOf(eb.ref("i.project_id"), eb.ref("i.first_release_seq")).as("first_release"),
        releaseVersionOf(eb.ref("i.project_id"), eb.ref("i.last_release_seq")).as("last_release"),
      ])
      .where("i.id", "=", issueId)
      .where("i.project_id", "=", access.projectId)
      .executeTakeFirst(),
    issueTagBreakdown(access, issueId, window),
  ]);
  if (!row) throw errors.notFound("No issue with this id in this project.");
  const users = breakdown.tags.find((t) => t.key === "user");
  return {
    ...issue,
    firstRelease: row.first_release ?? null,
    lastRelease: row.last_release ?? null,
    environments: breakdown.tags.find((t) => t.key === "environment")?.values.map((v) => v.value) ?? [],
    usersAffected: users?.distinctCount ?? 0,
    usersAffectedEstimate: users?.distinctCountEstimate ?? false,
    tags: breakdown.tags,
    tagsExact: breakdown.exact,
  };
}

