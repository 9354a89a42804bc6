"use client";

import { useRouter } from "next/navigation";
import { useEffect, useRef, useState, useTransition } from "react";
import { Button } from "@/components/button";
import { pluralWord } from "@/lib/text/plural";

const POLL_MS = 5000;

type Props = {
  projectId: string;
  /** Poll for events received at or after this instant (ISO). */
  since: string;
  /** Events already on the page at exactly `since`, not to be counted again. */
  knownIds: string[];
  level?: string;
  q?: string;
  /** No events on the page yet: show the first ones as soon as they arrive. */
  autoRefresh?: boolean;
};

/**
 * Asks the events API every few seconds (only while the tab is visible) whether
 * anything newer arrived, and offers to show it; a cheap keyset query instead
 * of re-rendering the whole page.
 */
export function NewEventsNotice({ projectId, since, knownIds, level, q, autoRefresh }: Props) {
  const router = useRouter();
  const [count, setCount] = useState(0);
  const [refreshing, startRefresh] = useTransition();
  const known = useRef(new Set(knownIds));

  useEffect(() => {
    let stopped = false;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const params = new URLSearchParams({ since, limit: "100" });
    if (level) params.set("level", level);
    if (q) params.set("q", q);
    const url = `/api/projects/${encodeURIComponent(projectId)}/events?${params}`;

    async function poll() {
      if (stopped) return;
      if (document.visibilityState === "visible") {
        try {
          const response = await fetch(url, { cache: "no-store", headers: { Accept: "application/json" } });
          if (response.status === 401 || response.status === 403 || response.status === 404) return; // nothing to wait for
          if (response.ok) {
            const body = (await response.json()) as { events: { id: string }[]; nextCursor: string | null };
            const fresh = body.events.filter((event) => !known.current.has(event.id)).length;
            if (fresh > 0 && autoRefresh) {
              startRefresh(() => router.refresh());
              return;
            }
            setCount(fresh); // at most 100 per poll: shown as "100+"
          }
        } catch {
          // offline for a moment: try again next tick
        }
      }
      if (!stopped) timer = setTimeout(poll, POLL_MS);
    }
    timer = setTimeout(poll, POLL_MS);
    return () => {
      stopped = true;
      clearTimeout(timer);
    };
  }, [projectId, since, level, q, autoRefresh, router]);

  if (autoRefresh) {
    return (
      <p role="status" className="flex items-center gap-2 text-sm text-zinc-500 dark:text-zinc-400">
        <span className="relative flex size-2">
          <span className="absolute inline-flex size-full animate-ping rounded-full bg-emerald-400 opacity-75 motion-reduce:animate-none" />
          <span className="relative inline-flex size-2 rounded-full bg-emerald-500" />
        </span>
        {refreshing ? "Loading new events…" : "Waiting for events…"}
      </p>
    );
  }

  return (
    <div role="status" aria-live="polite" className="min-h-0">
      {count > 0 && (
        <Button variant="primary" size="sm" onClick={() => startRefresh(() => router.refresh())} disabled={refreshing}>
          {refreshing ? "Loading…" : `${count >= 100 ? "100+" : count} new ${pluralWord(count, "event")} · Show`}
        </Button>
      )}
    </div>
  );
}
