import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { cache } from "react";
import { EventList } from "@/components/event-list";
import { EventsChart } from "@/components/events-chart";
import { NewBadge, RegressedBadge, StatusBadge } from "@/components/issue-badges";
import { IssueStatusActions } from "@/components/issue-status-actions";
import { IssueTitle } from "@/components/issue-title";
import { LevelBadge } from "@/components/level-badge";
import { LocalTime } from "@/components/local-time";
import { formatCount } from "@/components/number-format";
import { Pagination } from "@/components/pagination";
import { PeriodLinks } from "@/components/period-links";
import { Stat } from "@/components/stat";
import { eventHistogram } from "@/lib/events/histogram";
import { listProjectEvents } from "@/lib/events/list";
import { AppError } from "@/lib/http/errors";
import { issueParamsSchema } from "@/lib/issues/filters";
import { getProjectIssue } from "@/lib/issues/service";
import { projectAccess } from "@/app/(dashboard)/session";
import { setIssueStatusAction } from "@/app/(dashboard)/projects/[id]/actions";
import { DEFAULT_RANGE, eventPageCursor, issuePeriod, RANGE_PHRASES, RANGES, type Range } from "@/app/(dashboard)/projects/[id]/filters";

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
      return await getProjectIssue(access, id.data, { since }, now);
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
  const [histogram, page] = await Promise.all([
    eventHistogram(access, { issueId: issue.id, since: period.since, until: now }),
    listProjectEvents(access, { issueId: issue.id, cursor, limit: EVENTS_PER_PAGE }),
  ]);

  const path = `/projects/${id}/issues/${issue.id}`;
  const rangeQuery = (range: Range) => (range === DEFAULT_RANGE ? "" : `range=${range}`);
  const href = (range: Range, pageCursor?: string) => {
    const query = [rangeQuery(range), pageCursor ? `cursor=${encodeURIComponent(pageCursor)}` : ""].filter(Boolean).join("&");
    return query ? `${path}?${query}` : path;
  };
  const phrase = RANGE_PHRASES[period.range];

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
          {issue.isNew && <NewBadge />}
          {issue.isRegressed && <RegressedBadge />}
        </div>
        <h2 id="issue-title" className="text-base font-semibold break-words sm:text-lg">
          <IssueTitle title={issue.title} />
        </h2>
        {issue.sampleMessage !== issue.title && (
          <p className="text-sm break-words text-zinc-600 dark:text-zinc-400">
            <span className="text-zinc-500">Latest message:</span> {issue.sampleMessage}
          </p>
        )}
        <IssueStatusActions projectId={id} issueId={issue.id} status={issue.status} action={setIssueStatusAction} />
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
      </section>

      <section aria-labelledby="issue-chart" className={`${card} space-y-3`}>
        <div className="flex flex-wrap items-center justify-between gap-2">
          <h3 id="issue-chart" className="text-sm font-semibold">
            Events in {phrase}
          </h3>
          <PeriodLinks options={RANGES.map((range) => ({ label: range, href: href(range), current: range === period.range }))} />
        </div>
        <EventsChart data={histogram} />
      </section>

      <section aria-labelledby="issue-events" className="space-y-3">
        <h3 id="issue-events" className="text-sm font-semibold">
          Latest events <span className="font-normal text-zinc-500">(newest first{cursor ? ", older page" : ""})</span>
        </h3>
        {page.events.length > 0 ? (
          <EventList events={page.events} projectId={id} showIssueLink={false} openFirst={!cursor} />
        ) : (
          <p className="rounded-xl border border-dashed border-zinc-300 p-6 text-center text-sm text-zinc-600 dark:border-zinc-700 dark:text-zinc-400">
            Its events are no longer stored (retention); the counts above remain.
          </p>
        )}
        <Pagination firstHref={cursor ? href(period.range) : undefined} nextHref={page.nextCursor ? href(period.range, page.nextCursor) : undefined} />
      </section>
    </div>
  );
}
