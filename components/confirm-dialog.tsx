"use client";

import { useActionState, useEffect, useId, useRef, useState } from "react";
import type { ActionState, FormAction } from "@/components/action-state";
import { Button, type ButtonSize, type ButtonVariant } from "@/components/button";
import { CopyButton } from "@/components/copy-button";
import { FormMessage } from "@/components/form-message";
import { SubmitButton } from "@/components/submit-button";

type Props = {
  /** The button that opens the dialog. */
  triggerLabel: string;
  triggerAriaLabel?: string;
  triggerVariant?: ButtonVariant;
  triggerSize?: ButtonSize;
  title: string;
  children: React.ReactNode;
  confirmLabel: string;
  confirmVariant?: ButtonVariant;
  action: FormAction;
  /** Hidden form fields sent with the action. */
  fields?: Record<string, string>;
  /** When set, the confirm button stays disabled until this exact text is typed. */
  confirmText?: string;
};

/** A confirmation step on a native <dialog>: focus trap, Escape and backdrop for free. */
export function ConfirmDialog(props: Props) {
  const dialogRef = useRef<HTMLDialogElement>(null);
  // A fresh form (and action state) each time the dialog opens.
  const [session, setSession] = useState(0);
  const titleId = useId();

  function open() {
    setSession((n) => n + 1);
    dialogRef.current?.showModal();
  }
  function close() {
    dialogRef.current?.close();
  }

  return (
    <>
      <Button variant={props.triggerVariant ?? "secondary"} size={props.triggerSize ?? "sm"} onClick={open} aria-label={props.triggerAriaLabel}>
        {props.triggerLabel}
      </Button>
      <dialog
        ref={dialogRef}
        aria-labelledby={titleId}
        onClick={(event) => {
          if (event.target === dialogRef.current) close(); // a click on the backdrop
        }}
        className="m-auto w-[calc(100%-2rem)] max-w-md rounded-lg border border-zinc-200 bg-white p-0 text-zinc-900 shadow-xl dark:border-zinc-800 dark:bg-zinc-900 dark:text-zinc-100"
      >
        <div className="p-5">
          <h2 id={titleId} className="text-base font-semibold">
            {props.title}
          </h2>
          <div className="mt-2 space-y-2 text-sm text-zinc-600 dark:text-zinc-400">{props.children}</div>
          {session > 0 && <ConfirmForm key={session} {...props} onDone={close} onCancel={close} />}
        </div>
      </dialog>
    </>
  );
}

function ConfirmForm({
  action,
  fields,
  confirmText,
  confirmLabel,
  confirmVariant = "danger",
  onDone,
  onCancel,
}: Props & { onDone: () => void; onCancel: () => void }) {
  const [state, formAction] = useActionState<ActionState, FormData>(action, null);
  const [typed, setTyped] = useState("");
  const inputId = useId();

  useEffect(() => {
    // An answer with a value to show (a new key) keeps the dialog open until Done.
    if (state?.ok && !state.shown) onDone();
  }, [state, onDone]);

  if (state?.ok && state.shown) {
    const { label, value } = state.shown;
    return (
      <div className="mt-4 space-y-3">
        <FormMessage state={state} />
        <div className="flex flex-wrap items-center gap-2">
          <code
            aria-label={label}
            className="min-w-0 flex-1 basis-64 overflow-x-auto rounded-md border border-emerald-200 bg-emerald-50 px-2.5 py-1.5 font-mono text-xs whitespace-nowrap text-zinc-900 dark:border-emerald-900 dark:bg-zinc-950 dark:text-zinc-100"
          >
            {value}
          </code>
          <CopyButton text={value} ariaLabel={`Copy ${label}`} />
        </div>
        <div className="flex justify-end">
          <Button variant="primary" onClick={onDone}>
            Done
          </Button>
        </div>
      </div>
    );
  }

  return (
    <form action={formAction} className="mt-4 space-y-4">
      {Object.entries(fields ?? {}).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      {confirmText !== undefined && (
        <div className="space-y-1.5">
          <label htmlFor={inputId} className="block text-sm">
            Type <strong className="font-mono">{confirmText}</strong> to confirm
          </label>
          <input
            id={inputId}
            name="confirmation"
            autoComplete="off"
            value={typed}
            onChange={(event) => setTyped(event.target.value)}
            className="block w-full rounded-md border border-zinc-300 bg-white px-3 py-2 text-sm dark:border-zinc-700 dark:bg-zinc-950"
          />
        </div>
      )}
      <FormMessage state={state} />
      <div className="flex flex-col-reverse gap-2 sm:flex-row sm:justify-end">
        <Button variant="secondary" onClick={onCancel}>
          Cancel
        </Button>
        <SubmitButton variant={confirmVariant} disabled={confirmText !== undefined && typed !== confirmText} pendingLabel="Working…">
          {confirmLabel}
        </SubmitButton>
      </div>
    </form>
  );
}
