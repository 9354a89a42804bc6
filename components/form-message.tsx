import type { ActionState } from "@/components/action-state";

/** The outcome of a form action, announced to screen readers. */
export function FormMessage({ state }: { state: ActionState }) {
  if (!state) return <p role="status" className="sr-only" />;
  if (state.ok) {
    return state.message ? (
      <p role="status" className="text-sm text-emerald-700 dark:text-emerald-400">
        {state.message}
      </p>
    ) : (
      <p role="status" className="sr-only" />
    );
  }
  return (
    <p role="alert" className="text-sm text-red-700 dark:text-red-400">
      {state.error}
    </p>
  );
}
