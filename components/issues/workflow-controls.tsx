"use client";

import { useActionState, useId, type ReactNode } from "react";
import { useFormStatus } from "react-dom";
import type { ActionState, FormAction } from "@/components/action-state";
import { Button, buttonClass } from "@/components/button";
import { FormMessage } from "@/components/form-message";
import { LocalTime } from "@/components/local-time";
import { personName } from "@/components/issues/person-name";
import { formatCount } from "@/components/number-format";
import type { PersonView } from "@/lib/auth/users";
import type { IssueWorkflowView } from "@/lib/issues/workflow";
import { pluralWord } from "@/lib/text/plural";

/** "For a while" and "N more events" choices of the Ignore menu. */
export const IGNORE_DURATIONS = [
  { minutes: 30, label: "For 30 minutes" },
  { minutes: 60, label: "For 1 hour" },
  { minutes: 24 * 60, label: "For 1 day" },
  { minutes: 7 * 24 * 60, label: "For 1 week" },
] as const;
export const IGNORE_EVENT_COUNTS = [10, 100, 1000] as const;

type Props = {
  projectId: string;
  issue: Omit<IssueWorkflowView, "id"> & { id: string; count: number };
  members: PersonView[];
  /** The project's latest releases, newest first. */
  releases: string[];
  action: FormAction;
  renderedAt: number;
};

/**
 * The issue page's workflow: where the issue stands (resolved how and by
 * whom, ignored until when; its late events are next to its status), Resolve / Ignore menus with their
 * "in the next release" and "until…" choices, Reopen, and the assignee
 * picker. Each choice is a small form of its own on one action state.
 */
export function WorkflowControls({ projectId, issue, members, releases, action, renderedAt }: Props) {
  const [state, formAction] = useActionState<ActionState, FormData>(action, null);
  const fields = { projectId, issueId: issue.id };
  const choice = (label: string, values: Record<string, string>) => <Choice action={formAction} fields={{ ...fields, ...values }} label={label} />;

  return (
    <div className="space-y-2">
      <WorkflowState issue={issue} renderedAt={renderedAt} />
      <div className="flex flex-wrap items-start gap-2">
        {issue.status !== "open" && <Choice action={formAction} fields={{ ...fields, status: "open" }} label="Reopen" variant="secondary" />}
        <Menu label={issue.status === "resolved" ? "Resolved ▾" : "Resolve ▾"}>
          {choice("Resolve now", { status: "resolved" })}
          {releases.length > 0 ? (
            choice(`In the next release (after ${releases[0]})`, { status: "resolved", resolvedIn: "next_release" })
          ) : (
            <p className="px-2 py-1 text-xs text-zinc-500 dark:text-zinc-400">In the next release: once events name a release.</p>
          )}
          {releases.length > 0 && <ReleaseChoice action={formAction} fields={fields} releases={releases} />}
        </Menu>
        <Menu label={issue.status === "ignored" ? "Ignored ▾" : "Ignore ▾"}>
          {choice("Forever", { status: "ignored" })}
          {IGNORE_DURATIONS.map((d) => (
            <Choice key={d.minutes} action={formAction} fields={{ ...fields, status: "ignored", ignoreMinutes: String(d.minutes) }} label={d.label} />
          ))}
          {IGNORE_EVENT_COUNTS.map((n) => (
            <Choice key={n} action={formAction} fields={{ ...fields, status: "ignored", ignoreEvents: String(n) }} label={`Until ${formatCount(n)} more events`} />
          ))}
        </Menu>
        <AssigneePicker action={formAction} fields={fields} members={members} assignee={issue.assignee} />
      </div>
      <FormMessage state={state} />
    </div>
  );
}

/** One sentence on where the issue stands. */
function WorkflowState({ issue, renderedAt }: { issue: Props["issue"]; renderedAt: number }) {
  const parts: ReactNode[] = [];
  if (issue.status === "resolved" && issue.resolvedAt) {
    parts.push(
      <span key="resolved">
        Resolved <LocalTime iso={issue.resolvedAt} format="relative" renderedAt={renderedAt} />
        {issue.resolvedBy && <> by {personName(issue.resolvedBy)}</>}
        {issue.resolvedIn === "next_release"
          ? `, in the next release (a release newer than ${issue.resolvedRelease} reopens it)`
          : issue.resolvedIn
            ? `, in release ${issue.resolvedIn} (a newer release reopens it)`
            : " (an event dated after this reopens it)"}
      </span>,
    );
  }
  if (issue.status === "ignored") {
    const until: ReactNode[] = [];
    if (issue.ignoredUntil) until.push(<LocalTime key="t" iso={issue.ignoredUntil} format="datetime" renderedAt={renderedAt} />);
    if (issue.ignoredUntilCount !== null) {
      const left = Math.max(0, issue.ignoredUntilCount - issue.count);
      until.push(<span key="n">{formatCount(left)} more {pluralWord(left, "event")}</span>);
    }
    parts.push(
      <span key="ignored">
        Ignored{" "}
        {until.length === 0 ? (
          "forever"
        ) : (
          <>
            until {until[0]}
            {until[1] && <> or {until[1]}, whichever comes first</>}
          </>
        )}
      </span>,
    );
  }
  if (parts.length === 0) return null;
  return (
    <p className="flex flex-wrap gap-x-2 gap-y-1 text-sm text-zinc-600 dark:text-zinc-400" data-testid="workflow-state">
      {parts.map((p, i) => (
        <span key={i}>
          {i > 0 && <span aria-hidden="true">· </span>}
          {p}
        </span>
      ))}
    </p>
  );
}

/** A drop-down of choices on a native <details>: keyboard and screen readers for free, no script needed to open it. */
function Menu({ label, children }: { label: string; children: ReactNode }) {
  return (
    <details className="group relative">
      <summary className={buttonClass("secondary", "sm", "cursor-pointer list-none [&::-webkit-details-marker]:hidden")}>{label}</summary>
      <div className="absolute left-0 z-20 mt-1 flex w-64 max-w-[80vw] flex-col gap-0.5 rounded-lg border border-zinc-200 bg-white p-1 shadow-lg dark:border-zinc-700 dark:bg-zinc-900">
        {children}
      </div>
    </details>
  );
}

function Hidden({ fields }: { fields: Record<string, string> }) {
  return Object.entries(fields).map(([name, value]) => <input key={name} type="hidden" name={name} value={value} />);
}

/** Closes the menu a choice was made in. */
const closeMenu = (form: HTMLFormElement) => form.closest("details")?.removeAttribute("open");

/** One choice: a form with its fields and one button. */
function Choice({ action, fields, label, variant = "ghost" }: { action: (data: FormData) => void; fields: Record<string, string>; label: string; variant?: "ghost" | "secondary" }) {
  return (
    <form action={action} onSubmit={(e) => closeMenu(e.currentTarget)}>
      <Hidden fields={fields} />
      <ChoiceButton label={label} variant={variant} />
    </form>
  );
}

function ChoiceButton({ label, variant }: { label: string; variant: "ghost" | "secondary" }) {
  const { pending } = useFormStatus();
  return (
    <Button type="submit" variant={variant} size="sm" className={variant === "ghost" ? "w-full justify-start" : ""} disabled={pending} aria-disabled={pending}>
      {pending ? "Saving…" : label}
    </Button>
  );
}

function ReleaseChoice({ action, fields, releases }: { action: (data: FormData) => void; fields: Record<string, string>; releases: string[] }) {
  const id = useId();
  return (
    <form action={action} onSubmit={(e) => closeMenu(e.currentTarget)} className="flex flex-col gap-1 border-t border-zinc-100 px-2 pt-2 pb-1 dark:border-zinc-800">
      <Hidden fields={{ ...fields, status: "resolved" }} />
      <label htmlFor={id} className="text-xs text-zinc-500 dark:text-zinc-400">
        In a release (a newer one reopens it)
      </label>
      <div className="flex gap-1">
        <select id={id} name="resolvedIn" className="min-w-0 flex-1 rounded-md border border-zinc-300 bg-white px-1.5 text-xs dark:border-zinc-700 dark:bg-zinc-900">
          {releases.map((r) => (
            <option key={r} value={r}>
              {r}
            </option>
          ))}
        </select>
        <ChoiceSubmit label="Resolve" />
      </div>
    </form>
  );
}

function ChoiceSubmit({ label }: { label: string }) {
  const { pending } = useFormStatus();
  return (
    <Button type="submit" variant="secondary" size="sm" disabled={pending} aria-disabled={pending}>
      {pending ? "Saving…" : label}
    </Button>
  );
}

/** The assignee: any member of the project, or nobody. Picking one saves it. */
function AssigneePicker({ action, fields, members, assignee }: { action: (data: FormData) => void; fields: Record<string, string>; members: PersonView[]; assignee: PersonView | null }) {
  const id = useId();
  // A former member stays shown until someone else is picked.
  const options = assignee && !members.some((m) => m.id === assignee.id) ? [assignee, ...members] : members;
  return (
    <form action={action} className="flex items-center gap-1.5">
      <Hidden fields={fields} />
      <label htmlFor={id} className="text-xs text-zinc-500 dark:text-zinc-400">
        Assignee
      </label>
      <select
        id={id}
        name="assigneeId"
        defaultValue={assignee?.id ?? ""}
        key={assignee?.id ?? ""}
        onChange={(e) => e.currentTarget.form?.requestSubmit()}
        className="h-8 max-w-48 rounded-md border border-zinc-300 bg-white px-1.5 text-xs dark:border-zinc-700 dark:bg-zinc-900"
      >
        <option value="">Unassigned</option>
        {options.map((m) => (
          <option key={m.id} value={m.id}>
            {personName(m)}
          </option>
        ))}
      </select>
    </form>
  );
}
