"use client";

import { useRef, type ReactNode } from "react";
import { buttonClass } from "@/components/button";

export const filterFieldClass =
  "h-9 rounded-md border border-zinc-300 bg-white px-2.5 text-sm text-zinc-900 shadow-sm dark:border-zinc-700 dark:bg-zinc-900 dark:text-zinc-100";
export const filterLabelClass = "text-xs font-medium text-zinc-600 dark:text-zinc-400";

/**
 * A filter bar as a plain GET form (works without script), so every filtered
 * view has a shareable URL. Empty fields stay out of the URL. `children`
 * get `submit` to apply a select at once.
 */
export function FilterForm({ action, label, children }: { action: string; label: string; children: (submit: () => void) => ReactNode }) {
  const form = useRef<HTMLFormElement>(null);
  const submit = () => form.current?.requestSubmit();
  return (
    <form
      ref={form}
      action={action}
      method="get"
      role="search"
      aria-label={label}
      className="flex flex-wrap items-end gap-2"
      onSubmit={(event) => {
        // Disabled fields are not submitted: leave the empty ones out of the URL.
        const empty = [...event.currentTarget.elements].filter(
          (el): el is HTMLInputElement | HTMLSelectElement => (el instanceof HTMLInputElement || el instanceof HTMLSelectElement) && el.name !== "" && el.value === "",
        );
        for (const el of empty) el.disabled = true;
        setTimeout(() => empty.forEach((el) => (el.disabled = false)));
      }}
    >
      {children(submit)}
      <button type="submit" className={buttonClass("secondary")}>
        Apply
      </button>
    </form>
  );
}
