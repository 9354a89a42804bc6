import type { IssueStatus } from "@/lib/issues/filters";

const pill = "inline-flex shrink-0 items-center rounded-full px-2 py-0.5 text-[11px] font-semibold";

/** First seen in the period shown. */
export function NewBadge() {
  return <span className={`${pill} bg-emerald-100 text-emerald-800 dark:bg-emerald-500/15 dark:text-emerald-300`}>New</span>;
}

/** A resolved issue that came back (an event after it was resolved) in the period shown. */
export function RegressedBadge() {
  return <span className={`${pill} bg-orange-100 text-orange-800 dark:bg-orange-500/15 dark:text-orange-300`}>Regressed</span>;
}

const statusStyles: Record<IssueStatus, string> = {
  open: "bg-indigo-100 text-indigo-800 dark:bg-indigo-500/15 dark:text-indigo-300",
  resolved: "bg-zinc-200 text-zinc-700 dark:bg-zinc-800 dark:text-zinc-300",
  ignored: "bg-zinc-200 text-zinc-500 dark:bg-zinc-800 dark:text-zinc-400",
};

export function StatusBadge({ status }: { status: IssueStatus }) {
  return <span className={`${pill} capitalize ${statusStyles[status]}`}>{status}</span>;
}
