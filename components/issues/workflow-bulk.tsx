"use client";

import { createContext, useActionState, useCallback, useContext, useEffect, useId, useMemo, useState, type ReactNode } from "react";
import type { ActionState, FormAction } from "@/components/action-state";
import { FormMessage } from "@/components/form-message";
import { personName } from "@/components/issues/person-name";
import { SubmitButton } from "@/components/submit-button";
import type { PersonView } from "@/lib/auth/users";

type Selection = { selected: ReadonlySet<string>; toggle: (id: string, on: boolean) => void; setAll: (ids: string[]) => void };

const SelectionContext = createContext<Selection | null>(null);

/** The issues checked in the list, shared by their checkboxes and the bulk bar. */
export function WorkflowSelection({ children }: { children: ReactNode }) {
  const [selected, setSelected] = useState<ReadonlySet<string>>(new Set());
  // Stable functions: the bulk bar clears the checks after a change without re-running on each check.
  const toggle = useCallback(
    (id: string, on: boolean) =>
      setSelected((prev) => {
        const next = new Set(prev);
        if (on) next.add(id);
        else next.delete(id);
        return next;
      }),
    [],
  );
  const setAll = useCallback((ids: string[]) => setSelected(new Set(ids)), []);
  const value = useMemo<Selection>(() => ({ selected, toggle, setAll }), [selected, toggle, setAll]);
  return <SelectionContext.Provider value={value}>{children}</SelectionContext.Provider>;
}

/** One issue's checkbox in the list. */
export function WorkflowSelectBox({ issueId, title }: { issueId: string; title: string }) {
  const selection = useContext(SelectionContext);
  if (!selection) return null;
  return (
    <input
      type="checkbox"
      aria-label={`Select ${title}`}
      checked={selection.selected.has(issueId)}
      onChange={(e) => selection.toggle(issueId, e.currentTarget.checked)}
      className="size-4 shrink-0 accent-indigo-600"
    />
  );
}

const BULK_CHOICES = [
  { label: "Resolve", fields: { status: "resolved" } },
  { label: "Ignore", fields: { status: "ignored" } },
  { label: "Ignore 1 day", fields: { status: "ignored", ignoreMinutes: String(24 * 60) } },
  { label: "Reopen", fields: { status: "open" } },
] as const;

/**
 * Select all, and resolve / ignore / reopen / assign the checked issues in
 * one call (PATCH /api/projects/:id/issues does the same). Shown above the
 * list; the choices appear once an issue is checked.
 */
export function WorkflowBulkBar({ projectId, issueIds, members, action }: { projectId: string; issueIds: string[]; members: PersonView[]; action: FormAction }) {
  const selection = useContext(SelectionContext);
  const [state, formAction] = useActionState<ActionState, FormData>(action, null);
  const assigneeId = useId();
  // Checked issues that left the page (another status, the next page) are dropped.
  const onPage = issueIds.filter((id) => selection?.selected.has(id));
  const count = onPage.length;
  // A change that went through clears the checks.
  const clear = selection?.setAll;
  useEffect(() => {
    if (state?.ok) clear?.([]);
  }, [state, clear]);
  if (!selection) return null;
  const all = count === issueIds.length && count > 0;
  const ids = onPage.join(",");

  return (
    <div role="group" aria-label="Bulk changes" className="flex min-h-9 flex-wrap items-center gap-2 rounded-lg border border-zinc-200 bg-white px-3 py-1.5 text-sm dark:border-zinc-800 dark:bg-zinc-900">
      <label className="flex items-center gap-2">
        <input type="checkbox" checked={all} onChange={(e) => selection.setAll(e.currentTarget.checked ? issueIds : [])} className="size-4 accent-indigo-600" />
        <span className="text-zinc-600 dark:text-zinc-400">{count === 0 ? "Select all" : `${count} selected`}</span>
      </label>
      {count > 0 && (
        <>
          {BULK_CHOICES.map((choice) => (
            <form key={choice.label} action={formAction}>
              <input type="hidden" name="projectId" value={projectId} />
              <input type="hidden" name="issueIds" value={ids} />
              {Object.entries(choice.fields).map(([name, value]) => (
                <input key={name} type="hidden" name={name} value={value} />
              ))}
              <SubmitButton variant="secondary" size="sm" pendingLabel="Saving…">
                {choice.label}
              </SubmitButton>
            </form>
          ))}
          <form action={formAction} className="flex items-center gap-1.5">
            <input type="hidden" name="projectId" value={projectId} />
            <input type="hidden" name="issueIds" value={ids} />
            <label htmlFor={assigneeId} className="text-xs text-zinc-500 dark:text-zinc-400">
              Assign to
            </label>
            <select id={assigneeId} name="assigneeId" defaultValue="" className="h-8 max-w-40 rounded-md border border-zinc-300 bg-white px-1.5 text-xs dark:border-zinc-700 dark:bg-zinc-900">
              <option value="">Nobody</option>
              {members.map((m) => (
                <option key={m.id} value={m.id}>
                  {personName(m)}
                </option>
              ))}
            </select>
            <SubmitButton variant="secondary" size="sm" pendingLabel="Saving…">
              Assign
            </SubmitButton>
          </form>
        </>
      )}
      <FormMessage state={state} />
    </div>
  );
}
