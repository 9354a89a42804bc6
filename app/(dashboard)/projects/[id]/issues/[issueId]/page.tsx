import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { cache } from "react";
import { EventList } from "@/components/event-list";
import { EventsChart } from "@/components/events-chart";
import { LateEvents, StatusBadge, WindowBadges } from "@/components/issue-badges";
import { IssueTitle } from "@/components/issue-title";
import { StackFrames } from "@/components/issues/stack-frames";
import { TagBreakdownList } from "@/components/issues/tag-breakdown";
import { TriageFacts } from "@/components/issues/triage-facts";
import { WorkflowActivity } from "@/components/issues/workflow-activity";
import { WorkflowControls } from "@/components/issues/workflow-controls";
import { LevelBadge } from "@/components/level-badge";
import { LocalTime } from "@/components/local-time";
import { formatCount } from "@/components/number-format";
import { Pagination } from "@/components/pagination";
import { PeriodLinks } from "@/components/period-links";
import { Stat } from "@/components/stat";
import { eventHistogram } from "@/lib/issues/histogram";
import { listProjectEvents } from "@/lib/events/list";
import { eventStackView } from "@/lib/grouping/stack-view";
import { AppError } from "@/lib/http/errors";
import { issueParamsSchema } from "@/lib/issues/filters";
import { issueChart } from "@/lib/issues/chart-window";
import { getIssueDetails } from "@/lib/issues/issue-details";
import { issueWorkflowPageData } from "@/lib/issues/workflow";
import { projectAccess } from "@/app/(dashboard)/session";
import { changeIssueAction, commentIssueAction } from "@/app/(dashboard)/projects/[id]/issues/workflow-actions";
import { DEFAULT_RANGE, eventPageCursor, eventTagFilters, issuePeriod, RANGE_PHRASES, RANGES, type Range } from "@/app/(dashboard)/projects/[id]/filters";

type SearchParams = Record<string, string | string[] | undefined>;
type Props = { params: Promise<{ id: string; issueId: string }>; searchParams: Promise<SearchParams> };

const EVENTS_PER_PAGE = 20;
const card = "rounded-xl border border-zinc-200 bg-white p-4 shadow-sm sm:p-5 dark:border-zinc-800 dark:bg-zinc-900";

/**
 * The issue in the page's period, loaded once per request (metadata and page
 * alike). Without a period in the URL, the shortest one that reaches its
 * last event (a permalink's "issue" link still shows its latest activity).
 */
const loadIssue = cache(async (projectId: string, issueId: string, rangeParam: string | undefined) => {
  const id = issueParamsSchema.shape.issueId.safeParse(issueId);
  if (!id.success) notFound();
  const access = await projectAccess(projectId);
  const now = new Date();
  const params = rangeParam ? { range: rangeParam } : {};
  const get = async (since: Date) => {
    try {
      return await getIssueDetails(access, id.data, { since }, now);
    } catch (error) {
      if (error instanceof AppError && error.status === 404) notFound();
      throw error;
    }
  };
  let period = issuePeriod(params, undefined, now);
  let issue = await get(period.since);
  if (!period.explicit && Date.parse(issue.lastSeen) < period.since.getTime()) {
    period = issuePeriod(params, issue.lastSeen, now);
    issue = await get(period.since);
  }
  return { access, issue, period, now };
});

const rangeOf = (search: SearchParams) => (typeof search.range === "string" ? search.range : undefined);

export async function generateMetadata({ params, searchParams }: Props): Promise<Metadata> {
  const { id, issueId } = await params;
  const { access, issue } = await loadIssue(id, issueId, rangeOf(await searchParams));
  return { title: `${issue.title.slice(0, 80)} · ${access.projectName}` };
}

export default async function IssuePage({ params, searchParams }: Props) {
  const { id, issueId } = await params;
  const search = await searchParams;
  const { access, issue, period, now } = await loadIssue(id, issueId, rangeOf(search));
  const cursor = eventPageCursor(search);
  const tags = eventTagFilters(search);
  const [chart, page, latest, workflow] = await Promise.all([
    // Without a period in the URL, the chart zooms in on the issue's events (a short outage fills it).
    period.explicit
      ? eventHistogram(access, { issueId: issue.id, since: period.since, until: now }).then((histogram) => ({ histogram, fitted: false, window: null }))
      : issueChart(access, issue.id, { since: period.since, until: now }).then((c) => ({ ...c, window: c.fitted ? c.window : null })),
    listProjectEvents(access, { issueId: issue.id, cursor, tag: tags, limit: EVENTS_PER_PAGE }),
    // The latest event (its stack): the page's first unless the page is an older or a filtered one.
    cursor || tags.length > 0 ? listProjectEvents(access, { issueId: issue.id, limit: 1 }).then((p) => p.events[0]) : null,
    issueWorkflowPageData(access, issue.id),
  ]);
  const newest = latest ?? (cursor || tags.length > 0 ? undefined : page.events[0]);
  const stack = newest ? eventStackView(newest.context) : null;

  const path = `/projects/${id}/issues/${issue.id}`;
  const rangeQuery = (range: Range) => (range === DEFAULT_RANGE ? "" : `range=${range}`);
  const href = (range: Range, pageCursor?: string, tagFilters = tags) => {
    const query = [
      rangeQuery(range),
      ...tagFilters.map((t) => `tag=${encodeURIComponent(`${t.key}:${t.value}`)}`),
      pageCursor ? `cursor=${encodeURIComponent(pageCursor)}` : "",
    ]
      .filter(Boolean)
      .join("&");
    return query ? `${path}?${query}` : path;
  };
  const phrase = RANGE_PHRASES[period.range];
  const isTagFilter = (key: string, value: string) => tags.some((t) => t.key === key && t.value === value);

  return (
    <div className="space-y-4 sm:space-y-6">
      <p className="text-sm">
        <Link href={`/projects/${id}${rangeQuery(period.range) ? `?${rangeQuery(period.range)}` : ""}`} className="text-zinc-500 hover:underline dark:text-zinc-400">
          ← Issues
        </Link>
      </p>

      <section aria-labelledby="issue-title" className={`${card} space-y-3`}>
        <div className="flex flex-wrap items-center gap-2">
          <LevelBadge level={issue.level} />
          <StatusBadge status={issue.status} />
          <LateEvents count={issue.lateCount} />
          <WindowBadges isNew={issue.isNew} isRegressed={issue.isRegressed} />
        </div>
        <h2 id="issue-title" className="text-base font-semibold break-words sm:text-lg">
          <IssueTitle title={issue.title} />
        </h2>
        {issue.sampleMessage !== issue.title && (
          <p className="text-sm break-words text-zinc-600 dark:text-zinc-400">
            <span className="text-zinc-500">Latest message:</span> {issue.sampleMessage}
          </p>
        )}
        <WorkflowControls projectId={id} issue={issue} members={workflow.members} releases={workflow.releases} action={changeIssueAction} renderedAt={now.getTime()} />
        <dl className="grid grid-cols-2 gap-x-4 gap-y-3 border-t border-zinc-100 pt-3 sm:grid-cols-5 dark:border-zinc-800">
          <Stat label="Events in all">{formatCount(issue.count)}</Stat>
          <Stat label={`In ${phrase}`}>{formatCount(issue.windowCount)}</Stat>
          <Stat label="First seen">
            <LocalTime iso={issue.firstSeen} format="relative" renderedAt={now.getTime()} />
          </Stat>
          <Stat label="Last seen">
            <LocalTime iso={issue.lastSeen} format="relative" renderedAt={now.getTime()} />
          </Stat>
          {issue.regressedAt && (
            <Stat label="Regressed">
              <LocalTime iso={issue.regressedAt} format="relative" renderedAt={now.getTime()} />
            </Stat>
          )}
        </dl>
        <TriageFacts issue={issue} />
      </section>

      <section aria-labelledby="issue-chart" className={`${card} space-y-3`}>
        <div className="flex flex-wrap items-center justify-between gap-2">
          <h3 id="issue-chart" className="text-sm font-semibold">
            {chart.window ? (
              <>
                Events from <LocalTime iso={chart.window.since.toISOString()} /> to <LocalTime iso={chart.window.until.toISOString()} />
                <span className="font-normal text-zinc-500"> (zoomed to its events in {phrase})</span>
              </>
            ) : (
              <>Events in {phrase}</>
            )}
          </h3>
          <PeriodLinks options={RANGES.map((range) => ({ label: range, href: href(range), current: range === period.range }))} />
        </div>
        <EventsChart data={chart.histogram} />
      </section>

      {stack && (
        <section aria-labelledby="issue-stack" className={`${card} space-y-3`}>
          <h3 id="issue-stack" className="text-sm font-semibold">
            Stack trace <span className="font-normal text-zinc-500">of the latest event</span>
          </h3>
          <StackFrames stack={stack} />
        </section>
      )}

      {issue.tags.length > 0 && (
        <section aria-labelledby="issue-tags" className={`${card} space-y-3`}>
          <h3 id="issue-tags" className="text-sm font-semibold">
            Tags <span className="font-normal text-zinc-500">in {phrase}{issue.tagsExact ? "" : " (partly estimated)"}; a value shows its events</span>
          </h3>
          <TagBreakdownList tags={issue.tags} hrefFor={(key, value) => `${href(period.range, undefined, [{ key, value }])}#issue-events`} isCurrent={isTagFilter} />
        </section>
      )}

      <section aria-labelledby="issue-activity" className={`${card} space-y-3`}>
        <h3 id="issue-activity" className="text-sm font-semibold">
          Activity
        </h3>
        <WorkflowActivity projectId={id} issueId={issue.id} activities={workflow.activities} more={workflow.moreActivity} commentAction={commentIssueAction} renderedAt={now.getTime()} />
      </section>

      <section aria-labelledby="issue-events" className="space-y-3">
        <h3 id="issue-events" className="text-sm font-semibold">
          Latest events <span className="font-normal text-zinc-500">(newest first{cursor ? ", older page" : ""})</span>
        </h3>
        {tags.length > 0 && (
          <p className="flex flex-wrap items-center gap-2 text-sm" role="status">
            <span className="text-zinc-500">With tag</span>
            {tags.map((t) => (
              <span key={`${t.key}:${t.value}`} className="rounded bg-indigo-50 px-1.5 py-0.5 font-mono text-xs break-all dark:bg-indigo-950/50">
                {t.key}: {t.value}
              </span>
            ))}
            <Link href={`${href(period.range, undefined, [])}#issue-events`} className="font-medium text-indigo-600 hover:underline dark:text-indigo-400">
              Show all events
            </Link>
          </p>
        )}
        {page.events.length > 0 ? (
          <EventList events={page.events} projectId={id} showIssueLink={false} openFirst={!cursor} />
        ) : (
          <p className="rounded-xl border border-dashed border-zinc-300 p-6 text-center text-sm text-zinc-600 dark:border-zinc-700 dark:text-zinc-400">
            {tags.length > 0 ? "No stored event of this issue has this tag." : "Its events are no longer stored (retention); the counts above remain."}
          </p>
        )}
        <Pagination firstHref={cursor ? href(period.range) : undefined} nextHref={page.nextCursor ? href(period.range, page.nextCursor) : undefined} />
      </section>
    </div>
  );
}
