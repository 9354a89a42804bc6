import type { Metadata } from "next";
import Link from "next/link";
import { FirstEventHelp } from "@/components/first-event-help";
import { IssueFilters } from "@/components/issue-filters";
import { IssueList } from "@/components/issue-list";
import { personName } from "@/components/issues/person-name";
import { WorkflowBulkBar, WorkflowSelection } from "@/components/issues/workflow-bulk";
import { NewEventsNotice } from "@/components/new-events-notice";
import { Pagination } from "@/components/pagination";
import { StatusTabs } from "@/components/status-tabs";
import { SummaryPanel } from "@/components/summary-panel";
import { projectHasEvents } from "@/lib/issues/totals";
import { AppError } from "@/lib/http/errors";
import { ISSUE_STATUSES } from "@/lib/issues/filters";
import { listProjectIssues } from "@/lib/issues/service";
import { assignableMembers } from "@/lib/issues/workflow";
import type { ProjectAccess } from "@/lib/auth/access";
import { projectAccess, siteOrigin } from "@/app/(dashboard)/session";
import { revealKeyAction } from "@/app/(dashboard)/projects/actions";
import { setIssueStatusAction } from "@/app/(dashboard)/projects/[id]/actions";
import { bulkChangeIssuesAction } from "@/app/(dashboard)/projects/[id]/issues/workflow-actions";
import { DEFAULT_RANGE, issueQueryString, parseIssueQuery, RANGE_PHRASES, RANGES, type IssueQuery } from "@/app/(dashboard)/projects/[id]/filters";

type Props = { params: Promise<{ id: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

const PAGE_SIZE = 25;
const linkClass = "font-medium text-indigo-600 hover:underline dark:text-indigo-400";

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { id } = await params;
  const access = await projectAccess(id);
  return { title: `${access.projectName} · Issues` };
}

/** A page of issues; a cursor the lib refuses (one of another sort, an old link) starts over at the first page. */
async function issuesPage(access: ProjectAccess, query: IssueQuery, now: Date) {
  const filters = {
    status: [query.status],
    level: query.level,
    q: query.q,
    environment: query.environment,
    release: query.release,
    tag: query.tag,
    since: query.since,
    sort: query.sort,
    limit: PAGE_SIZE,
  };
  try {
    return { ...(await listProjectIssues(access, { ...filters, cursor: query.cursor }, now)), cursor: query.cursor };
  } catch (error) {
    if (!query.cursor || !(error instanceof AppError && error.status === 400)) throw error;
    return { ...(await listProjectIssues(access, filters, now)), cursor: undefined };
  }
}

/** The project's front page: its issues (events grouped by message template), the summary, or how to send a first event. */
export default async function ProjectIssuesPage({ params, searchParams }: Props) {
  const { id } = await params;
  const access = await projectAccess(id);
  const now = new Date();
  const query = parseIssueQuery(await searchParams, now);
  const page = await issuesPage(access, query, now);
  // An empty page: is the project itself empty (show how to send a first event)?
  const projectIsEmpty = page.issues.length === 0 && !query.cursor && !(await projectHasEvents(access));
  const path = `/projects/${id}`;

  if (projectIsEmpty) {
    return <FirstEventHelp origin={await siteOrigin()} projectId={id} since={query.since.toISOString()} reveal={revealKeyAction.bind(null, null, { projectId: id })} />;
  }

  const period = RANGE_PHRASES[query.range];
  const members = page.issues.length > 0 ? await assignableMembers(access) : [];
  const filtered = Boolean(query.level || query.q || query.environment || query.release || query.tag);
  const wider = RANGES.slice(RANGES.indexOf(query.range) + 1).filter((r) => r !== "1h");

  return (
    <div className="flex flex-col gap-4 sm:gap-6">
      <section aria-labelledby="issues-heading" className="space-y-3">
        <h2 id="issues-heading" className="sr-only">
          Issues
        </h2>
        <StatusTabs
          tabs={ISSUE_STATUSES.map((status) => ({
            label: status[0]!.toUpperCase() + status.slice(1),
            href: `${path}${issueQueryString(query, { status })}`,
            current: status === query.status,
          }))}
        />
        <IssueFilters action={path} values={query.values} />
        <div className="flex min-h-9 flex-wrap items-center justify-between gap-2">
          <p className="text-sm text-zinc-500 dark:text-zinc-400">
            {page.issues.length === 0
              ? `No ${query.status} issues.`
              : `${page.issues.length}${page.nextCursor ? "+" : ""} ${query.status} issue${page.issues.length === 1 && !page.nextCursor ? "" : "s"} with events in ${period}${page.cursor ? " (next page)" : ""}`}
          </p>
          {!page.cursor && (
            <NewEventsNotice key={now.getTime()} projectId={id} since={now.toISOString()} knownIds={[]} level={query.level?.join(",")} />
          )}
        </div>
        {page.issues.length > 0 ? (
          <WorkflowSelection>
            <WorkflowBulkBar projectId={id} issueIds={page.issues.map((i) => i.id)} members={members} action={bulkChangeIssuesAction} />
            <IssueList
              issues={page.issues}
              projectId={id}
              period={period}
              linkQuery={query.range === DEFAULT_RANGE ? "" : `?range=${query.range}`}
              renderedAt={now.getTime()}
              statusAction={setIssueStatusAction}
              selectable
              memberNames={Object.fromEntries(members.map((m) => [m.id, personName(m)]))}
            />
          </WorkflowSelection>
        ) : (
          <div className="rounded-xl border border-dashed border-zinc-300 p-6 text-center text-sm text-zinc-600 dark:border-zinc-700 dark:text-zinc-400">
            <p className="font-medium text-zinc-800 dark:text-zinc-200">
              No {query.status} issues {filtered ? "match these filters " : ""}in {period}
            </p>
            {query.status === "open" && !filtered && <p className="mt-1">Nothing new went wrong, or it was all resolved.</p>}
            <p className="mt-2 flex flex-wrap justify-center gap-x-3 gap-y-1">
              {filtered && (
                <Link href={`${path}${issueQueryString({ ...query, level: undefined, q: undefined, environment: undefined, release: undefined, tag: undefined })}`} className={linkClass}>
                  Clear filters
                </Link>
              )}
              {wider.map((range) => (
                <Link key={range} href={`${path}${issueQueryString(query, { range })}`} className={linkClass}>
                  Show {RANGE_PHRASES[range]}
                </Link>
              ))}
            </p>
          </div>
        )}
        <Pagination
          firstHref={page.cursor ? `${path}${issueQueryString(query)}` : undefined}
          nextHref={page.nextCursor ? `${path}${issueQueryString(query, { cursor: page.nextCursor })}` : undefined}
          firstLabel="← First page"
          nextLabel="Next page →"
        />
      </section>

      {/* Below the list on a phone, so that the first issue is on the first screen. */}
      <div className="order-last sm:order-first">
        <SummaryPanel projectId={id} />
      </div>
    </div>
  );
}
