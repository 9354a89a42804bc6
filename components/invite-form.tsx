"use client";

import { useActionState, useEffect, useRef } from "react";
import type { ActionState } from "@/components/action-state";
import { CopyButton } from "@/components/copy-button";
import { FormMessage } from "@/components/form-message";
import { SubmitButton } from "@/components/submit-button";
import { inputClass } from "@/components/text-field";

type Invited = { ok: true; email: string; inviteUrl: string; emailSent: boolean };
export type InviteState = ActionState | Invited;

/** Invite by email and role; if no mail could be sent, the link is shown to pass on by hand. */
export function InviteForm({ projectId, action }: { projectId: string; action: (previous: InviteState, formData: FormData) => Promise<InviteState> }) {
  const [state, formAction] = useActionState(action, null);
  const form = useRef<HTMLFormElement>(null);
  const invited = state && "inviteUrl" in state ? state : null;

  useEffect(() => {
    if (invited) form.current?.reset();
  }, [invited]);

  return (
    <div className="space-y-3">
      <form ref={form} action={formAction} className="flex flex-col gap-2 sm:flex-row sm:items-end">
        <input type="hidden" name="projectId" value={projectId} />
        <div className="flex flex-1 flex-col gap-1.5">
          <label htmlFor="invite-email" className="text-sm font-medium text-zinc-700 dark:text-zinc-300">
            Email address
          </label>
          <input id="invite-email" name="email" type="email" required autoComplete="off" placeholder="teammate@example.com" className={inputClass} />
        </div>
        <div className="flex flex-col gap-1.5">
          <label htmlFor="invite-role" className="text-sm font-medium text-zinc-700 dark:text-zinc-300">
            Role
          </label>
          <select id="invite-role" name="role" defaultValue="member" className={`${inputClass} sm:w-32`}>
            <option value="member">Member</option>
            <option value="owner">Owner</option>
          </select>
        </div>
        <SubmitButton pendingLabel="Sending…">Send invitation</SubmitButton>
      </form>
      {state && !invited && <FormMessage state={state} />}
      {invited && (
        <div role="status" className="space-y-2 rounded-md border border-emerald-300 bg-emerald-50 p-3 text-sm dark:border-emerald-800 dark:bg-emerald-950/40">
          <p className="text-emerald-900 dark:text-emerald-200">
            {invited.emailSent
              ? `Invitation sent to ${invited.email}. The link works once and expires in 7 days.`
              : `Invitation created for ${invited.email}, but no email could be sent. Send them this link yourself:`}
          </p>
          {!invited.emailSent && (
            <div className="flex flex-wrap items-center gap-2">
              <code className="min-w-0 flex-1 basis-64 overflow-x-auto rounded border border-emerald-200 bg-white px-2 py-1 font-mono text-xs whitespace-nowrap dark:border-emerald-900 dark:bg-zinc-950">
                {invited.inviteUrl}
              </code>
              <CopyButton text={invited.inviteUrl} ariaLabel="Copy invitation link" />
            </div>
          )}
        </div>
      )}
    </div>
  );
}
