"use client";

import { useActionState, useId } from "react";
import type { ActionState, FormAction } from "@/components/action-state";
import { FormMessage } from "@/components/form-message";
import { SubmitButton } from "@/components/submit-button";

/**
 * The origins whose pages may send through the Sentry routes (browser SDKs),
 * one per line (or separated by commas or spaces); owners edit them, members read them.
 */
export function AllowedOriginsForm({ projectId, origins, editable, action }: { projectId: string; origins: string[]; editable: boolean; action: FormAction }) {
  const [state, formAction] = useActionState<ActionState, FormData>(action, null);
  const id = useId();
  const hintId = `${id}-hint`;
  return (
    <form action={formAction} className="space-y-2">
      <input type="hidden" name="projectId" value={projectId} />
      <label htmlFor={id} className="block text-sm font-medium text-zinc-700 dark:text-zinc-300">
        Allowed origins
      </label>
      <p id={hintId} className="text-xs text-zinc-500 dark:text-zinc-400">
        Web pages on these origins may send events with the DSN (browser SDKs), one per line as <code className="font-mono">https://app.example.com</code> (scheme, host
        and port; no path); commas and spaces separate them too. <code className="font-mono">*</code> allows any page; an empty list allows none. Servers and apps send no origin and are not affected.
      </p>
      <textarea
        id={id}
        name="allowedOrigins"
        aria-describedby={hintId}
        rows={Math.min(8, Math.max(2, origins.length + 1))}
        defaultValue={origins.join("\n")}
        readOnly={!editable}
        spellCheck={false}
        className="block w-full rounded-md border border-zinc-300 bg-white px-3 py-2 font-mono text-xs text-zinc-900 shadow-sm read-only:bg-zinc-50 dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100 read-only:dark:bg-zinc-950"
      />
      {editable && (
        <div className="flex flex-wrap items-center gap-3">
          <SubmitButton size="sm" pendingLabel="Saving…">
            Save origins
          </SubmitButton>
          <FormMessage state={state} />
        </div>
      )}
    </form>
  );
}
