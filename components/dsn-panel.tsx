"use client";

import { useState } from "react";
import { CopyButton } from "@/components/copy-button";
import { sdkSetups } from "@/components/sdk-setup";

const codeClass = "overflow-x-auto rounded-md bg-zinc-900 p-3 font-mono text-xs leading-relaxed text-zinc-100 dark:bg-black";

/**
 * A project's DSN with a copy button and, folded, the setup lines for each
 * Sentry SDK with the DSN filled in. The DSN's key only sends events, so it
 * is part of the page (unlike the API key).
 */
export function DsnPanel({ projectName, dsn, rotate }: { projectName: string; dsn: string | null; rotate?: React.ReactNode }) {
  const setups = dsn ? sdkSetups(dsn) : [];
  const [chosen, setChosen] = useState(setups[0]?.id ?? "node");
  const setup = setups.find((s) => s.id === chosen) ?? setups[0];

  return (
    <div className="space-y-1.5">
      <div className="flex items-center justify-between gap-2">
        <span className="text-xs font-medium tracking-wide text-zinc-500 uppercase dark:text-zinc-400">DSN (Sentry SDKs)</span>
        {rotate}
      </div>
      {dsn ? (
        <>
          <div className="flex flex-wrap items-center gap-2">
            <code
              aria-label={`DSN for ${projectName}`}
              className="min-w-0 flex-1 basis-64 overflow-x-auto rounded-md border border-zinc-200 bg-zinc-50 px-2.5 py-1.5 font-mono text-xs whitespace-nowrap text-zinc-800 dark:border-zinc-800 dark:bg-zinc-950 dark:text-zinc-200"
            >
              {dsn}
            </code>
            <CopyButton text={dsn} ariaLabel={`Copy DSN for ${projectName}`} />
          </div>
          <details className="group rounded-md border border-zinc-200 dark:border-zinc-800">
            <summary className="cursor-pointer px-3 py-2 text-sm font-medium select-none">Set up a Sentry SDK</summary>
            <div className="space-y-3 border-t border-zinc-200 p-3 dark:border-zinc-800">
              <div role="group" aria-label="Language" className="flex flex-wrap gap-1.5">
                {setups.map((s) => (
                  <button
                    key={s.id}
                    type="button"
                    aria-pressed={s.id === setup?.id}
                    onClick={() => setChosen(s.id)}
                    className="rounded-md border border-zinc-300 px-2 py-1 text-xs font-medium aria-pressed:border-indigo-600 aria-pressed:bg-indigo-600 aria-pressed:text-white dark:border-zinc-700"
                  >
                    {s.label}
                  </button>
                ))}
              </div>
              {setup && (
                <div className="space-y-2">
                  <div className="flex flex-wrap items-center gap-2">
                    <pre aria-label={`Install ${setup.label} SDK`} className={`${codeClass} min-w-0 flex-1`}>
                      <code>{setup.install}</code>
                    </pre>
                    <CopyButton text={setup.install} ariaLabel={`Copy ${setup.label} install command`} />
                  </div>
                  <pre aria-label={`${setup.label} setup`} className={codeClass}>
                    <code>{setup.code}</code>
                  </pre>
                  <CopyButton text={setup.code} label="Copy setup" ariaLabel={`Copy ${setup.label} setup`} />
                  <p className="text-xs text-zinc-500 dark:text-zinc-400">
                    Already on Sentry, GlitchTip or Bugsink? Change only the DSN (or the SENTRY_DSN variable). Performance data, replays and sessions are accepted and
                    dropped.
                  </p>
                </div>
              )}
            </div>
          </details>
        </>
      ) : (
        <p className="text-sm text-zinc-500">The DSN can’t be shown: its key was stored under another TELLTALE_SECRET. An owner can Rotate it to make a new one.</p>
      )}
    </div>
  );
}
