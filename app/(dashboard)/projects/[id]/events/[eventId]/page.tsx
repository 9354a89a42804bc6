import type { Metadata } from "next";
import Link from "next/link";
import { notFound } from "next/navigation";
import { cache } from "react";
import { ContextView } from "@/components/context-view";
import { CopyButton } from "@/components/copy-button";
import { EventDetails } from "@/components/event-details";
import { LevelBadge } from "@/components/level-badge";
import { LocalTime } from "@/components/local-time";
import { uuidParamSchema } from "@/lib/events/filters";
import { getProjectEvent } from "@/lib/events/list";
import { AppError } from "@/lib/http/errors";
import { projectAccess, siteOrigin } from "@/app/(dashboard)/session";

type Props = { params: Promise<{ id: string; eventId: string }> };

const eventIdSchema = uuidParamSchema("Not an event id.");
const card = "rounded-xl border border-zinc-200 bg-white p-4 shadow-sm sm:p-5 dark:border-zinc-800 dark:bg-zinc-900";

/** The event, once per request (metadata and page); a malformed or unknown id is the 404 page. */
const loadEvent = cache(async (projectId: string, eventId: string) => {
  const id = eventIdSchema.safeParse(eventId);
  if (!id.success) notFound();
  const access = await projectAccess(projectId);
  try {
    return await getProjectEvent(access, id.data);
  } catch (error) {
    if (error instanceof AppError && error.status === 404) notFound();
    throw error;
  }
});

export async function generateMetadata({ params }: Props): Promise<Metadata> {
  const { id, eventId } = await params;
  const event = await loadEvent(id, eventId);
  return { title: `${event.level}: ${event.message.slice(0, 80)}` };
}

/** One event, at a link that can be shared: its message, times, context and issue. */
export default async function EventPage({ params }: Props) {
  const { id, eventId } = await params;
  const event = await loadEvent(id, eventId);
  const permalink = `${await siteOrigin()}/projects/${id}/events/${event.id}`;

  return (
    <div className="space-y-4 sm:space-y-6">
      <p className="flex flex-wrap gap-x-4 gap-y-1 text-sm">
        <Link href={`/projects/${id}/events`} className="text-zinc-500 hover:underline dark:text-zinc-400">
          ← Events
        </Link>
        {event.issueId && (
          <Link href={`/projects/${id}/issues/${event.issueId}`} className="font-medium text-indigo-600 hover:underline dark:text-indigo-400">
            View its issue →
          </Link>
        )}
      </p>

      <article aria-labelledby="event-message" className={`${card} space-y-4`}>
        <div className="flex flex-wrap items-center justify-between gap-2">
          <p className="flex items-center gap-2 text-sm text-zinc-500 dark:text-zinc-400">
            <LevelBadge level={event.level} />
            <LocalTime iso={event.occurredAt} />
          </p>
          <CopyButton text={permalink} label="Copy link" ariaLabel="Copy link to this event" />
        </div>
        <h2 id="event-message" className="text-base font-semibold break-words whitespace-pre-wrap sm:text-lg">
          {event.message}
        </h2>
        <EventDetails event={event} />
        <div className="space-y-2">
          <h3 className="text-sm font-semibold">Context</h3>
          {event.context ? <ContextView value={event.context} label="Context" /> : <p className="text-sm text-zinc-500">No context was sent with this event.</p>}
        </div>
      </article>
    </div>
  );
}
