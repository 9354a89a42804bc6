"use client";

import { useActionState } from "react";
import { useFormStatus } from "react-dom";
import type { ActionState, FormAction } from "@/components/action-state";
import { Button, type ButtonSize } from "@/components/button";
import { FormMessage } from "@/components/form-message";
import type { IssueStatus } from "@/lib/issues/filters";

const CHOICES: Record<IssueStatus, { status: IssueStatus; label: string }[]> = {
  open: [
    { status: "resolved", label: "Resolve" },
    { status: "ignored", label: "Ignore" },
  ],
  resolved: [
    { status: "open", label: "Reopen" },
    { status: "ignored", label: "Ignore" },
  ],
  ignored: [
    { status: "open", label: "Reopen" },
    { status: "resolved", label: "Resolve" },
  ],
};

/**
 * Resolve / Ignore / Reopen for one issue: one form whose buttons each send
 * their status (the submitter's value travels with the form data). Any
 * member may do it; the page re-renders from the server afterwards.
 */
export function IssueStatusActions({
  projectId,
  issueId,
  status,
  action,
  size = "sm",
}: {
  projectId: string;
  issueId: string;
  status: IssueStatus;
  action: FormAction;
  size?: ButtonSize;
}) {
  const [state, formAction] = useActionState<ActionState, FormData>(action, null);
  return (
    <form action={formAction} className="flex flex-wrap items-center gap-2">
      <input type="hidden" name="projectId" value={projectId} />
      <input type="hidden" name="issueId" value={issueId} />
      {CHOICES[status].map((choice, i) => (
        <StatusButton key={choice.status} value={choice.status} label={choice.label} primary={i === 0} size={size} />
      ))}
      <FormMessage state={state} />
    </form>
  );
}

function StatusButton({ value, label, primary, size }: { value: IssueStatus; label: string; primary: boolean; size: ButtonSize }) {
  const { pending, data } = useFormStatus();
  const mine = pending && data?.get("status") === value;
  return (
    <Button type="submit" name="status" value={value} variant={primary ? "secondary" : "ghost"} size={size} disabled={pending} aria-disabled={pending}>
      {mine ? "Saving…" : label}
    </Button>
  );
}
