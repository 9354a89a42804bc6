import type { Metadata } from "next";
import Link from "next/link";
import { EventFilters } from "@/components/event-filters";
import { EventList } from "@/components/event-list";
import { EventsChart } from "@/components/events-chart";
import { FirstEventHelp } from "@/components/first-event-help";
import { NewEventsNotice } from "@/components/new-events-notice";
import { Pagination } from "@/components/pagination";
import { SummaryPanel } from "@/components/summary-panel";
import { eventHistogram } from "@/lib/issues/histogram";
import { listProjectEvents } from "@/lib/events/list";
import { projectHasEvents } from "@/lib/issues/totals";
import { projectAccess, siteOrigin } from "@/app/(dashboard)/session";
import { revealKeyAction } from "@/app/(dashboard)/projects/actions";
import { eventQueryString, parseEventQuery } from "@/app/(dashboard)/projects/[id]/filters";
import { pluralWord } from "@/lib/text/plural";

type Props = { params: Promise<{ id: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

const linkClass = "font-medium text-indigo-600 hover:underline dark:text-indigo-400";

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { id } = await params;
  const access = await projectAccess(id);
  return { title: `${access.projectName} · Events` };
}

/** Every event of the project, newest first, filtered; the chart counts what the filters select. */
export default async function ProjectEventsPage({ params, searchParams }: Props) {
  const { id } = await params;
  const access = await projectAccess(id);
  const search = await searchParams;
  const query = parseEventQuery(search);
  const tz = typeof search.tz === "string" ? search.tz : undefined;
  const filters = { level: query.level, q: query.q, since: query.since, until: query.until };

  const [page, histogram] = await Promise.all([listProjectEvents(access, { ...filters, cursor: query.cursor, limit: 50 }), eventHistogram(access, filters)]);
  const filtered = Boolean(query.level || query.q || query.cursor);
  // An empty page: is the project itself empty (show how to send a first event)?
  const projectIsEmpty = page.events.length === 0 && !(await projectHasEvents(access));
  const live = !query.cursor && (!query.until || query.until > new Date());
  const newest = page.events[0];
  const path = `/projects/${id}/events`;

  if (projectIsEmpty) {
    return <FirstEventHelp origin={await siteOrigin()} projectId={id} since={query.since.toISOString()} reveal={revealKeyAction.bind(null, null, { projectId: id })} />;
  }

  return (
    <div className="flex flex-col gap-4 sm:gap-6">
      <section aria-labelledby="events-heading" className="space-y-3">
        <h2 id="events-heading" className="sr-only">
          Events
        </h2>
        <EventFilters action={path} values={query.values} />
        <section aria-label="Events over time" className="rounded-xl border border-zinc-200 bg-white p-3 shadow-sm sm:p-4 dark:border-zinc-800 dark:bg-zinc-900">
          <EventsChart data={histogram} />
        </section>
        <div className="flex min-h-9 flex-wrap items-center justify-between gap-2">
          <p className="text-sm text-zinc-500 dark:text-zinc-400">
            {page.events.length === 0
              ? "No events match."
              : `${page.events.length}${page.nextCursor ? "+" : ""} ${pluralWord(page.events.length, "event")}${query.cursor ? " (older page)" : ""}, newest first`}
          </p>
          {live && (
            <NewEventsNotice
              key={newest?.id ?? "none"}
              projectId={id}
              since={newest?.occurredAt ?? query.since.toISOString()}
              knownIds={page.events.filter((e) => e.occurredAt === newest?.occurredAt).map((e) => e.id)}
              level={query.level?.join(",")}
              q={query.q}
              autoRefresh={page.events.length === 0}
            />
          )}
        </div>
        {page.events.length > 0 ? (
          <EventList events={page.events} projectId={id} />
        ) : (
          <div className="rounded-xl border border-dashed border-zinc-300 p-6 text-center text-sm text-zinc-600 dark:border-zinc-700 dark:text-zinc-400">
            <p>No events match these filters in this time range.</p>
            <p className="mt-2">
              {filtered && (
                <Link href={path} className={linkClass}>
                  Clear filters
                </Link>
              )}
              {filtered && query.values.range !== "30d" && " · "}
              {query.values.range !== "30d" && (
                <Link href={`${path}?range=30d`} className={linkClass}>
                  Show the last 30 days
                </Link>
              )}
            </p>
          </div>
        )}
        <Pagination
          firstHref={query.cursor ? `${path}${eventQueryString(query, undefined, tz)}` : undefined}
          nextHref={page.nextCursor ? `${path}${eventQueryString(query, page.nextCursor, tz)}` : undefined}
        />
      </section>

      {/* Below the list on a phone, so that the first event is on the first screen. */}
      <div className="order-last sm:order-first">
        <SummaryPanel projectId={id} />
      </div>
    </div>
  );
}
