import { formatCount } from "@/components/number-format";
import type { IssueStatus } from "@/lib/issues/filters";
import { pluralWord } from "@/lib/text/plural";

const pill = "inline-flex shrink-0 items-center rounded-full px-2 py-0.5 text-[11px] font-semibold";

/** First seen in the period shown. */
export function NewBadge() {
  return <span className={`${pill} bg-emerald-100 text-emerald-800 dark:bg-emerald-500/15 dark:text-emerald-300`}>New</span>;
}

/** A resolved issue that came back (an event after it was resolved) in the period shown. */
export function RegressedBadge() {
  return <span className={`${pill} bg-orange-100 text-orange-800 dark:bg-orange-500/15 dark:text-orange-300`}>Regressed</span>;
}

/**
 * New and regressed in the period: as in Sentry, where a regression replaces
 * the issue's "new" substatus, Regressed leads; "new" stays, as a quieter
 * second badge, since the issue was also first seen in the period.
 */
export function WindowBadges({ isNew, isRegressed }: { isNew: boolean; isRegressed: boolean }) {
  if (!isRegressed) return isNew ? <NewBadge /> : null;
  return (
    <>
      <RegressedBadge />
      {isNew && (
        <span className={`${pill} border border-emerald-300 font-medium text-emerald-700 dark:border-emerald-700 dark:text-emerald-300`} title="First seen in this period too">
          new
        </span>
      )}
    </>
  );
}

/**
 * Events that arrived after the issue was last resolved but did not reopen
 * it, next to its status; the explanation is in the tooltip (and read out).
 */
export function LateEvents({ count }: { count: number }) {
  if (count === 0) return null;
  const why = "Arrived after the issue was last resolved but dated before the resolution, or of the resolved release or an older one: counted, never a regression.";
  return (
    <span data-testid="late-events" title={why} className="cursor-help text-xs text-zinc-600 underline decoration-dotted underline-offset-2 dark:text-zinc-400">
      {formatCount(count)} late {pluralWord(count, "event")}
      <span className="sr-only"> ({why})</span>
    </span>
  );
}

const statusStyles: Record<IssueStatus, string> = {
  open: "bg-indigo-100 text-indigo-800 dark:bg-indigo-500/15 dark:text-indigo-300",
  resolved: "bg-zinc-200 text-zinc-700 dark:bg-zinc-800 dark:text-zinc-300",
  ignored: "bg-zinc-200 text-zinc-500 dark:bg-zinc-800 dark:text-zinc-400",
};

export function StatusBadge({ status }: { status: IssueStatus }) {
  return <span className={`${pill} capitalize ${statusStyles[status]}`}>{status}</span>;
}
