import type { ReactNode } from "react";

/** One figure of a summary row: a small label over its value. */
export function Stat({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="min-w-0">
      <dt className="text-xs text-zinc-500 dark:text-zinc-400">{label}</dt>
      <dd className="mt-0.5 truncate text-sm font-semibold tabular-nums">{children}</dd>
    </div>
  );
}
