import { LocalTime } from "@/components/local-time";
import type { StoredEvent } from "@/lib/events/list";
import type { EventUser } from "@/lib/events/schema";

/** Who an event's `user` was, as one line: "id 42 · ada@example.com · ada · 203.0.113.9". */
export function userLabel(user: EventUser): string {
  return [user.id && `id ${user.id}`, user.email, user.username, user.ip_address].filter(Boolean).join(" · ");
}

/**
 * An event's times, id, release, environment, user and tags. The event's
 * own time (what lists, charts and issues use) first; the client's
 * `timestamp` exactly as it was sent.
 */
export function EventDetails({ event }: { event: StoredEvent }) {
  const clientTimeUsed = event.timestamp !== null && event.timestamp === event.occurredAt;
  const tags = event.tags ? Object.entries(event.tags) : [];
  return (
    <dl className="grid grid-cols-[auto_1fr] gap-x-4 gap-y-1 text-xs">
      <dt className="text-zinc-500">Occurred</dt>
      <dd className="tabular-nums">
        <LocalTime iso={event.occurredAt} format="precise" />
        <span className="text-zinc-500"> {clientTimeUsed ? "(client time)" : "(time received)"}</span>
      </dd>
      <dt className="text-zinc-500">Received</dt>
      <dd className="tabular-nums">
        <LocalTime iso={event.receivedAt} format="precise" />
      </dd>
      <dt className="text-zinc-500">Client time</dt>
      <dd className="tabular-nums">{event.timestamp ? <LocalTime iso={event.timestamp} format="precise" /> : "not sent"}</dd>
      <dt className="text-zinc-500">Event id</dt>
      <dd className="font-mono break-all">{event.id}</dd>
      {event.release && (
        <>
          <dt className="text-zinc-500">Release</dt>
          <dd className="font-mono break-all">{event.release}</dd>
        </>
      )}
      {event.environment && (
        <>
          <dt className="text-zinc-500">Environment</dt>
          <dd className="break-all">{event.environment}</dd>
        </>
      )}
      {event.user && (
        <>
          <dt className="text-zinc-500">User</dt>
          <dd className="break-all">{userLabel(event.user)}</dd>
        </>
      )}
      {tags.length > 0 && (
        <>
          <dt className="text-zinc-500">Tags</dt>
          <dd>
            <ul aria-label="Tags" className="flex flex-wrap gap-1">
              {tags.map(([key, value]) => (
                <li key={key} className="rounded bg-zinc-100 px-1.5 py-0.5 font-mono break-all dark:bg-zinc-800">
                  <span className="text-zinc-500">{key}:</span> {value}
                </li>
              ))}
            </ul>
          </dd>
        </>
      )}
    </dl>
  );
}
