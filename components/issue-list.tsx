import Link from "next/link";
import type { FormAction } from "@/components/action-state";
import { WindowBadges } from "@/components/issue-badges";
import { IssueStatusActions } from "@/components/issue-status-actions";
import { IssueTitle } from "@/components/issue-title";
import { WorkflowSelectBox } from "@/components/issues/workflow-bulk";
import { LevelBadge } from "@/components/level-badge";
import { LocalTime } from "@/components/local-time";
import { compactNumber, formatCount } from "@/components/number-format";
import { Sparkline } from "@/components/sparkline";
import type { IssueView } from "@/lib/issues/service";
import { pluralWord } from "@/lib/text/plural";

type Props = {
  issues: IssueView[];
  projectId: string;
  /** "the last 24 hours": what the counts and sparklines cover. */
  period: string;
  /** Appended to each issue's link (the period, so the issue page shows the same one). */
  linkQuery: string;
  /** The server's clock, for the relative times. */
  renderedAt: number;
  statusAction: FormAction;
  /** A checkbox per issue for the bulk bar (inside a WorkflowSelection). */
  selectable?: boolean;
  /** Names of the project's members by user id, to show who an issue is assigned to. */
  memberNames?: Record<string, string>;
};

const plural = (n: number, word: string) => `${formatCount(n)} ${pluralWord(n, word)}`;

/** The project's issues: what went wrong, how often lately, since when; each one a click from its events. */
export function IssueList({ issues, projectId, period, linkQuery, renderedAt, statusAction, selectable = false, memberNames = {} }: Props) {
  return (
    <ul aria-label="Issues" className="divide-y divide-zinc-200 overflow-hidden rounded-xl border border-zinc-200 bg-white shadow-sm dark:divide-zinc-800 dark:border-zinc-800 dark:bg-zinc-900">
      {issues.map((issue) => {
        const titleId = `issue-${issue.id}`;
        return (
          <li key={issue.id}>
            <article aria-labelledby={titleId} className="flex flex-col gap-2 px-3 py-3 sm:flex-row sm:items-center sm:gap-4 sm:px-4">
              <div className="min-w-0 flex-1 space-y-1">
                <div className="flex min-w-0 items-center gap-2">
                  {selectable && <WorkflowSelectBox issueId={issue.id} title={issue.title} />}
                  <LevelBadge level={issue.level} />
                  <Link
                    id={titleId}
                    href={`/projects/${projectId}/issues/${issue.id}${linkQuery}`}
                    title={issue.title}
                    className="min-w-0 truncate text-sm font-medium text-zinc-900 hover:underline dark:text-zinc-100"
                  >
                    <IssueTitle title={issue.title} />
                  </Link>
                </div>
                <p className="flex flex-wrap items-center gap-x-2 gap-y-1 text-xs text-zinc-500 dark:text-zinc-400">
                  <WindowBadges isNew={issue.isNew} isRegressed={issue.isRegressed} />
                  <span>
                    first seen <LocalTime iso={issue.firstSeen} format="relative" renderedAt={renderedAt} />
                  </span>
                  <span aria-hidden="true">·</span>
                  <span>
                    last seen <LocalTime iso={issue.lastSeen} format="relative" renderedAt={renderedAt} />
                  </span>
                  {/* The all-time count is on the issue's page; on a phone this line stays one line. */}
                  <span aria-hidden="true" className="hidden sm:inline">
                    ·
                  </span>
                  <span className="hidden tabular-nums sm:inline">{plural(issue.count, "event")} in all</span>
                  {issue.assigneeId && (
                    <>
                      <span aria-hidden="true">·</span>
                      <span className="max-w-48 truncate" title={`Assigned to ${memberNames[issue.assigneeId] ?? "a former member"}`}>
                        assigned to {memberNames[issue.assigneeId] ?? "a former member"}
                      </span>
                    </>
                  )}
                </p>
              </div>
              <div className="flex items-center justify-between gap-3 sm:justify-end">
                <div className="flex items-center gap-3">
                  <Sparkline values={issue.sparkline} label={`${plural(issue.windowCount, "event")} in ${period}`} />
                  <p className="w-14 text-right leading-tight" title={`${plural(issue.windowCount, "event")} in ${period}`}>
                    <span className="block text-sm font-semibold tabular-nums">{compactNumber(issue.windowCount)}</span>
                    <span className="block text-[11px] text-zinc-500 dark:text-zinc-400">{issue.windowCount === 1 ? "event" : "events"}</span>
                  </p>
                </div>
                <IssueStatusActions projectId={projectId} issueId={issue.id} status={issue.status} action={statusAction} />
              </div>
            </article>
          </li>
        );
      })}
    </ul>
  );
}
