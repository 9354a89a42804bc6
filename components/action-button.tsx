"use client";

import { useActionState } from "react";
import type { ActionState, FormAction } from "@/components/action-state";
import { FormMessage } from "@/components/form-message";
import { SubmitButton } from "@/components/submit-button";
import type { ButtonVariant } from "@/components/button";

/** One button that runs a server action, with its error shown beside it. */
export function ActionButton({
  action,
  fields,
  label,
  ariaLabel,
  variant = "primary",
}: {
  action: FormAction;
  fields: Record<string, string>;
  label: string;
  ariaLabel?: string;
  variant?: ButtonVariant;
}) {
  const [state, formAction] = useActionState<ActionState, FormData>(action, null);
  return (
    <form action={formAction} className="flex flex-wrap items-center gap-2" aria-label={ariaLabel}>
      {Object.entries(fields).map(([name, value]) => (
        <input key={name} type="hidden" name={name} value={value} />
      ))}
      <SubmitButton variant={variant} size="sm" pendingLabel="Working…">
        {label}
      </SubmitButton>
      <FormMessage state={state} />
    </form>
  );
}
