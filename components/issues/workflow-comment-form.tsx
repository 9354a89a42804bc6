"use client";

import { useActionState, useEffect, useId, useRef } from "react";
import type { ActionState, FormAction } from "@/components/action-state";
import { FormMessage } from "@/components/form-message";
import { SubmitButton } from "@/components/submit-button";

/** A comment on the issue; the text is cleared once it is saved. */
export function WorkflowCommentForm({ projectId, issueId, action, maxLength }: { projectId: string; issueId: string; action: FormAction; maxLength: number }) {
  const [state, formAction] = useActionState<ActionState, FormData>(action, null);
  const form = useRef<HTMLFormElement>(null);
  const id = useId();
  useEffect(() => {
    if (state?.ok) form.current?.reset();
  }, [state]);
  return (
    <form ref={form} action={formAction} className="space-y-2">
      <input type="hidden" name="projectId" value={projectId} />
      <input type="hidden" name="issueId" value={issueId} />
      <label htmlFor={id} className="sr-only">
        Comment
      </label>
      <textarea
        id={id}
        name="text"
        required
        rows={2}
        maxLength={maxLength}
        placeholder="Add a comment for the team…"
        className="block w-full rounded-md border border-zinc-300 bg-white px-2.5 py-1.5 text-sm dark:border-zinc-700 dark:bg-zinc-900"
      />
      <div className="flex flex-wrap items-center gap-2">
        <SubmitButton size="sm" variant="secondary" pendingLabel="Saving…">
          Comment
        </SubmitButton>
        <FormMessage state={state} />
      </div>
    </form>
  );
}
