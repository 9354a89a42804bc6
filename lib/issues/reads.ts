/**
 * Reads of the issues table for other modules: the summaries (lib/ai), the
 * alert notifications and delivery log (lib/alerts). lib/issues owns the
 * table; these give other modules the rows they need without SQL of their own.
 */
import { expressionBuilder, sql } from "kysely";
import { sqlDb, type DB } from "@/lib/db/sql";
import type { EventLevel } from "@/lib/events/schema";
import type { IssueStatus } from "@/lib/issues/filters";
import { epochMs, textArray, uuidArray } from "@/lib/db/sql-values";
import { windowSumsQuery } from "@/lib/issues/window-counts";

/** An issue with events in the window: its count at one level, and what ranking reads of it. */
export type WindowIssueRow = {
  id: string;
  project_id: string;
  /** The level of this row's events, and their number in the window. */
  level: EventLevel;
  n: string;
  issue_level: EventLevel;
  status: IssueStatus;
  /** Unix ms: pg parses a number much faster than a timestamp's text (docs/performance.md#figures-behind-the-code). */
  first_seen: number;
  last_seen: number;
  regressed_at: number | null;
  resolved_at: number | null;
};

/** Issues with events in [since, now and after]: their counts per level, and the columns ranking reads. */
export async function windowIssueRows(projectIds: string[], since: Date): Promise<WindowIssueRow[]> {
  if (projectIds.length === 0) return [];
  return sqlDb()
    .with("win", () => windowSumsQuery({ projectIds, since, until: null }))
    .selectFrom("win")
    .innerJoin("issues as i", (join) => join.onRef("i.id", "=", "win.issue_id").on("i.project_id", "=", (eb) => eb.fn.any(textArray(projectIds))))
    .select([
      sql<string>`i.id::text`.as("id"),
      "i.project_id",
      "win.level",
      "win.n",
      "i.level as issue_level",
      "i.status",
      epochMs("i.first_seen").as("first_seen"),
      epochMs("i.last_seen").as("last_seen"),
      sql<number | null>`(extract(epoch FROM i.regressed_at) * 1000)::float8`.as("regressed_at"),
      sql<number | null>`(extract(epoch FROM i.resolved_at) * 1000)::float8`.as("resolved_at"),
    ])
    .execute();
}

/** Titles and the first `sampleChars` of the sample messages of the given issues of these projects. */
export async function issueTexts(ids: string[], projectIds: string[], sampleChars: number): Promise<{ id: string; title: string; sample: string }[]> {
  return sqlDb()
    .selectFrom("issues")
    .select([sql<string>`id::text`.as("id"), "title", sql<string>`left(sample_message, ${sampleChars}::int)`.as("sample")])
    .where("id", "=", (eb) => eb.fn.any(uuidArray(ids)))
    .where("project_id", "=", (eb) => eb.fn.any(textArray(projectIds)))
    .execute();
}

/** What a notification says of an issue. */
export type NotifiedIssueRow = { id: string; project_id: string; title: string; level: EventLevel; count: string; first_seen: Date; last_seen: Date };

/** The given issues of these projects (others are left out), as notifications describe them. */
export async function issuesForNotifications(ids: string[], projectIds: string[]): Promise<NotifiedIssueRow[]> {
  if (ids.length === 0 || projectIds.length === 0) return [];
  return sqlDb()
    .selectFrom("issues")
    .select(["id", "project_id", "title", "level", "count", "first_seen", "last_seen"])
    .where("id", "in", ids)
    .where("project_id", "in", projectIds)
    .execute();
}

/** Titles of the given issues of one project (others are left out). */
export async function issueTitles(projectId: string, ids: string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await sqlDb().selectFrom("issues").select(["id", "title"]).where("id", "in", ids).where("project_id", "=", projectId).execute();
  return new Map(rows.map((r) => [r.id, r.title]));
}

/**
 * Subquery: per-minute counts (issue_counts) of the issues that are not
 * ignored, up to `now`; the caller joins it on project, start and level
 * (lib/alerts/spikes.ts). A plain join, so the planner pushes those
 * conditions into it.
 */
export function unignoredMinuteCounts(now: Date) {
  return expressionBuilder<DB, never>()
    .selectFrom("issue_counts as c")
    .innerJoin("issues as i", (join) => join.onRef("i.id", "=", "c.issue_id").on("i.status", "<>", "ignored"))
    .select(["c.project_id", "c.issue_id", "c.minute", "c.level", "c.count"])
    .where("c.minute", "<=", now);
}
