import Link from "next/link";
import { LocalTime } from "@/components/local-time";
import type { AlertDeliveryKind, AlertDeliveryStatus, AlertDeliveryView } from "@/lib/alerts/deliveries";

const KIND_WORDS: Record<AlertDeliveryKind, string> = {
  new_issue: "New issue",
  regression: "Regression",
  spike: "Spike",
  digest: "Digest",
  test: "Test",
  webhook_paused: "Webhook paused",
};

const pill = "inline-flex shrink-0 items-center rounded-full px-2 py-0.5 text-[11px] font-semibold";
const STATUS_STYLES: Record<AlertDeliveryStatus, string> = {
  sent: "bg-emerald-100 text-emerald-800 dark:bg-emerald-500/15 dark:text-emerald-300",
  pending: "bg-amber-100 text-amber-800 dark:bg-amber-500/15 dark:text-amber-300",
  sending: "bg-amber-100 text-amber-800 dark:bg-amber-500/15 dark:text-amber-300",
  failed: "bg-red-100 text-red-800 dark:bg-red-500/15 dark:text-red-300",
  suppressed: "bg-zinc-200 text-zinc-600 dark:bg-zinc-800 dark:text-zinc-400",
  digested: "bg-zinc-200 text-zinc-600 dark:bg-zinc-800 dark:text-zinc-400",
  cancelled: "bg-zinc-200 text-zinc-600 dark:bg-zinc-800 dark:text-zinc-400",
  logged: "bg-sky-100 text-sky-800 dark:bg-sky-500/15 dark:text-sky-300",
};

// Development without EMAIL_SERVER: the mail is in the server's log, which is not a failure.
const STATUS_WORDS: Partial<Record<AlertDeliveryStatus, string>> = { logged: "logged (development)" };

function summary(d: AlertDeliveryView): string {
  if (d.kind === "digest") return `${Number(d.detail?.total ?? 0)} notifications in one`;
  if (d.kind === "webhook_paused" && d.detail) return `after ${Number(d.detail.failures ?? 0)} failed attempts in a row`;
  if (d.kind === "spike" && d.detail) return `${Number(d.detail.observed ?? 0).toLocaleString("en-US")} events in ${Number(d.detail.minutes ?? 0)} min${d.issue ? "" : " (project)"}`;
  return "";
}

/** The delivery log: what was sent, when, where, the answer, attempts and the next retry. */
export function AlertDeliveryLog({ projectId, deliveries, renderedAt }: { projectId: string; deliveries: AlertDeliveryView[]; renderedAt: number }) {
  if (deliveries.length === 0) return <p className="text-sm text-zinc-500 dark:text-zinc-400">Nothing sent yet.</p>;
  return (
    <ul aria-label="Alert deliveries" className="divide-y divide-zinc-200 dark:divide-zinc-800">
      {deliveries.map((d) => (
        <li key={d.id} className="flex flex-wrap items-start gap-x-3 gap-y-1 py-2.5 text-sm">
          <span className={`${pill} ${STATUS_STYLES[d.status]}`}>{STATUS_WORDS[d.status] ?? d.status}</span>
          <div className="min-w-0 flex-1 basis-64">
            <p className="truncate">
              <span className="font-medium">{KIND_WORDS[d.kind]}</span>
              {d.issue && (
                <>
                  {": "}
                  <Link href={`/projects/${projectId}/issues/${d.issue.id}`} className="hover:underline">
                    {d.issue.title}
                  </Link>
                </>
              )}
              {summary(d) && <span className="text-zinc-500 dark:text-zinc-400"> · {summary(d)}</span>}
            </p>
            <p className="truncate text-xs text-zinc-500 dark:text-zinc-400">
              {d.channel}
              {d.answer && <> · {d.answer}</>}
              {d.attempts > 1 && <> · {d.attempts} attempts</>}
              {d.nextAttemptAt && d.status === "pending" && (
                <>
                  {" · next try "}
                  <LocalTime iso={d.nextAttemptAt} format="relative" renderedAt={renderedAt} />
                </>
              )}
            </p>
          </div>
          <span className="text-xs text-zinc-500 dark:text-zinc-400">
            <LocalTime iso={d.lastAttemptAt ?? d.createdAt} format="relative" renderedAt={renderedAt} />
          </span>
        </li>
      ))}
    </ul>
  );
}
