import type { Metadata } from "next";
import Link from "next/link";
import { buttonClass } from "@/components/button";
import { CurlSnippet } from "@/components/curl-snippet";
import { EventFilters } from "@/components/event-filters";
import { EventList } from "@/components/event-list";
import { EventsChart } from "@/components/events-chart";
import { NewEventsNotice } from "@/components/new-events-notice";
import { SummaryPanel } from "@/components/summary-panel";
import { eventHistogram } from "@/lib/events/histogram";
import { listProjectEvents, projectHasEvents } from "@/lib/events/list";
import { projectAccess, siteOrigin } from "../../session";
import { revealKeyAction } from "../actions";
import { eventQueryString, parseEventQuery } from "./filters";

type Props = { params: Promise<{ id: string }>; searchParams: Promise<Record<string, string | string[] | undefined>> };

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { id } = await params;
  const access = await projectAccess(id);
  return { title: `${access.projectName} · Events` };
}

export default async function ProjectEventsPage({ params, searchParams }: Props) {
  const { id } = await params;
  const access = await projectAccess(id);
  const search = await searchParams;
  const query = parseEventQuery(search);
  const tz = typeof search.tz === "string" ? search.tz : undefined;

  const [page, histogram] = await Promise.all([
    listProjectEvents(access, { level: query.level, q: query.q, since: query.since, until: query.until, cursor: query.cursor, limit: 50 }),
    eventHistogram(access, { since: query.since, until: query.until }),
  ]);
  const filtered = Boolean(query.level || query.q || query.cursor);
  // An empty page: is the project itself empty (show how to send a first event)?
  const projectIsEmpty = page.events.length === 0 && !(await projectHasEvents(access));
  const live = !query.cursor && (!query.until || query.until > new Date());
  const newest = page.events[0];
  const path = `/projects/${id}`;

  return (
    <div className="space-y-6">
      {projectIsEmpty ? (
        <section aria-labelledby="first-event" className="space-y-4 rounded-xl border border-dashed border-zinc-300 p-5 dark:border-zinc-700">
          <div>
            <h2 id="first-event" className="text-base font-semibold">
              No events yet: send your first one
            </h2>
            <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">
              Run this from a terminal (or your server). Your API key is inserted only when you ask; keep it out of browser code.
            </p>
          </div>
          <CurlSnippet origin={await siteOrigin()} projectId={id} reveal={revealKeyAction.bind(null, null, { projectId: id })} />
          <NewEventsNotice projectId={id} since={query.since.toISOString()} knownIds={[]} autoRefresh />
        </section>
      ) : (
        <>
          <section aria-label="Events over time" className="rounded-xl border border-zinc-200 bg-white p-4 shadow-sm dark:border-zinc-800 dark:bg-zinc-900">
            <EventsChart data={histogram} />
          </section>

          <SummaryPanel projectId={id} />

          <section aria-labelledby="events-heading" className="space-y-3">
            <h2 id="events-heading" className="sr-only">
              Events
            </h2>
            <EventFilters action={path} values={query.values} />
            <div className="flex min-h-9 flex-wrap items-center justify-between gap-2">
              <p className="text-sm text-zinc-500 dark:text-zinc-400">
                {page.events.length === 0
                  ? "No events match."
                  : `${page.events.length}${page.nextCursor ? "+" : ""} event${page.events.length === 1 ? "" : "s"}${query.cursor ? " (older page)" : ""}, newest first`}
              </p>
              {live && (
                <NewEventsNotice
                  key={newest?.id ?? "none"}
                  projectId={id}
                  since={newest?.receivedAt ?? query.since.toISOString()}
                  knownIds={page.events.filter((e) => e.receivedAt === newest?.receivedAt).map((e) => e.id)}
                  level={query.level?.join(",")}
                  q={query.q}
                  autoRefresh={page.events.length === 0}
                />
              )}
            </div>
            {page.events.length > 0 ? (
              <EventList events={page.events} />
            ) : (
              <div className="rounded-xl border border-dashed border-zinc-300 p-6 text-center text-sm text-zinc-600 dark:border-zinc-700 dark:text-zinc-400">
                <p>No events match these filters in this time range.</p>
                <p className="mt-2">
                  {filtered && (
                    <Link href={path} className="font-medium text-indigo-600 hover:underline dark:text-indigo-400">
                      Clear filters
                    </Link>
                  )}
                  {filtered && query.values.range !== "30d" && " · "}
                  {query.values.range !== "30d" && (
                    <Link href={`${path}?range=30d`} className="font-medium text-indigo-600 hover:underline dark:text-indigo-400">
                      Show the last 30 days
                    </Link>
                  )}
                </p>
              </div>
            )}
            <nav aria-label="Pagination" className="flex justify-between gap-2">
              {query.cursor ? (
                <Link href={`${path}${eventQueryString(query, undefined, tz)}`} className={buttonClass("secondary", "sm")}>
                  ← Newest
                </Link>
              ) : (
                <span />
              )}
              {page.nextCursor && (
                <Link href={`${path}${eventQueryString(query, page.nextCursor, tz)}`} className={buttonClass("secondary", "sm")}>
                  Older →
                </Link>
              )}
            </nav>
          </section>
        </>
      )}
    </div>
  );
}
