import type { FormAction } from "@/components/action-state";
import { WorkflowCommentForm } from "@/components/issues/workflow-comment-form";
import { personName } from "@/components/issues/person-name";
import { LocalTime } from "@/components/local-time";
import { formatCount } from "@/components/number-format";
import { MAX_COMMENT_CHARS, type ActivityView } from "@/lib/issues/activities";

type Props = {
  projectId: string;
  issueId: string;
  activities: ActivityView[];
  /** Older activity exists beyond this page. */
  more: boolean;
  commentAction: FormAction;
  renderedAt: number;
};

const text = (value: unknown) => (typeof value === "string" ? value : "");

/** What an activity says, in a sentence (its author shown apart). */
function describe(a: ActivityView, renderedAt: number): React.ReactNode {
  const d = a.detail;
  switch (a.kind) {
    case "comment":
      return <p className="mt-1 text-sm break-words whitespace-pre-wrap text-zinc-800 dark:text-zinc-200">{text(d.text)}</p>;
    case "regression":
      return (
        <>
          regressed: an event dated {typeof d.at === "string" ? <LocalTime iso={d.at} format="datetime" renderedAt={renderedAt} /> : "later"} reopened it
        </>
      );
    case "assignment":
      if (d.reason === "left_project") return <>unassigned: the assignee left the project</>;
      if (!a.assignee) return <>unassigned it</>;
      return a.user?.id === a.assignee.id ? <>assigned it to themselves</> : <>assigned it to {personName(a.assignee)}</>;
    case "status": {
      if (d.reason === "ignore_ended") return <>opened it again: its ignore ran out</>;
      if (d.to === "open") return <>reopened it</>;
      if (d.to === "resolved") {
        if (d.resolveMode === "next_release") return <>resolved it in the next release (after {text(d.resolvedIn)})</>;
        if (d.resolveMode === "in_release") return <>resolved it in release {text(d.resolvedIn)}</>;
        return <>resolved it</>;
      }
      const until: React.ReactNode[] = [];
      if (typeof d.ignoredUntil === "string") until.push(<LocalTime key="t" iso={d.ignoredUntil} format="datetime" renderedAt={renderedAt} />);
      if (typeof d.ignoreEvents === "number") until.push(<span key="n">{formatCount(d.ignoreEvents)} more events</span>);
      return until.length === 0 ? <>ignored it</> : <>ignored it until {until.length === 2 ? <>{until[0]} or {until[1]}</> : until[0]}</>;
    }
  }
}

/** The issue's activity, newest first, with the comment form on top. */
export function WorkflowActivity({ projectId, issueId, activities, more, commentAction, renderedAt }: Props) {
  return (
    <div className="space-y-3">
      <WorkflowCommentForm projectId={projectId} issueId={issueId} action={commentAction} maxLength={MAX_COMMENT_CHARS} />
      {activities.length === 0 ? (
        <p className="text-sm text-zinc-500 dark:text-zinc-400">Nothing yet: status changes, assignments, comments and regressions show here.</p>
      ) : (
        <ol aria-label="Activity" className="space-y-2">
          {activities.map((a) => (
            <li key={a.id} className="border-l-2 border-zinc-200 pl-3 text-sm dark:border-zinc-700">
              <p className="text-zinc-600 dark:text-zinc-400">
                <span className="font-medium text-zinc-800 dark:text-zinc-200">{a.user ? personName(a.user) : "Telltale"}</span>{" "}
                {a.kind === "comment" ? "commented" : describe(a, renderedAt)}{" "}
                <span className="text-xs text-zinc-500">
                  · <LocalTime iso={a.createdAt} format="relative" renderedAt={renderedAt} />
                </span>
              </p>
              {a.kind === "comment" && describe(a, renderedAt)}
            </li>
          ))}
        </ol>
      )}
      {more && <p className="text-xs text-zinc-500 dark:text-zinc-400">The latest {activities.length} are shown; the API pages through the rest.</p>}
    </div>
  );
}
