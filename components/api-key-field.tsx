"use client";

import { useState } from "react";
import { Button } from "@/components/button";
import { CopyButton } from "@/components/copy-button";
import { useRevealedKey, type RevealResult } from "@/components/use-revealed-key";

/**
 * A project's API key: masked until the member presses Reveal, which asks the
 * server for it. Copy works without revealing first.
 */
export function ApiKeyField({
  projectName,
  masked,
  reveal,
}: {
  projectName: string;
  masked: string;
  reveal: () => Promise<RevealResult>;
}) {
  const { apiKey, error, loading, fetchKey } = useRevealedKey(reveal);
  const [shown, setShown] = useState(false);

  async function toggle() {
    if (shown) return setShown(false);
    try {
      await fetchKey();
      setShown(true);
    } catch {
      // the hook shows the error
    }
  }

  const visible = shown && apiKey ? apiKey : masked;
  return (
    <div className="space-y-1">
      <div className="flex flex-wrap items-center gap-2">
        <code
          aria-label={`API key for ${projectName}`}
          className="min-w-0 flex-1 basis-64 overflow-x-auto rounded-md border border-zinc-200 bg-zinc-50 px-2.5 py-1.5 font-mono text-xs whitespace-nowrap text-zinc-800 dark:border-zinc-800 dark:bg-zinc-950 dark:text-zinc-200"
        >
          {visible}
        </code>
        <div className="flex gap-2">
          <Button size="sm" onClick={toggle} disabled={loading} aria-label={`${shown ? "Hide" : "Reveal"} API key for ${projectName}`}>
            {shown ? "Hide" : loading ? "Loading…" : "Reveal"}
          </Button>
          <CopyButton getText={fetchKey} ariaLabel={`Copy API key for ${projectName}`} />
        </div>
      </div>
      {error && (
        <p role="alert" className="text-xs text-red-700 dark:text-red-400">
          {error}
        </p>
      )}
    </div>
  );
}
