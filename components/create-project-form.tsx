"use client";

import Link from "next/link";
import { useActionState, useEffect, useRef } from "react";
import type { ActionState } from "@/components/action-state";
import { CopyButton } from "@/components/copy-button";
import { FormMessage } from "@/components/form-message";
import { SubmitButton } from "@/components/submit-button";
import { inputClass } from "@/components/text-field";

type Created = { ok: true; project: { id: string; name: string; apiKey: string } };
export type CreateProjectState = ActionState | Created;

/** New project form; on success it shows the new key once, ready to copy. */
export function CreateProjectForm({ action }: { action: (previous: CreateProjectState, formData: FormData) => Promise<CreateProjectState> }) {
  const [state, formAction] = useActionState(action, null);
  const form = useRef<HTMLFormElement>(null);
  const created = state && "project" in state ? state.project : null;

  useEffect(() => {
    if (created) form.current?.reset();
  }, [created]);

  return (
    <div className="space-y-3">
      <form ref={form} action={formAction} className="flex flex-col gap-2 sm:flex-row sm:items-end">
        <div className="flex flex-1 flex-col gap-1.5">
          <label htmlFor="project-name" className="text-sm font-medium text-zinc-700 dark:text-zinc-300">
            Project name
          </label>
          <input id="project-name" name="name" required maxLength={100} placeholder="e.g. Checkout API" autoComplete="off" className={inputClass} />
        </div>
        <SubmitButton pendingLabel="Creating…">Create project</SubmitButton>
      </form>
      {state && !("project" in state) && <FormMessage state={state} />}
      {created && (
        <div role="status" className="space-y-2 rounded-lg border border-emerald-300 bg-emerald-50 p-4 text-sm dark:border-emerald-800 dark:bg-emerald-950/40">
          <p className="font-medium text-emerald-900 dark:text-emerald-200">
            Project “{created.name}” created. Its API key:
          </p>
          <div className="flex flex-wrap items-center gap-2">
            <code
              aria-label={`New API key for ${created.name}`}
              className="min-w-0 flex-1 basis-64 overflow-x-auto rounded-md border border-emerald-200 bg-white px-2.5 py-1.5 font-mono text-xs whitespace-nowrap dark:border-emerald-900 dark:bg-zinc-950"
            >
              {created.apiKey}
            </code>
            <CopyButton text={created.apiKey} ariaLabel={`Copy new API key for ${created.name}`} />
          </div>
          <p className="text-emerald-900/80 dark:text-emerald-200/80">
            Keep it on your servers only. You can reveal it again below.{" "}
            <Link href={`/projects/${created.id}`} className="font-medium whitespace-nowrap text-emerald-900 underline underline-offset-2 dark:text-emerald-200">
              Send a first event →
            </Link>
          </p>
        </div>
      )}
    </div>
  );
}
