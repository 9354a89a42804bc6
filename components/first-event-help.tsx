import { CurlSnippet } from "@/components/curl-snippet";
import { NewEventsNotice } from "@/components/new-events-notice";
import type { RevealResult } from "@/components/use-revealed-key";

/**
 * A project that never received an event: how to send the first one, and a
 * page that shows it by itself as soon as it arrives.
 */
export function FirstEventHelp({ origin, projectId, since, reveal }: { origin: string; projectId: string; since: string; reveal: () => Promise<RevealResult> }) {
  return (
    <section aria-labelledby="first-event" className="space-y-4 rounded-xl border border-dashed border-zinc-300 p-4 sm:p-5 dark:border-zinc-700">
      <div>
        <h2 id="first-event" className="text-base font-semibold">
          No events yet: send your first one
        </h2>
        <p className="mt-1 text-sm text-zinc-600 dark:text-zinc-400">
          Run this from a terminal (or your server). Your API key is inserted only when you ask; keep it out of browser code.
        </p>
      </div>
      <CurlSnippet origin={origin} projectId={projectId} reveal={reveal} />
      <NewEventsNotice projectId={projectId} since={since} knownIds={[]} autoRefresh />
    </section>
  );
}
