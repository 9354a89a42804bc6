/**
 * Incidents for the summary's integration tests: events stored as ingestion
 * stores them (issues and counts), at chosen times relative to a reference
 * `now`, then summarized through GET /api/ai/summarize or the dashboard's
 * stream; helpers to find lines and times in the digest.
 */
import { expect } from "vitest";
import { GET } from "@/app/api/ai/summarize/route";
import { createProject } from "@/lib/project-setup/create-project";
import type { EventLevel } from "@/lib/events/schema";
import { seedEvents } from "@/tests/helpers/events";
import { createUserWithSession, uniqueEmail } from "@/tests/helpers/session";

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/**
 * `times.length` events of one kind, each at its time (unix ms), received
 * then, or at `receivedAt` (a late upload: the times are the clients' own).
 */
export type Series = {
  level: EventLevel;
  message: (i: number) => string;
  times: number[];
  context?: (i: number) => Record<string, unknown>;
  release?: (i: number) => string;
  tags?: (i: number) => Record<string, string>;
  receivedAt?: number;
};

/** Stores the series (in chunks, as batches would arrive). */
export async function store(projectId: string, series: Series[]): Promise<void> {
  const seeds = series.flatMap((s) =>
    s.times.map((t, i) => ({
      level: s.level,
      message: s.message(i),
      ...(s.receivedAt === undefined ? { at: new Date(t) } : { at: new Date(s.receivedAt), timestamp: new Date(t) }),
      ...(s.context ? { context: s.context(i) } : {}),
      ...(s.release ? { release: s.release(i) } : {}),
      ...(s.tags ? { tags: s.tags(i) } : {}),
    })),
  );
  for (let i = 0; i < seeds.length; i += 2_000) await seedEvents(projectId, seeds.slice(i, i + 2_000));
}

/** `count` times evenly from `from` to `to` (both included). */
export function spread(from: number, to: number, count: number): number[] {
  return Array.from({ length: count }, (_, i) => from + Math.floor(((to - from) * i) / Math.max(1, count - 1)));
}

/** A signed-in user with projects named `<name>-<random>`. */
export async function userWithProjects(...names: string[]) {
  const { user, cookie } = await createUserWithSession(uniqueEmail("oncall"));
  const projects = [];
  for (const name of names) projects.push(await createProject(user.id, `${name}-${Math.random().toString(36).slice(2, 7)}`));
  return { user, cookie, projects };
}

/** GET /api/ai/summarize as the dashboard asks it. */
export async function summarize(cookie: string, query: string) {
  const res = await GET(new Request(`http://localhost/api/ai/summarize?${query}`, { headers: { cookie } }), { params: Promise.resolve({}) });
  const summary = ((await res.json()) as { summary: string }).summary;
  // Set PRINT_DIGESTS=1 to read them.
  if (process.env.PRINT_DIGESTS) process.stdout.write(`\n----- ${query}\n${summary}\n`);
  return { status: res.status, res, summary };
}

/** The one line of `summary` matching `pattern` (the test fails, showing the summary, when there is none). */
export function line(summary: string, pattern: RegExp): string {
  const found = summary.split("\n").find((l) => pattern.test(l));
  expect(found, `no line matching ${pattern} in:\n${summary}`).toBeDefined();
  return found!;
}

/** The numbered top-issue line whose text contains `title`, and the lines under it. */
export function topIssue(summary: string, title: string): { rank: number; lines: string[] } {
  const lines = summary.split("\n");
  const i = lines.findIndex((l) => /^\d+\. /.test(l) && l.includes(title));
  expect(i, `no top issue "${title}" in:\n${summary}`).toBeGreaterThanOrEqual(0);
  const next = lines.findIndex((l, j) => j > i && !l.startsWith("   "));
  return { rank: Number(lines[i]!.slice(0, lines[i]!.indexOf("."))), lines: lines.slice(i, next === -1 ? undefined : next) };
}

/** How the digest writes an instant: "HH:MM UTC", with its date when the window spans days (or always, with `dated`). */
export function clockText(ms: number, dated: "maybe" | "always" = "maybe"): string {
  const iso = new Date(ms).toISOString();
  return dated === "always" ? `${iso.slice(0, 10)} ${iso.slice(11, 16)} UTC` : `(?:${iso.slice(0, 10)} )?${iso.slice(11, 16)} UTC`;
}

export const floorTo = (t: number, unit: number) => Math.floor(t / unit) * unit;
