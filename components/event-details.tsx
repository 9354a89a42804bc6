import { LocalTime } from "@/components/local-time";
import type { StoredEvent } from "@/lib/events/list";

/**
 * An event's times and id. The event's own time (what lists, charts and
 * issues use) first; the client's `timestamp` exactly as it was sent.
 */
export function EventDetails({ event }: { event: StoredEvent }) {
  const clientTimeUsed = event.timestamp !== null && event.timestamp === event.occurredAt;
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
    </dl>
  );
}
