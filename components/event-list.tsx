import Link from "next/link";
import { EventContextLoader } from "@/components/event-context-loader";
import { EventDetails } from "@/components/event-details";
import { LevelBadge } from "@/components/level-badge";
import { LocalTime } from "@/components/local-time";
import type { StoredEvent } from "@/lib/events/list";

const linkClass = "font-medium text-indigo-600 hover:underline dark:text-indigo-400";

/**
 * Events, newest first. Each row opens (native <details>, no script) to the
 * whole message, its times, its context and links to its own page and its
 * issue. The context is not in the page: a row loads it when it opens, or
 * at once for the row open from the start (EventContextLoader).
 */
export function EventList({
  events,
  projectId,
  showIssueLink = true,
  openFirst = false,
}: {
  events: StoredEvent[];
  projectId: string;
  /** Off on an issue's own page, where every event is of that issue. */
  showIssueLink?: boolean;
  openFirst?: boolean;
}) {
  return (
    <ul aria-label="Events" className="divide-y divide-zinc-200 overflow-hidden rounded-xl border border-zinc-200 bg-white shadow-sm dark:divide-zinc-800 dark:border-zinc-800 dark:bg-zinc-900">
      {events.map((event, i) => (
        <li key={event.id}>
          <details className="group" open={openFirst && i === 0}>
            <summary className="flex cursor-pointer list-none items-start gap-3 px-3 py-2.5 hover:bg-zinc-50 sm:items-center sm:px-4 dark:hover:bg-zinc-800/50 [&::-webkit-details-marker]:hidden">
              <span aria-hidden="true" className="mt-0.5 text-zinc-400 transition-transform group-open:rotate-90 sm:mt-0">
                ›
              </span>
              <span className="flex min-w-0 flex-1 flex-col gap-1 sm:flex-row sm:items-center sm:gap-3">
                <span className="flex items-center gap-2">
                  <LevelBadge level={event.level} />
                  <span className="shrink-0 text-xs whitespace-nowrap text-zinc-500 tabular-nums sm:w-48 dark:text-zinc-400">
                    <LocalTime iso={event.occurredAt} />
                  </span>
                </span>
                <span className="min-w-0 truncate text-sm group-open:overflow-visible group-open:break-words group-open:whitespace-pre-wrap">
                  {event.message}
                </span>
              </span>
              {event.context && (
                <span className="hidden shrink-0 rounded bg-zinc-100 px-1.5 py-0.5 font-mono text-[10px] text-zinc-500 sm:inline dark:bg-zinc-800 dark:text-zinc-400">
                  {"{…}"}
                </span>
              )}
            </summary>
            <div className="space-y-3 border-t border-zinc-100 bg-zinc-50/60 px-3 py-3 sm:px-4 dark:border-zinc-800 dark:bg-zinc-950/40">
              <EventDetails event={event} />
              {event.context ? (
                <EventContextLoader projectId={projectId} eventId={event.id} label={`Context of event ${event.id}`} />
              ) : (
                <p className="text-xs text-zinc-500">No context.</p>
              )}
              <p className="flex flex-wrap gap-x-4 gap-y-1 text-xs">
                <Link href={`/projects/${projectId}/events/${event.id}`} className={linkClass}>
                  Permalink
                </Link>
                {showIssueLink && event.issueId && (
                  <Link href={`/projects/${projectId}/issues/${event.issueId}`} className={linkClass}>
                    View issue
                  </Link>
                )}
              </p>
            </div>
          </details>
        </li>
      ))}
    </ul>
  );
}
