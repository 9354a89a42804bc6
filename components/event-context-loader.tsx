"use client";

import Link from "next/link";
import { useEffect, useRef, useState } from "react";
import { ContextView } from "@/components/context-view";

type State = { kind: "idle" } | { kind: "loading" } | { kind: "loaded"; context: Record<string, unknown> | null } | { kind: "failed" };

const linkClass = "font-medium text-indigo-600 hover:underline dark:text-indigo-400";

/**
 * An event's context in a list row, fetched from the events API the first
 * time the row's <details> opens: a page of SDK events would otherwise carry
 * every one's breadcrumbs and stack in its HTML
 * ([figures](../docs/performance.md#page-weight-event-context-loaded-on-open)).
 * Without script, the row points to the event's own page, which shows it.
 */
export function EventContextLoader({ projectId, eventId, label }: { projectId: string; eventId: string; label: string }) {
  const [state, setState] = useState<State>({ kind: "idle" });
  const anchor = useRef<HTMLDivElement>(null);
  const started = useRef(false);

  useEffect(() => {
    const details = anchor.current?.closest("details");
    if (!details) return;
    const load = () => {
      if (!details.open || started.current) return;
      started.current = true;
      setState({ kind: "loading" });
      fetch(`/api/projects/${projectId}/events/${eventId}`, { headers: { accept: "application/json" } })
        .then(async (response) => {
          if (!response.ok) throw new Error(`HTTP ${response.status}`);
          const event = (await response.json()) as { context: Record<string, unknown> | null };
          setState({ kind: "loaded", context: event.context });
        })
        .catch(() => {
          started.current = false;
          setState({ kind: "failed" });
        });
    };
    // Opened before this ran (a click during hydration), or later.
    load();
    details.addEventListener("toggle", load);
    return () => details.removeEventListener("toggle", load);
  }, [projectId, eventId]);

  const page = `/projects/${projectId}/events/${eventId}`;
  return (
    <div ref={anchor} aria-busy={state.kind === "loading"}>
      {state.kind === "loaded" ? (
        state.context ? (
          <ContextView value={state.context} label={label} />
        ) : (
          <p className="text-xs text-zinc-500">No context.</p>
        )
      ) : (
        <p role="status" className="text-xs text-zinc-500">
          {state.kind === "loading" ? (
            "Loading its context…"
          ) : state.kind === "failed" ? (
            <>
              Its context could not be loaded:{" "}
              <Link href={page} className={linkClass}>
                open the event
              </Link>
              .
            </>
          ) : (
            <>
              Its context is on{" "}
              <Link href={page} className={linkClass}>
                the event&apos;s page
              </Link>
              .
            </>
          )}
        </p>
      )}
    </div>
  );
}
