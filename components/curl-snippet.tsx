"use client";

import { Button } from "@/components/button";
import { CopyButton } from "@/components/copy-button";
import { useRevealedKey, type RevealResult } from "@/components/use-revealed-key";

function curlCommand(origin: string, projectId: string, apiKey: string): string {
  const body = JSON.stringify({ level: "info", message: "Hello from Telltale", projectId });
  return [
    `curl -X POST ${origin}/api/events \\`,
    `  -H "Authorization: Bearer ${apiKey}" \\`,
    `  -H "Content-Type: application/json" \\`,
    `  -d '${body}'`,
  ].join("\n");
}

/** A ready-to-run curl command that sends a first event with the project's real key. */
export function CurlSnippet({
  origin,
  projectId,
  reveal,
}: {
  origin: string;
  projectId: string;
  reveal: () => Promise<RevealResult>;
}) {
  const { apiKey, error, loading, fetchKey } = useRevealedKey(reveal);
  const command = curlCommand(origin, projectId, apiKey ?? "<API_KEY>");

  return (
    <div className="space-y-2">
      <pre
        aria-label="curl command that sends a first event"
        className="overflow-x-auto rounded-md bg-zinc-900 p-3 font-mono text-xs leading-relaxed text-zinc-100 dark:bg-black"
      >
        <code>{command}</code>
      </pre>
      <div className="flex flex-wrap items-center gap-2">
        {!apiKey && (
          <Button size="sm" onClick={() => fetchKey().catch(() => {})} disabled={loading}>
            {loading ? "Loading…" : "Insert my API key"}
          </Button>
        )}
        <CopyButton
          label="Copy command"
          ariaLabel="Copy curl command"
          getText={async () => curlCommand(origin, projectId, await fetchKey())}
        />
        {error && (
          <span role="alert" className="text-xs text-red-700 dark:text-red-400">
            {error}
          </span>
        )}
      </div>
    </div>
  );
}
